// Package devloop builds a tool project again whenever its sources change:
// it watches the project's directories, runs the project's build command
// once the changes settle (one build at a time; changes during a build make
// one more), bounded by a timeout that kills the command with its children,
// and reports each build's outcome, its time, the tail of its output and,
// for a failure, the first file and line the compiler named. wasmcp dev
// serves what it builds.
package devloop

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Defaults of Config.
const (
	DefaultTimeout = 5 * time.Minute
	// DefaultSettle is short: a tool author waits for it on every save, on
	// top of the build, which for a small C project is short too. One save's
	// notifications come within milliseconds (an editor's write in place,
	// or its temporary file renamed over the source); a pause longer than
	// this within a longer operation (a checkout, a generator) starts a
	// build early, and the changes after it make one more.
	DefaultSettle = 50 * time.Millisecond
	// MaxDirs bounds the directories watched: a tree of more is watched in
	// part, with a warning.
	MaxDirs = 4096
	// MaxOutput is the tail of a build's output kept for its report.
	MaxOutput = 64 << 10
)

// Config configures Run. Dir and Build are required.
type Config struct {
	// Dir is the project's directory, watched with its subdirectories.
	Dir string
	// Build is the build command and its arguments, run in Dir.
	Build []string
	// Ignore are names of files and directories whose changes start no
	// build: the built module among them. Hidden names, modules and object
	// files (and a linker's temporary NAME.wasm.tmp...), and the
	// directories of dependencies and build outputs (node_modules,
	// target, build), are always ignored.
	Ignore []string
	// Timeout bounds one build; 0 means DefaultTimeout.
	Timeout time.Duration
	// Settle is how long changes must stop before a build starts; 0 means
	// DefaultSettle.
	Settle time.Duration
	// Logger receives what the watch finds wrong (a tree too large, links
	// not followed). Nil discards it.
	Logger *slog.Logger
}

// Build is the outcome of one build.
type Build struct {
	// Err is nil for a build that succeeded; else why it failed: its exit
	// status, the timeout, or a command that could not start.
	Err error
	// Took is how long the command ran.
	Took time.Duration
	// Output is the tail of what it printed, stdout and stderr together.
	Output string
	// Location is the first "file:line" of a compiler's message in
	// Output, relative to Dir; "" when there is none.
	Location string
	// First reports the first build of the run.
	First bool
}

// Run builds the project once, then again after each settled change, and
// calls built with each outcome, until ctx is done. It returns an error
// only when the watch cannot start.
func Run(ctx context.Context, cfg Config, built func(context.Context, Build)) error {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Settle <= 0 {
		cfg.Settle = DefaultSettle
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if len(cfg.Build) == 0 {
		return errors.New("devloop: no build command")
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", cfg.Dir, err)
	}
	defer w.Close()
	if err := watchTree(w, cfg); err != nil {
		return err
	}
	first := true
	build := func() {
		b := runBuild(ctx, cfg)
		b.First, first = first, false
		if ctx.Err() == nil {
			built(ctx, b)
		}
	}
	build()
	var settle <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-w.Events:
			if !ok {
				return nil
			}
			if cfg.ignored(e.Name) {
				continue
			}
			cfg.Logger.Debug("source changed", "file", e.Name, "op", e.Op.String())
			if e.Has(fsnotify.Create) {
				// A new directory is watched too (a new package, say).
				if fi, err := os.Lstat(e.Name); err == nil && fi.IsDir() {
					_ = watchTree(w, Config{Dir: e.Name, Ignore: cfg.Ignore, Logger: cfg.Logger})
				}
			}
			settle = time.After(cfg.Settle)
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			cfg.Logger.Warn("watching the project's sources", "error", err)
		case <-settle:
			settle = nil
			build()
			// Changes made during the build are in w.Events: they settle
			// and build again.
		}
	}
}

// watchTree adds cfg.Dir and its subdirectories to w, at most MaxDirs,
// without following symbolic links (so a link loop costs nothing).
func watchTree(w *fsnotify.Watcher, cfg Config) error {
	n, links := 0, 0
	err := filepath.WalkDir(cfg.Dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			if path == cfg.Dir {
				return err
			}
			return nil // unreadable: not watched
		case d.Type()&fs.ModeSymlink != 0:
			links++
			return nil
		case !d.IsDir():
			return nil
		case path != cfg.Dir && cfg.ignored(path):
			return filepath.SkipDir
		case n == MaxDirs:
			cfg.Logger.Warn("project has too many directories: the rest are not watched, and their changes start no build",
				"dir", cfg.Dir, "watched", MaxDirs)
			return filepath.SkipAll
		}
		n++
		if err := w.Add(path); err != nil {
			cfg.Logger.Warn("directory not watched", "dir", path, "error", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("watch %s: %w", cfg.Dir, err)
	}
	if links > 0 {
		cfg.Logger.Warn("symbolic links in the project are not followed: changes behind them start no build", "dir", cfg.Dir, "links", links)
	}
	return nil
}

// alwaysIgnored are directories of dependencies and outputs.
var alwaysIgnored = []string{"node_modules", "target", "build"}

// ignored reports whether a change of path starts no build.
func (c *Config) ignored(path string) bool {
	base := filepath.Base(path)
	switch {
	case strings.HasPrefix(base, "."), strings.HasSuffix(base, "~"), strings.HasSuffix(base, ".swp"),
		strings.HasSuffix(base, ".o"), strings.Contains(base, ".wasm"), slices.Contains(c.Ignore, base):
		// ".wasm" anywhere: a linker writes NAME.wasm.tmpXXXX first.
		return true
	}
	rel, err := filepath.Rel(c.Dir, path)
	if err != nil {
		return false
	}
	for part := range strings.SplitSeq(rel, string(filepath.Separator)) {
		if slices.Contains(alwaysIgnored, part) {
			return true
		}
	}
	return false
}
