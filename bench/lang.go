package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wasmcp/wasmcp/bench/lang/kernel"
	"github.com/wasmcp/wasmcp/host"
)

// A language is one guest language of the lang experiment: how to build
// its module of the kernels (lang/) and, where it has one, its native
// program of the same code.
type language struct {
	name string
	// tool is the module's tool, work_<name>.
	tool string
	// build builds the module into out, from bench/.
	build func(e *env, out string) error
	// native builds the native program into out, or is nil: the kernels
	// then run natively in this process (Go) or, for a language with no
	// native target, as nativeOf's.
	native   func(e *env, out string) error
	nativeOf string
	// floor is issue 21's goal for the language, or none.
	floor floor
}

// languages are the guest languages the repository has SDKs for. The
// toolchains are those of mk/guests.mk, the same variables overriding them.
var languages = []language{
	{name: "C", tool: "work_c", build: buildC, native: nativeC, floor: atMost(2.5)},
	{name: "Rust", tool: "work_rust", build: buildRust, native: nativeRust, floor: atMost(2.5)},
	{name: "Go", tool: "work_go", build: buildGo},
	{name: "AssemblyScript", tool: "work_as", build: buildAS, nativeOf: "C"},
}

// kernels are the work each module does, by the name its tool takes.
var kernels = []struct {
	name, what string
	native     func(int) uint64
}{
	{"scan", "write and tokenize a JSON array", kernel.Scan},
	{"diff", "Myers edit distance of two sequences", kernel.Diff},
}

// runLang measures the same CPU-bound work in every guest language against
// the same code compiled natively: the kernels of lang/ (a JSON-ish text
// scan and a line-diff search, with no library but each SDK), called
// through the public host API as wasmcp serve runs them (deadline metered,
// arguments validated, instance pooled; the transport is left out), and in
// plain wazero with no deadline (the deadline experiment's runner), ÷ the
// native program of the same source (gcc, rustc -O; Go in this process).
// AssemblyScript has no native target and is compared with native C.
func runLang(ctx context.Context, e *env) ([]row, error) {
	n, samples := e.size(200_000, 2_000), e.size(10, 2)
	dir, err := e.dir("lang")
	if err != nil {
		return nil, err
	}
	natives := map[string]string{}
	var built []language
	for _, l := range languages {
		start := time.Now()
		err := l.build(e, filepath.Join(dir, strings.TrimPrefix(l.tool, "work_")+".wasm"))
		if err == nil && l.native != nil {
			natives[l.name] = filepath.Join(e.work, "lang-native-"+strings.TrimPrefix(l.tool, "work_"))
			err = l.native(e, natives[l.name])
		}
		if errors.Is(err, exec.ErrNotFound) {
			e.log.Warn("lang: a toolchain is missing (make deps installs them); language left out", "language", l.name, "error", err)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.name, err)
		}
		e.log.Info("lang: built", "language", l.name, "took", time.Since(start).Round(time.Millisecond))
		built = append(built, l)
	}
	h, cache, closeAll, err := e.hostAndPlainCache(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	var rows []row
	for _, l := range built {
		wasm, err := os.ReadFile(filepath.Join(dir, strings.TrimPrefix(l.tool, "work_")+".wasm"))
		if err != nil {
			return rows, err
		}
		plain, err := newGuestRunner(ctx, wasm, cache)
		if err != nil {
			return rows, fmt.Errorf("%s in plain wazero: %w", l.name, err)
		}
		defer plain.close(ctx)
		for _, k := range kernels {
			native := func() (time.Duration, uint64, error) {
				start := time.Now()
				sum := k.native(n)
				return time.Since(start), sum, nil
			}
			base := l.name
			if l.nativeOf != "" {
				base = l.nativeOf
			}
			if prog := natives[base]; prog != "" {
				native = func() (time.Duration, uint64, error) { return runNativeKernel(ctx, prog, k.name, n) }
			}
			what := fmt.Sprintf("%s (%s, n = %d)", k.name, k.what, n)
			r := row{name: fmt.Sprintf("%s guest ÷ native %s, same code: %s, host API", l.name, base, what), floor: l.floor}
			rp := row{name: fmt.Sprintf("%s guest ÷ native %s, same code: %s, plain wazero (no deadline)", l.name, base, what)}
			for rep := range e.opts.reps {
				d, err := langRep(ctx, h, plain, l.tool, k.name, n, samples, native)
				if err != nil {
					return rows, fmt.Errorf("%s %s: %w", l.name, k.name, err)
				}
				e.log.Info("lang", "language", l.name, "kernel", k.name, "rep", rep, "host", d[0], "plain", d[1], "native", d[2])
				r.add(float64(d[0]), float64(d[2]), ms(d[0]), ms(d[2]))
				rp.add(float64(d[1]), float64(d[2]), ms(d[1]), ms(d[2]))
			}
			rows = append(rows, r, rp)
		}
	}
	return rows, nil
}

