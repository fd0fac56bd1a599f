// Package sandboxtest gives tests their guest modules. The modules of a
// testdata directory are committed as .wasm beside the .wat they are built
// from (scripts/wat2wasm-testdata.sh, run by go generate; make test checks
// that they are current), so that go test needs nothing but Go. Tests that
// assemble WAT text they make themselves need WABT's wat2wasm, which make
// deps installs; without it they are skipped, unless CI is set.
package sandboxtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/internal/testenv"
)

// Wat2Wasm assembles WAT text with wat2wasm, with the source's names in a
// name section as compilers write them. Without wat2wasm it skips tb, or
// fails it when the CI environment variable is set: there every test runs.
func Wat2Wasm(tb testing.TB, wat []byte) []byte {
	tb.Helper()
	wasm, err := Assemble(wat)
	if err != nil {
		if _, missing := exec.LookPath("wat2wasm"); missing != nil {
			testenv.Missing(tb, "needs wat2wasm to assemble its guest (make deps installs it)")
		}
		tb.Fatal(err)
	}
	return wasm
}

// Assemble is Wat2Wasm without a test: the error says how to install
// wat2wasm when it is missing.
func Assemble(wat []byte) ([]byte, error) {
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
	cmd := exec.Command(tool, "--debug-names", src, "-o", out)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("wat2wasm: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return os.ReadFile(out)
}

// ReadDir returns the committed module of every *.wat file of dir, keyed by
// file name without ".wat".
func ReadDir(dir string) (map[string][]byte, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.wat"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no .wat files in %s", dir)
	}
	mods := make(map[string][]byte, len(paths))
	for _, path := range paths {
		name := strings.TrimSuffix(path, ".wat")
		wasm, err := os.ReadFile(name + ".wasm")
		if err != nil {
			return nil, fmt.Errorf("%w (go generate builds the modules of testdata)", err)
		}
		mods[filepath.Base(name)] = wasm
	}
	return mods, nil
}
