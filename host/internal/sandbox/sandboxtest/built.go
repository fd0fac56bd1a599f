package sandboxtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/internal/testenv"
)

// Built returns the guest modules `make plugins` builds, keyed by file name
// without ".wasm": the Go modules of the directory named by WASMCP_PLUGINS
// and the other languages' of WASMCP_EXAMPLES (as for the end-to-end
// tests), or when those are unset, of build/plugins and build/examples in
// the module's root. ok is false when neither variable is set and nothing
// was built; callers fail then, saying to run `make plugins` (`make test`
// builds first and sets both). A directory that a variable names must hold
// modules.
func Built() (mods map[string][]byte, ok bool, err error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, false, err
	}
	mods = map[string][]byte{}
	for _, d := range []struct{ env, dir string }{
		{"WASMCP_PLUGINS", "build/plugins"},
		{"WASMCP_EXAMPLES", "build/examples"},
	} {
		dir := os.Getenv(d.env)
		named := dir != ""
		if !named {
			dir = filepath.Join(root, d.dir)
		}
		paths, err := filepath.Glob(filepath.Join(dir, "*.wasm"))
		if err != nil {
			return nil, false, err
		}
		if named && len(paths) == 0 {
			return nil, false, fmt.Errorf("%s=%s holds no .wasm files (run `make plugins`)", d.env, dir)
		}
		for _, path := range paths {
			wasm, err := os.ReadFile(path)
			if err != nil {
				return nil, false, err
			}
			mods[strings.TrimSuffix(filepath.Base(path), ".wasm")] = wasm
		}
		ok = ok || named
	}
	return mods, ok || len(mods) > 0, nil
}

// MustBuilt returns Built's modules. When nothing is built and no variable
// names them (a plain go test on a fresh clone) it skips tb; make test sets
// the variables, and there a module missing fails tb, as does any error.
func MustBuilt(tb testing.TB, names ...string) map[string][]byte {
	tb.Helper()
	mods, ok, err := Built()
	if err != nil {
		tb.Fatalf("guest modules: %v (run `make plugins`)", err)
	}
	if !ok {
		testenv.Missing(tb, "needs the guest modules `make plugins` builds (make test runs it)")
	}
	for _, name := range names {
		if mods[name] == nil {
			tb.Fatalf("module %s is not built (run `make plugins`)", name)
		}
	}
	return mods
}

// moduleRoot is the nearest directory above the working directory that
// holds the go.mod of this module.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(mod, []byte("module github.com/wasmcp/wasmcp\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("the go.mod of github.com/wasmcp/wasmcp is not above the working directory")
		}
		dir = parent
	}
}

// Representative returns the names of mods, sorted, less all Go modules
// but the smallest. Go's linker writes every module's tables alike, and
// compiling a Go module takes seconds (tens under the race detector), so
// tests that compile each module compile these.
func Representative(mods map[string][]byte) []string {
	var names []string
	smallestGo := ""
	for name, wasm := range mods {
		if !isGo(wasm) {
			names = append(names, name)
		} else if smallestGo == "" || len(wasm) < len(mods[smallestGo]) ||
			len(wasm) == len(mods[smallestGo]) && name < smallestGo {
			smallestGo = name
		}
	}
	if smallestGo != "" {
		names = append(names, smallestGo)
	}
	slices.Sort(names)
	return names
}

// isGo reports whether wasm was linked by Go, which writes a "go:buildid"
// custom section first.
func isGo(wasm []byte) bool {
	return bytes.Contains(wasm[:min(len(wasm), 64)], []byte("\x0ago:buildid"))
}
