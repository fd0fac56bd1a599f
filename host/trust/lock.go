package trust

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Lock is a parsed lock file: the digests each file name may have. It is
// immutable and safe for concurrent use.
type Lock struct {
	source  string                // the file it was read from, for messages
	digests map[string][][32]byte // base name -> allowed digests
	entries int
}

// LoadLock reads the lock file at path (see the package documentation for
// its format).
func LoadLock(path string) (*Lock, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load lock file: %w", err)
	}
	l, err := ParseLock(data)
	if err != nil {
		return nil, fmt.Errorf("load lock file %s: %w", path, err)
	}
	l.source = path
	return l, nil
}

// ParseLock parses the contents of a lock file.
func ParseLock(data []byte) (*Lock, error) {
	l := &Lock{source: "the lock file", digests: map[string][][32]byte{}}
	for n, line := range lines(data) {
		if line == "" || line[0] == '#' {
			continue
		}
		name, digest, err := parseLockLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if !slices.Contains(l.digests[name], digest) {
			l.digests[name] = append(l.digests[name], digest)
			l.entries++
		}
	}
	return l, nil
}

// lines yields the lines of data, numbered from 1, without their line
// endings ("\n" or "\r\n").
func lines(data []byte) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		s := bufio.NewScanner(bytes.NewReader(data))
		s.Buffer(nil, len(data)+1) // one line may be the whole file
		for n := 1; s.Scan(); n++ {
			if !yield(n, s.Text()) {
				return
			}
		}
	}
}

var errLockLine = errors.New(`want 64 hex digits of SHA-256, two spaces (or " *") and a file name, as sha256sum prints`)

// parseLockLine parses one line of sha256sum output into the base name of
// its file and its digest.
func parseLockLine(line string) (string, [32]byte, error) {
	var digest [32]byte
	escaped := strings.HasPrefix(line, `\`)
	if escaped {
		line = line[1:]
	}
	if len(line) < 2*sha256.Size+3 {
		return "", digest, errLockLine
	}
	if _, err := hex.Decode(digest[:], []byte(line[:2*sha256.Size])); err != nil {
		return "", digest, errLockLine
	}
	sep, name := line[2*sha256.Size:2*sha256.Size+2], line[2*sha256.Size+2:]
	if sep != "  " && sep != " *" {
		return "", digest, errLockLine
	}
	if escaped {
		var err error
		if name, err = unescape(name); err != nil {
			return "", digest, err
		}
	}
	// sha256sum prints names as given on its command line, with "/"
	// whatever the system.
	slashed := filepath.ToSlash(name)
	base := path.Base(slashed)
	if strings.HasSuffix(slashed, "/") || base == "." || base == ".." {
		return "", digest, fmt.Errorf("%q names no file", name)
	}
	return base, digest, nil
}

// unescape undoes sha256sum's escaping of a file name: \\ for a backslash,
// \n for a newline, \r for a carriage return.
func unescape(name string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if name[i] != '\\' {
			b.WriteByte(name[i])
			continue
		}
		i++
		if i == len(name) {
			return "", fmt.Errorf("file name %q ends with a lone backslash", name)
		}
		switch name[i] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			return "", fmt.Errorf(`file name %q has an unknown escape \%c`, name, name[i])
		}
	}
	return b.String(), nil
}

// escape is the inverse of unescape, reporting whether name needed it.
func escape(name string) (string, bool) {
	if !strings.ContainsAny(name, "\\\n\r") {
		return name, false
	}
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`).Replace(name), true
}

// Len is the number of lines of the lock file, without duplicates.
func (l *Lock) Len() int { return l.entries }

// Allows returns nil when the lock pins the file fileName (only its base
// name counts) to digest, the SHA-256 of its contents. Otherwise it returns
// a *RefusedError wrapping ErrNotPinned that names the file, the digest and,
// when the lock pins that name to other digests, those.
func (l *Lock) Allows(fileName string, digest [32]byte) error {
	base := filepath.Base(fileName)
	pinned := l.digests[base]
	if slices.Contains(pinned, digest) {
		return nil
	}
	reason := fmt.Errorf("%w in %s", ErrNotPinned, l.source)
	if len(pinned) > 0 {
		others := make([]string, len(pinned))
		for i, d := range pinned {
			others[i] = digestString(d)
		}
		reason = fmt.Errorf("%w, which pins %s to %s", reason, base, strings.Join(others, ", "))
	}
	return &RefusedError{Name: fileName, Digest: digest, Err: reason}
}

// LockLine returns the lock file line, with its newline, that allows the
// module wasm under the base name of fileName: the line sha256sum prints.
func LockLine(fileName string, wasm []byte) string {
	name, escaped := escape(filepath.Base(fileName))
	prefix := ""
	if escaped {
		prefix = `\`
	}
	return fmt.Sprintf("%s%x  %s\n", prefix, sha256.Sum256(wasm), name)
}

// digestString writes a digest as messages show it.
func digestString(d [32]byte) string { return "sha256:" + hex.EncodeToString(d[:]) }
