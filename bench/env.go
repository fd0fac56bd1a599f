package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// modulePath is the Go module the bench belongs to; the repository root is
// the directory whose go.mod declares it.
const modulePath = "github.com/wasmcp/wasmcp"

// maxCodeCache bounds the compilation cache kept across runs (env.codeCache).
const maxCodeCache = 1 << 30

// env is what every experiment shares: the repository, a work directory,
// and the binaries and guest modules built once per run.
type env struct {
	opts options
	log  *slog.Logger
	root string // repository root
	work string // scratch directory of this run
	// removeWork is set when work is a temporary directory of this run.
	removeWork bool
	// self is this program, re-executed as the servers that are not wasmcp.
	self string

	built map[string]string // build key -> path, see once
	// codeCache is a compilation cache directory kept across runs, for
	// experiments that do not measure compilation: it spares them compiling
	// the same multi-megabyte Go guests at every run. wazero keys its
	// entries by content and settings, so nothing stale is ever used.
	codeCache string
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
	e := &env{opts: opts, log: log, root: root, self: self, built: map[string]string{}}
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
	if opts.profile != "" {
		if err := os.MkdirAll(opts.profile, 0o755); err != nil {
			return nil, fmt.Errorf("profile directory: %w", err)
		}
	}
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
	return e, nil
}

func (e *env) close() {
	if e.removeWork {
		_ = os.RemoveAll(e.work)
	}
}

// n returns the repetitions an experiment runs: -n, or its default.
func (e *env) n(def int) int {
	if e.opts.n > 0 {
		return e.opts.n
	}
	return def
}

// dir returns a fresh directory of the work directory.
func (e *env) dir(name string) (string, error) {
	d := filepath.Join(e.work, name)
	if err := os.RemoveAll(d); err != nil {
		return "", err
	}
	return d, os.MkdirAll(d, 0o755)
}

// findRoot walks up from the working directory to the repository root, so
// that the bench runs from the root (go run ./bench) and from bench/ (go
// test).
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(bytes.TrimSpace(mod), []byte("module "+modulePath)) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of %s above the working directory", modulePath)
		}
		dir = parent
	}
}

// once builds the artifact key with build the first time it is asked for.
func (e *env) once(key string, build func() (string, error)) (string, error) {
	if p, ok := e.built[key]; ok {
		return p, nil
	}
	p, err := build()
	if err != nil {
		return "", err
	}
	e.built[key] = p
	return p, nil
}

// wasmcp builds the wasmcp command from the working tree, so that the
// bench measures the code as it is rather than a stale bin/wasmcp, with
// control.go added to its main package by an overlay: the product, plus a
// hook that lets the bench read its allocations and profile it. The hook
// runs only when the bench's environment variable is set.
func (e *env) wasmcp(ctx context.Context) (string, error) {
	return e.once("wasmcp", func() (string, error) {
		overlay, err := json.Marshal(map[string]map[string]string{"Replace": {
			filepath.Join(e.root, "cmd", "wasmcp", "zz_bench_control.go"): filepath.Join(e.root, "bench", "control.go"),
		}})
		if err != nil {
			return "", err
		}
		overlayFile := filepath.Join(e.work, "overlay.json")
		if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
			return "", err
		}
		out := filepath.Join(e.work, "bin", "wasmcp-hooked")
		return out, e.goBuild(ctx, nil, "-overlay", overlayFile, "-o", out, "./cmd/wasmcp")
	})
}

// wasmcpPlain builds the wasmcp command without the hook, to show that the
// hook costs nothing.
func (e *env) wasmcpPlain(ctx context.Context) (string, error) {
	return e.once("wasmcp-plain", func() (string, error) {
		out := filepath.Join(e.work, "bin", "wasmcp")
		return out, e.goBuild(ctx, nil, "-o", out, "./cmd/wasmcp")
	})
}

// goGuest builds the Go guest in the package directory pkg (relative to the
// root) as the Makefile does.
func (e *env) goGuest(ctx context.Context, pkg string) (string, error) {
	return e.once(pkg, func() (string, error) {
		out := filepath.Join(e.work, "guests", filepath.Base(pkg)+".wasm")
		return out, e.goBuild(ctx, []string{"GOOS=wasip1", "GOARCH=wasm"}, "-buildmode=c-shared", "-o", out, "./"+pkg)
	})
}

func (e *env) goBuild(ctx context.Context, envv []string, args ...string) error {
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", append([]string{"build"}, args...)...)
	cmd.Dir = e.root
	cmd.Env = append(os.Environ(), envv...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", strings.Join(args, " "), err, msg)
	}
	e.log.Debug("built", "args", args, "took", time.Since(start))
	return nil
}

// cGuest returns a copy of the C example module (echo and the other example
// tools). It is built by the Makefile (make plugins), which knows the C
// toolchain; the bench does not repeat that build. The copy keeps a
// concurrent make from changing it during the run.
func (e *env) cGuest() (string, error) {
	return e.exampleGuest("c", e.opts.cGuest, filepath.Join(e.root, "examples", "c"), filepath.Join(e.root, "sdk-guest", "c"))
}

// watGuest returns a copy of the WebAssembly-text example module, whose
// echo answers as the C one does with almost no code: what a call costs
// the host with a guest that does next to nothing.
func (e *env) watGuest() (string, error) {
	return e.exampleGuest("wat", "", filepath.Join(e.root, "examples", "wat"))
}

// exampleGuest returns a copy of the example module examples-LANG.wasm in
// the work directory: from given when set, else from $WASMCP_EXAMPLES,
// build/examples or build/plugins. srcs are the sources it is built from,
// for the warning that it is older than they are.
func (e *env) exampleGuest(lang, given string, srcs ...string) (string, error) {
	name := "examples-" + lang + ".wasm"
	return e.once(lang+"-guest", func() (string, error) {
		candidates := []string{given}
		if d := os.Getenv("WASMCP_EXAMPLES"); d != "" {
			candidates = append(candidates, filepath.Join(d, name))
		}
		candidates = append(candidates,
			filepath.Join(e.root, "build", "examples", name),
			filepath.Join(e.root, "build", "plugins", name))
		for _, c := range candidates {
			if c == "" {
				continue
			}
			wasm, err := os.ReadFile(c)
			if err != nil {
				continue
			}
			e.warnIfStale(c, srcs...)
			out := filepath.Join(e.work, "guests", name)
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return "", err
			}
			return out, os.WriteFile(out, wasm, 0o644)
		}
		return "", fmt.Errorf("the example module %s was not found (run `make plugins`)", name)
	})
}

// warnIfStale logs when a source file under dirs is newer than the module at
// path.
func (e *env) warnIfStale(path string, dirs ...string) {
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	for _, dir := range dirs {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if si, err := d.Info(); err == nil && si.ModTime().After(fi.ModTime()) {
				e.log.Warn("module older than its sources (run make plugins)", "module", path, "source", p)
				return filepath.SkipAll
			}
			return nil
		})
	}
}

// pluginDir makes a fresh directory of the work directory holding copies of
// the modules at paths.
func (e *env) pluginDir(name string, paths ...string) (string, error) {
	dir, err := e.dir(name)
	if err != nil {
		return "", err
	}
	for _, p := range paths {
		wasm, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), wasm, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
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