// langRep times samples calls of tool with kernel and n through the host
// API and in plain wazero, and samples runs of native, in turn, after one of
// each that checks they agree, and returns the three medians.
func langRep(ctx context.Context, h *host.Host, plain *guestRunner, tool, kernel string, n, samples int,
	native func() (time.Duration, uint64, error)) ([3]time.Duration, error) {
	args := mustJSON(map[string]any{"kernel": kernel, "n": n})
	var took [3][]time.Duration
	for i := range samples + 1 {
		start := time.Now()
		res, err := h.Call(ctx, host.CallRequest{Tool: tool, Arguments: args})
		hostTook := time.Since(start)
		if err != nil {
			return [3]time.Duration{}, err
		}
		if res.IsError || len(res.Content) != 1 {
			return [3]time.Duration{}, fmt.Errorf("tool failed: %+v", res.Content)
		}
		start = time.Now()
		if err := plain.run(ctx, tool, args); err != nil {
			return [3]time.Duration{}, fmt.Errorf("plain wazero: %w", err)
		}
		plainTook := time.Since(start)
		d, sum, err := native()
		if err != nil {
			return [3]time.Duration{}, err
		}
		if i == 0 {
			if got := res.Content[0].Text; got != strconv.FormatUint(sum, 10) {
				return [3]time.Duration{}, fmt.Errorf("the guest says %s, the native code %d", got, sum)
			}
			continue
		}
		for j, d := range [3]time.Duration{hostTook, plainTook, d} {
			took[j] = append(took[j], d)
		}
	}
	return [3]time.Duration{median(took[0]), median(took[1]), median(took[2])}, nil
}

// runNativeKernel runs a native program of lang/ on kernel and n, three
// times in one process, and returns its median time as it measured it
// (without the process's start) and its checksum.
func runNativeKernel(ctx context.Context, prog, kernel string, n int) (time.Duration, uint64, error) {
	out, err := exec.CommandContext(ctx, prog, kernel, strconv.Itoa(n), "3").Output()
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", filepath.Base(prog), err)
	}
	var ns int64
	var sum uint64
	if _, err := fmt.Sscan(string(out), &ns, &sum); err != nil {
		return 0, 0, fmt.Errorf("%s said %q: %w", filepath.Base(prog), out, err)
	}
	return time.Duration(ns), sum, nil
}

// toolchain returns the value of the environment variable name, as
// mk/guests.mk reads it, or def.
func toolchain(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// run runs a build command in the directory dir of the bench module, with
// the extra environment envv.
func (e *env) run(dir string, envv []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = filepath.Join(e.root, "bench", dir)
	cmd.Env = append(os.Environ(), envv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return nil
}

func buildC(e *env, out string) error {
	sdk := filepath.Join(e.root, "sdk-guest", "c")
	return e.run("lang/c", nil, toolchain("CLANG", "clang"), "--target=wasm32-wasi", "-mexec-model=reactor",
		"--sysroot="+toolchain("WASI_SYSROOT", "/usr"), "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-Wl,--strip-all",
		"-I", sdk, "-o", out, "guest.c", "kernel.c",
		filepath.Join(sdk, "wasmcp.c"), filepath.Join(sdk, "read.c"), filepath.Join(sdk, "write.c"))
}

func nativeC(e *env, out string) error {
	return e.run("lang/c", nil, toolchain("CC", "gcc"), "-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-o", out,
		"native.c", "kernel.c")
}

// rustTarget is cargo's target directory for the Rust guest: the one make
// uses for the Rust examples, kept across runs.
func (e *env) rustTarget() string { return filepath.Join(e.root, "build", "cargo") }

func buildRust(e *env, out string) error {
	rustc := toolchain("GUEST_RUSTC", "/usr/bin/rustc")
	err := e.run("lang/rust", []string{"RUSTC=" + rustc, "RUSTDOC=" + filepath.Join(filepath.Dir(rustc), "rustdoc"),
		"CARGO_TARGET_DIR=" + e.rustTarget()},
		toolchain("GUEST_CARGO", "/usr/bin/cargo"), "build", "--release", "--offline", "--locked", "--quiet", "--target", "wasm32-wasi")
	if err != nil {
		return err
	}
	return copyFile(filepath.Join(e.rustTarget(), "wasm32-wasi", "release", "wasmcp_bench_work.wasm"), out)
}

func nativeRust(e *env, out string) error {
	return e.run("lang/rust", nil, toolchain("GUEST_RUSTC", "/usr/bin/rustc"), "-O", "--edition", "2021", "-o", out, "native.rs")
}

func buildGo(e *env, out string) error {
	return e.run(".", []string{"GOOS=wasip1", "GOARCH=wasm"}, "go", "build", "-buildmode=c-shared", "-o", out, "./lang/go")
}

func buildAS(e *env, out string) error {
	sdk := filepath.Join(e.root, "sdk-guest", "assemblyscript")
	asc := filepath.Join(sdk, "node_modules", ".bin", "asc")
	if _, err := os.Stat(asc); err != nil {
		return fmt.Errorf("%w: %s", exec.ErrNotFound, asc)
	}
	// asc reads the paths of the SDK's asconfig.json from the repository root.
	return e.run("..", nil, asc, "bench/lang/as/work.ts", "--config", "sdk-guest/assemblyscript/asconfig.json", "-o", out)
}
