// Package e2e drives the real wasmcp binary over stdio and Streamable HTTP
// with the MCP Go SDK's client, as an MCP host application would.
//
// The binary and the bundled modules are make test's: WASMCP_BIN,
// WASMCP_PLUGINS and WASMCP_EXAMPLES name them. Without them the tests are
// skipped, so that "go test ./..." on a fresh clone needs nothing but Go.
// The WAT guests in testdata are assembled with wat2wasm (Debian package
// wabt), which make deps installs. The OAuth tests run oidc-provider from
// the npm packages of e2e/ts (make deps), with node.
package e2e

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var (
	// binPath is the wasmcp binary under test.
	binPath string
	// pluginsDir holds the bundled guests, <name>.wasm. Tests serve copies.
	pluginsDir string
	// examplesDir holds the example modules in languages other than Go,
	// examples-<lang>.wasm. They define the same tools as examples/go, so
	// the Makefile keeps them out of the served plugin directory.
	examplesDir string
	// watDir holds the testdata guests assembled from testdata/*.wat.
	watDir string
	// cacheDir is the compilation cache every server of the run shares, so
	// that only the first one compiles the Go guests.
	cacheDir string
)

func TestMain(m *testing.M) {
	if os.Getenv("WASMCP_BIN") == "" || os.Getenv("WASMCP_PLUGINS") == "" {
		fmt.Println("e2e: skipped: they run under make test, on the binary and modules it builds (WASMCP_BIN, WASMCP_PLUGINS)")
		os.Exit(0)
	}
	tmp, err := os.MkdirTemp("", "wasmcp-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := 1
	if err := setup(tmp); err != nil {
		fmt.Fprintf(os.Stderr, "e2e setup: %v\n", err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(tmp)
	os.Exit(code)
}

func setup(tmp string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	cacheDir = filepath.Join(tmp, "cache")
	watDir = filepath.Join(tmp, "wat")
	binPath, pluginsDir = os.Getenv("WASMCP_BIN"), os.Getenv("WASMCP_PLUGINS")
	for _, p := range []string{binPath, pluginsDir} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%w (run make build plugins)", err)
		}
	}
	examplesDir = cmp.Or(os.Getenv("WASMCP_EXAMPLES"), pluginsDir)
	return assembleWAT(filepath.Join(root, "e2e", "testdata"), watDir)
}

// moduleRoot is the directory of the go.mod above the test's directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the test directory")
		}
		dir = parent
	}
}

// assembleWAT turns every src/*.wat into dst/*.wasm.
// wat2wasm assembles one WAT text.
func wat2wasm(wat []byte) ([]byte, error) {
	dir, err := os.MkdirTemp("", "wasmcp-e2e-wat-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src, out := filepath.Join(dir, "m.wat"), filepath.Join(dir, "m.wasm")
	if err := os.WriteFile(src, wat, 0o600); err != nil {
		return nil, err
	}
	if msg, err := exec.Command("wat2wasm", src, "-o", out).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("wat2wasm: %v\n%s", err, msg)
	}
	return os.ReadFile(out)
}

func assembleWAT(src, dst string) error {
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		return fmt.Errorf("wat2wasm not found: install WABT (Debian: apt-get install wabt), or run make deps")
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	wats, err := filepath.Glob(filepath.Join(src, "*.wat"))
	if err != nil || len(wats) == 0 {
		return fmt.Errorf("no .wat files in %s", src)
	}
	for _, wat := range wats {
		out := filepath.Join(dst, strings.TrimSuffix(filepath.Base(wat), ".wat")+".wasm")
		if msg, err := exec.Command("wat2wasm", wat, "-o", out).CombinedOutput(); err != nil {
			return fmt.Errorf("wat2wasm %s: %v\n%s", wat, err, msg)
		}
	}
	return nil
}

// copyFile copies src to dst through a temporary name in dst's directory and
// a rename, so that a watching server never sees a half-written module.
func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".partial-*")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		t.Fatal(err)
	}
	if err := tmp.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		t.Fatal(err)
	}
}
