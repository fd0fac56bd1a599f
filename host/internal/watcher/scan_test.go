package watcher

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDefaultMatch(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"echo.wasm":              true,
		"my-tool.v2.wasm":        true,
		"UPPER.wasm":             true,
		".wasm":                  false,
		"echo.WASM":              false, // names are case-sensitive, as on Linux
		"echo.wat":               false,
		".echo.wasm":             false, // dotfile
		".echo.wasm.swp":         false, // Vim swap
		"echo.wasm.swp":          false,
		"echo.wasm~":             false, // backup
		"~echo.wasm":             false,
		"#echo.wasm#":            false, // Emacs autosave
		".#echo.wasm":            false, // Emacs lock
		"4913":                   false, // Vim's write probe
		"echo.wasm.tmp":          false,
		"echo.wasm.part":         false, // partial download
		"echo.wasm.crdownload":   false,
		"echo.wasm-go-tmp-umask": false, // go build's probe
		".echo.wasm.Xa9z3Q":      false, // rsync temp
	} {
		t.Run(name, func(t *testing.T) {
			if got := DefaultMatch(name); got != want {
				t.Errorf("DefaultMatch(%q) = %v, want %v", name, got, want)
			}
		})
	}
}

func TestScan(t *testing.T) {
	t.Parallel()
	dir := newDir(t, "b.wasm", "a.wasm", ".hidden.wasm", "a.wasm.tmp", "readme.md")
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "target"), "t")
	mustSymlink(t, filepath.Join(outside, "target"), filepath.Join(dir, "link.wasm"))
	mustSymlink(t, filepath.Join(outside, "missing"), filepath.Join(dir, "dangling.wasm"))
	mustSymlink(t, outside, filepath.Join(dir, "todir.wasm"))
	if err := os.Mkdir(filepath.Join(dir, "sub.wasm"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sub.wasm", "nested.wasm"), "n")

	got, err := Scan(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range []string{"a.wasm", "b.wasm", "link.wasm"} {
		want = append(want, filepath.Join(dir, n))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Scan = %v, want %v", got, want)
	}

	// A custom match replaces the default entirely.
	got, err = Scan(dir, func(name string) bool { return strings.HasSuffix(name, ".md") })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "readme.md")}; !slices.Equal(got, want) {
		t.Fatalf("Scan(.md) = %v, want %v", got, want)
	}
}

// Scan returns absolute paths even for a relative directory, the same paths
// a Watcher reports.
func TestScanRelative(t *testing.T) {
	dir := newDir(t, "a.wasm")
	t.Chdir(filepath.Dir(dir))
	got, err := Scan(filepath.Base(dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "a.wasm")}; !slices.Equal(got, want) {
		t.Fatalf("Scan = %v, want %v", got, want)
	}
}

func TestScanMissingDir(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := Scan(missing, nil); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("got %v, want an error naming %s", err, missing)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
