// Package sandboxtest builds guest modules for tests from WebAssembly text
// (WAT) with wat2wasm from the WebAssembly Binary Toolkit. Only .wat sources
// are committed; the .wasm files are built when the tests run.
package sandboxtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Wat2Wasm compiles WAT source to a binary module. A missing wat2wasm is an
// error saying how to install it: tests that need guests must fail, not skip,
// when they cannot build them.
func Wat2Wasm(wat []byte) ([]byte, error) {
	tool, err := exec.LookPath("wat2wasm")
	if err != nil {
		return nil, fmt.Errorf("wat2wasm is needed to build test guests (apt-get install wabt): %w", err)
	}
	dir, err := os.MkdirTemp("", "sandboxtest")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src, out := filepath.Join(dir, "guest.wat"), filepath.Join(dir, "guest.wasm")
	if err := os.WriteFile(src, wat, 0o600); err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	// With the names of the source in a name section, as compilers write
	// them, so that guests exercise what the host does with those names.
	cmd := exec.Command(tool, "--debug-names", src, "-o", out)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("wat2wasm: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return os.ReadFile(out)
}

// BuildDir compiles every *.wat file in dir and returns the modules keyed by
// file name without ".wat".
func BuildDir(dir string) (map[string][]byte, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.wat"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no .wat files in %s", dir)
	}
	mods := make(map[string][]byte, len(paths))
	for _, path := range paths {
		wat, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		wasm, err := Wat2Wasm(wat)
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", path, err)
		}
		mods[strings.TrimSuffix(filepath.Base(path), ".wat")] = wasm
	}
	return mods, nil
}
