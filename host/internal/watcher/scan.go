package watcher

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DefaultMatch is the [Options.Match] used when none is given: it accepts base
// names ending in ".wasm" that do not start with '.', '#' or '~'.
//
// Temporary names that editors and tools write before renaming onto the real
// name either do not end in ".wasm" ("x.wasm.swp", "x.wasm~", "4913",
// "x.wasm.part", "x.wasm.crdownload", "x.wasm.tmp", "x.wasm-go-tmp-umask") or
// start with one of those characters (".x.wasm.swp", ".#x.wasm", "#x.wasm#",
// "~$x.wasm"), so they never match.
func DefaultMatch(name string) bool {
	const ext = ".wasm"
	if len(name) <= len(ext) || !strings.HasSuffix(name, ext) {
		return false
	}
	switch name[0] {
	case '.', '#', '~':
		return false
	}
	return true
}

// Scan returns the absolute, cleaned paths of the files directly in dir whose
// base names match (nil means [DefaultMatch]) and that are regular files after
// following symlinks, sorted. It applies exactly the rules a [Watcher] applies,
// so an initial load from Scan and the watcher's later events agree on which
// files are plugins. Dangling symlinks and subdirectories are skipped.
func Scan(dir string, match func(name string) bool) ([]string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", dir, err)
	}
	states, err := scanStates(abs, orDefault(match))
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(states))
	for p := range states {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths, nil
}

func orDefault(match func(string) bool) func(string) bool {
	if match == nil {
		return DefaultMatch
	}
	return match
}

// scanStates reads the absolute directory dir and returns the state of every
// matching present file, keyed by absolute path.
func scanStates(dir string, match func(string) bool) (map[string]fileState, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", dir, err)
	}
	states := make(map[string]fileState, len(entries))
	for _, e := range entries {
		// A directory entry is never a plugin; a symlink may point at one, so
		// only real directories are skipped before the stat.
		if e.IsDir() || !match(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if st := statFile(p); st.exists() {
			states[p] = st
		}
	}
	return states, nil
}

// fileState is what the watcher remembers of a file: enough to tell whether
// it changed between two looks without reading it. The zero value means
// absent.
type fileState struct {
	fi fs.FileInfo
}

// statFile follows symlinks; anything that is not a regular file (a dangling
// link, a directory, a FIFO) or cannot be stat'ed counts as absent.
func statFile(path string) fileState {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return fileState{}
	}
	return fileState{fi: fi}
}

func (s fileState) exists() bool { return s.fi != nil }

// same compares size, mtime, mode and identity (device and inode on Unix).
// Identity catches a file replaced by a rename with the same size and an mtime
// preserved by cp -p or tar; mode catches chmod +r on a file the loader could
// not read. Access time, ownership and link count are deliberately left out:
// they change without the content changing.
func (s fileState) same(o fileState) bool {
	if s.fi == nil || o.fi == nil {
		return s.fi == nil && o.fi == nil
	}
	return s.fi.Size() == o.fi.Size() &&
		s.fi.ModTime().Equal(o.fi.ModTime()) &&
		s.fi.Mode() == o.fi.Mode() &&
		os.SameFile(s.fi, o.fi)
}
