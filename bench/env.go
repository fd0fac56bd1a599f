package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// maxCodeCache bounds the compilation cache kept across runs (env.codeCache).
const maxCodeCache = 1 << 30

// env is what every experiment shares: the repository, a work directory, the
// wasmcp binary and the built guest modules.
type env struct {
	opts options
	log  *slog.Logger
	root string // repository root: the parent of the bench module
	work string // scratch directory of this run
	// removeWork is set when work is a temporary directory of this run.
	removeWork bool
	// self is this program, re-executed as the native servers.
	self string
	// wasmcp is the binary measured.
	wasmcp string
	// plugins, examples and extism are the directories `make plugins`
	// fills: the Go plugins, the example modules of the other languages,
	// and the Extism plugins of examples/extism.
	plugins, examples, extism string
	// codeCache is a compilation cache directory kept across runs, for
	// experiments that do not measure compilation: it spares them compiling
	// the same multi-megabyte Go guests at every run. wazero keys its
	// entries by content, version and settings, so nothing stale is used.
	codeCache string
	// logs are the servers' log files, closed at the end of the run.
	logs []*os.File
}

func newEnv(ctx context.Context, opts options, log *slog.Logger) (*env, error) {
	root, err := findRoot()
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locate the bench executable: %w", err)
	}
	e := &env{opts: opts, log: log, root: root, self: self}
	if opts.work != "" {
		e.work, err = filepath.Abs(opts.work)
		if err == nil {
			err = os.MkdirAll(e.work, 0o755)
		}
	} else {
		e.work, err = os.MkdirTemp("", "wasmcp-bench")
		e.removeWork = true
	}
	if err != nil {
		return nil, fmt.Errorf("work directory: %w", err)
	}
	e.plugins = dirFromEnv("WASMCP_PLUGINS", filepath.Join(root, "build", "plugins"))
	e.examples = dirFromEnv("WASMCP_EXAMPLES", filepath.Join(root, "build", "examples"))
	e.extism = extismDir(root)
	e.codeCache = filepath.Join(e.work, "code-cache")
	if dir, err := os.UserCacheDir(); err == nil {
		e.codeCache = filepath.Join(dir, "wasmcp-bench")
		// Every rebuilt guest adds entries and nothing expires them, so the
		// cache is dropped whole once it passes a bound.
		if size := dirSize(e.codeCache); size > maxCodeCache {
			log.Info("clearing the compilation cache", "dir", e.codeCache, "MiB", size>>20)
			if err := os.RemoveAll(e.codeCache); err != nil {
				return nil, fmt.Errorf("clear %s: %w", e.codeCache, err)
			}
		}
	}
	if e.wasmcp, err = e.buildWasmcp(ctx); err != nil {
		e.close()
		return nil, err
	}
	return e, nil
}

func (e *env) close() {
	for _, f := range e.logs {
		f.Close()
	}
	if e.removeWork {
		_ = os.RemoveAll(e.work)
	}
}

// size returns full, or quick under -quick.
func (e *env) size(full, quick int) int {
	if e.opts.quick {
		return quick
	}
	return full
}

// dir returns a fresh, empty directory of the work directory.
func (e *env) dir(name string) (string, error) {
	d := filepath.Join(e.work, name)
	if err := os.RemoveAll(d); err != nil {
		return "", err
	}
	return d, os.MkdirAll(d, 0o755)
}

func dirFromEnv(name, def string) string {
	if d := os.Getenv(name); d != "" {
		return d
	}
	return def
}

// findRoot returns the repository root: the parent of the directory that
// holds the bench module's go.mod, found upwards from the working directory
// (bench/ under go run and go test, bench/soak under go test).
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(strings.TrimSpace(string(mod)), "module github.com/wasmcp/wasmcp/bench") {
			return filepath.Dir(dir), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of github.com/wasmcp/wasmcp/bench above the working directory")
		}
		dir = parent
	}
}

// buildWasmcp returns $WASMCP_BIN, or builds cmd/wasmcp of the working tree
// into the work directory, so that the bench measures the code as it is
// rather than a stale bin/wasmcp.
func (e *env) buildWasmcp(ctx context.Context) (string, error) {
	if bin := os.Getenv("WASMCP_BIN"); bin != "" {
		return filepath.Abs(bin)
	}
	start := time.Now()
	out := filepath.Join(e.work, "bin", "wasmcp")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/wasmcp")
	cmd.Dir = e.root
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/wasmcp: %w\n%s", err, msg)
	}
	e.log.Info("built wasmcp", "took", time.Since(start).Round(time.Millisecond))
	return out, nil
}

// module returns the path of a module `make plugins` built: name.wasm in the
// plugins, the examples or the Extism directory.
func (e *env) module(name string) (string, error) {
	for _, dir := range []string{e.plugins, e.examples, e.extism} {
		p := filepath.Join(dir, name+".wasm")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("module %s.wasm is in none of %s, %s and %s (run `make plugins`)", name, e.plugins, e.examples, e.extism)
}

// extismDir is where `make plugins` puts the Extism plugins.
func extismDir(root string) string {
	return dirFromEnv("WASMCP_EXTISM", filepath.Join(root, "build", "extism"))
}

// pluginDir makes a fresh directory of the work directory holding copies of
// the modules named (see module). A copy keeps a concurrent make from
// changing a module during the run.
func (e *env) pluginDir(dir string, names ...string) (string, error) {
	d, err := e.dir(dir)
	if err != nil {
		return "", err
	}
	for _, name := range names {
		p, err := e.module(name)
		if err != nil {
			return "", err
		}
		if err := copyFile(p, filepath.Join(d, name+".wasm")); err != nil {
			return "", err
		}
	}
	return d, nil
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// dirSize is the total size of the files under dir; 0 if it does not exist.
func dirSize(dir string) int64 {
	var size int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				size += fi.Size()
			}
		}
		return nil
	})
	return size
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
