package trust_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host/trust"
)

func digest(s string) [32]byte { return sha256.Sum256([]byte(s)) }

// testdata/sha256sum.lock was written by GNU sha256sum 9.1 (its first line
// says how): text and binary mode, a name with a space, an escaped name
// and a name with a directory.
func TestLoadLockSha256sum(t *testing.T) {
	l, err := trust.LoadLock("testdata/sha256sum.lock")
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != 4 {
		t.Errorf("Len = %d, want 4 (a.wasm twice with one digest)", l.Len())
	}
	for name, content := range map[string]string{
		"a.wasm":            "alpha",
		"b c.wasm":          "beta",
		`back\slash.wasm`:   "gamma",
		"d.wasm":            "delta", // sub/d.wasm: only the base name counts
		"plugins/d.wasm":    "delta", // and the caller's directory does not matter
		"/srv/tools/a.wasm": "alpha",
	} {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			if err := l.Allows(name, digest(content)); err != nil {
				t.Errorf("Allows(%s): %v", name, err)
			}
		})
	}
}

func TestLockRefuses(t *testing.T) {
	l, err := trust.ParseLock([]byte(trust.LockLine("a.wasm", []byte("v1")) + trust.LockLine("a.wasm", []byte("v2"))))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"v1", "v2"} {
		t.Run(v, func(t *testing.T) {
			if err := l.Allows("a.wasm", digest(v)); err != nil {
				t.Errorf("Allows(a.wasm, %s): %v", v, err)
			}
		})
	}
	d3 := digest("v3")
	err = l.Allows("dir/a.wasm", d3)
	var refused *trust.RefusedError
	if !errors.As(err, &refused) || !errors.Is(err, trust.ErrNotPinned) {
		t.Fatalf("Allows(v3) = %v, want a RefusedError wrapping ErrNotPinned", err)
	}
	if refused.Name != "dir/a.wasm" || refused.Digest != d3 {
		t.Errorf("RefusedError names %s, %x", refused.Name, refused.Digest)
	}
	v1, v2 := digest("v1"), digest("v2")
	want := "module dir/a.wasm (sha256:" + hex.EncodeToString(d3[:]) + ") refused: not pinned in the lock file, which pins a.wasm to sha256:" +
		hex.EncodeToString(v1[:]) + ", sha256:" + hex.EncodeToString(v2[:])
	if err.Error() != want {
		t.Errorf("err = %q\nwant  %q", err, want)
	}
	err = l.Allows("b.wasm", v1)
	if want := "refused: not pinned in the lock file"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("Allows(b.wasm) = %v, want it to end with %q", err, want)
	}
}

func TestLoadLockNamesItsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wasmcp.lock")
	if err := os.WriteFile(path, []byte(trust.LockLine("a.wasm", []byte("x"))), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := trust.LoadLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Allows("b.wasm", digest("x")); err == nil || !strings.HasSuffix(err.Error(), "not pinned in "+path) {
		t.Errorf("Allows = %v, want it to name %s", err, path)
	}
	if _, err := trust.LoadLock(filepath.Join(t.TempDir(), "missing.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadLock(missing) = %v", err)
	}
}

func TestParseLockFormat(t *testing.T) {
	const hex64 = "8ed3f6ad685b959ead7022518e1af76cd816f8e8ec7ccdda1ed4018e8f2223f8"
	l, err := trust.ParseLock([]byte("# comment\n\n" + strings.ToUpper(hex64) + "  upper.wasm\r\n" +
		`\` + hex64 + `  new\nline.wasm` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Allows("upper.wasm", digest("alpha")); err != nil {
		t.Errorf("upper-case hex, CRLF: %v", err)
	}
	if err := l.Allows("new\nline.wasm", digest("alpha")); err != nil {
		t.Errorf("escaped newline: %v", err)
	}
	empty, err := trust.ParseLock(nil)
	if err != nil || empty.Len() != 0 || empty.Allows("a.wasm", digest("")) == nil {
		t.Errorf("empty lock: %v, %v; it must allow nothing", empty, err)
	}

	bad := []struct{ text, want string }{
		{hex64[:63] + "  a.wasm", "line 1: want 64 hex digits"},
		{"# ok\n" + hex64[:63] + "x  a.wasm", "line 2: want 64 hex digits"},
		{hex64 + " a.wasm", "line 1: want 64 hex digits"},
		{hex64 + "\ta.wasm", "line 1: want 64 hex digits"},
		{hex64 + "  ", "line 1: want 64 hex digits"},
		{"sha256:" + hex64 + "  a.wasm", "line 1: want 64 hex digits"},
		{hex64 + "  dir/", "line 1: \"dir/\" names no file"},
		{`\` + hex64 + `  a\t.wasm`, `line 1: file name "a\\t.wasm" has an unknown escape \t`},
		{`\` + hex64 + `  a.wasm\`, "line 1: file name \"a.wasm\\\\\" ends with a lone backslash"},
	}
	for i, tt := range bad {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			_, err := trust.ParseLock([]byte(tt.text))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("ParseLock(%q) = %v, want %q", tt.text, err, tt.want)
			}
		})
	}
}

// LockLine writes what sha256sum writes, escapes included, and ParseLock
// reads it back.
func TestLockLine(t *testing.T) {
	sum := digest("gamma")
	if got, want := trust.LockLine("plugins/a.wasm", []byte("gamma")), hex.EncodeToString(sum[:])+"  a.wasm\n"; got != want {
		t.Errorf("LockLine = %q, want %q", got, want)
	}
	// The line testdata/sha256sum.lock has for this file.
	if got, want := trust.LockLine(`back\slash.wasm`, []byte("gamma")),
		`\be9d587defa1f0c09ef49eb17e206983a5f8f8289e4281860bd0ee5a19592c67  back\\slash.wasm`+"\n"; got != want {
		t.Errorf("LockLine = %q, want %q", got, want)
	}
	for i, name := range []string{"a.wasm", `b\c.wasm`, "d\ne.wasm", "f\rg.wasm", "h i.wasm", "é.wasm"} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			l, err := trust.ParseLock([]byte(trust.LockLine(name, []byte(name))))
			if err != nil {
				t.Errorf("%q: %v", name, err)
				return
			}
			if err := l.Allows(name, digest(name)); err != nil {
				t.Errorf("%q: %v", name, err)
			}
		})
	}
}
