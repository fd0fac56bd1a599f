package sandbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tetratelabs/wazero"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
)

// testGuests are the modules of testdata/*.wat, built once per test binary.
var testGuests = sandboxtest.NewGuests("testdata")

func guest(t testing.TB, name string) []byte {
	t.Helper()
	return testGuests.Get(t, name)
}

var testContext = sandboxtest.Context

// smallLimits keep failing tests small: a 2 MiB memory and a 1 KiB output.
// Their deadline is the default, so that no call that must succeed depends
// on how busy the machine is; only tests of deadlines shorten it.
var smallLimits = sandbox.Limits{MemoryPages: 32, MaxOutput: 1024}

// newRuntime is a Runtime of the test's own, closed with it, whose long
// calls keep to turns as serve's do.
func newRuntime(t testing.TB) *sandbox.Runtime {
	t.Helper()
	return runtimeOf(t, sandbox.RuntimeConfig{LongCalls: sandbox.LongCalls{Reserve: 1, Nice: 10}})
}

// runtimeOf is a Runtime of cfg, closed with the test.
func runtimeOf(t testing.TB, cfg sandbox.RuntimeConfig) *sandbox.Runtime {
	t.Helper()
	r, err := sandbox.NewRuntime(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })
	return r
}

func compile(t testing.TB, name string, opts sandbox.Options) *sandbox.Module {
	t.Helper()
	ctx := testContext(t)
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	m, err := newRuntime(t).Compile(ctx, name, guest(t, name), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	return m
}

// call runs tool in m with args and no log function.
func call(t testing.TB, m *sandbox.Module, tool, args string) (string, error) {
	t.Helper()
	out, err := sandbox.CallOutput(testContext(t), m, tool, []byte(args), nil)
	return string(out), err
}

func TestCallEcho(t *testing.T) {
	m := compile(t, "guest", sandbox.Options{})
	for _, tc := range []struct{ name, args string }{
		{"empty", `{}`},
		{"message", `{"message":"hi"}`},
		{"big", `{"big":"` + strings.Repeat("x", 200000) + `"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := call(t, m, "echo", tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.args {
				t.Errorf("echo returned %.40q, want %.40q", got, tc.args)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	m := compile(t, "guest", sandbox.Options{})
	doc, err := m.List(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if string(doc) != `{"tools":[]}` {
		t.Errorf("Describe = %q", doc)
	}
}

func TestInfo(t *testing.T) {
	info := compile(t, "guest", sandbox.Options{}).Info()
	if info.ABIVersion != abi.Version {
		t.Errorf("ABIVersion = %d", info.ABIVersion)
	}
	wantImports := []string{
		"wasi_snapshot_preview1.proc_exit: (i32) -> ()",
		"wasmcp.log: (i32, i32, i32) -> ()",
	}
	if !slices.Equal(info.Imports, wantImports) {
		t.Errorf("Imports = %q, want %q", info.Imports, wantImports)
	}
	for _, want := range []string{
		"memory: memory (min 2 pages)",
		"wasmcp_alloc: (i32) -> i32",
		"wasmcp_call: (i32, i32, i32, i32) -> i64",
		"wasmcp_describe: () -> i64",
		"_initialize: () -> ()",
	} {
		if !slices.Contains(info.Exports, want) {
			t.Errorf("Exports = %q, lacks %q", info.Exports, want)
		}
	}
}

// The guest exports a _start that traps and an _initialize that sets a
// flag: loading proves _start never runs, the call that _initialize did.
func TestReactor(t *testing.T) {
	m := compile(t, "guest", sandbox.Options{})
	got, err := call(t, m, "initialized", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if got != `"initialized"` {
		t.Errorf("got %s: _initialize did not run", got)
	}
}

func TestPoolReusesAndDiscards(t *testing.T) {
	m := compile(t, "guest", sandbox.Options{MaxIdle: 1})
	for _, want := range []string{"1", "2", "3"} {
		if got, err := call(t, m, "number", `{}`); err != nil || got != want {
			t.Fatalf("number = %q, %v; want %q (one reused instance)", got, err, want)
		}
	}
	if _, err := call(t, m, "trap", `{}`); !errors.Is(err, sandbox.ErrTrap) {
		t.Fatalf("trap: %v", err)
	}
	if got, err := call(t, m, "number", `{}`); err != nil || got != "1" {
		t.Fatalf("after a trap, number = %q, %v; want a fresh instance", got, err)
	}
}

func TestTimeout(t *testing.T) {
	// Long enough for the call after the timeout to succeed on a busy machine.
	m := compile(t, "guest", sandbox.Options{Limits: sandbox.Limits{Timeout: time.Second}, MaxIdle: 1})
	_, err := call(t, m, "spin", `{}`)
	if !errors.Is(err, sandbox.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if want := "timed out after 1s"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
	// The module still serves calls, in a fresh instance.
	if got, err := call(t, m, "echo", `{"after":"timeout"}`); err != nil || got != `{"after":"timeout"}` {
		t.Fatalf("echo after timeout = %q, %v", got, err)
	}
}

func TestCanceled(t *testing.T) {
	m := compile(t, "guest", sandbox.Options{})
	ctx, cancel := context.WithCancel(testContext(t))
	// The guest logs, then loops: cancel from inside the call.
	_, err := sandbox.CallOutput(ctx, m, "spin", nil, &sandbox.CallHooks{Log: func(abi.LogLevel, string) { cancel() }})
	if !errors.Is(err, sandbox.ErrCanceled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want ErrCanceled", err)
	}

	_, err = sandbox.CallOutput(ctx, m, "echo", []byte(`{}`), nil)
	if !errors.Is(err, sandbox.ErrCanceled) {
		t.Fatalf("call with a cancelled context: err = %v, want ErrCanceled", err)
	}
}

func TestMemoryExhausted(t *testing.T) {
	tests := []struct {
		module, tool, args, msg string
	}{
		{"guest", "memory", `{}`, "exceeded memory limit of 2 MiB"},
		// One grow far past the limit: memory stays small, but the refusal
		// was seen.
		{"guest", "jump", `{}`, "exceeded memory limit of 2 MiB"},
		{"guest", "echo", `"` + strings.Repeat("x", 3<<20) + `"`, "wasmcp_alloc(3145734) returned 0: the guest could not allocate its arguments (memory limit 2 MiB)"},
		// The module's own maximum (2 pages) is below the limit.
		{"declared", "call", `{}`, "exceeded its own declared memory maximum of 128 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.module+"/"+tt.tool, func(t *testing.T) {
			m := compile(t, tt.module, sandbox.Options{Limits: smallLimits})
			_, err := call(t, m, tt.tool, tt.args)
			if !errors.Is(err, sandbox.ErrMemory) {
				t.Fatalf("err = %v, want ErrMemory", err)
			}
			if err.Error() != tt.msg {
				t.Errorf("err = %q, want %q", err, tt.msg)
			}
		})
	}
}

// A refused grow the guest copes with must not make a later, unrelated trap
// of the same instance look like memory exhaustion.
func TestRefusedGrowForgotten(t *testing.T) {
	m := compile(t, "guest", sandbox.Options{Limits: smallLimits, MaxIdle: 1})
	if got, err := call(t, m, "graceful", `{}`); err != nil || got != `{}` {
		t.Fatalf("graceful = %q, %v", got, err)
	}
	if _, err := call(t, m, "trap", `{}`); !errors.Is(err, sandbox.ErrTrap) || errors.Is(err, sandbox.ErrMemory) {
		t.Fatalf("err = %v, want ErrTrap", err)
	}
}

func TestGuestErrors(t *testing.T) {
	tests := []struct {
		tool string
		kind error
		msg  string
	}{
		{"trap", sandbox.ErrTrap, "trapped: unreachable"},
		{"crash", sandbox.ErrTrap, "trapped: integer divide by zero"},
		{"dangling", sandbox.ErrTrap, "trapped: wasmcp.log: message [4294967040, 4294968040) outside memory of 131072 bytes"},
		{"oob", sandbox.ErrTrap, "wasmcp_call returned the region [4294901760, 4294901860), outside memory of 131072 bytes"},
		{"x-exit", sandbox.ErrExit, "exited with code 3 (proc_exit)"},
		{"huge", sandbox.ErrOutputTooLarge, "wasmcp_call returned 65536 bytes, over the limit of 1 KiB"},
		{"zero", sandbox.ErrNoResult, "wasmcp_call returned 0 instead of a document"},
	}
	m := compile(t, "guest", sandbox.Options{Limits: smallLimits})
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			_, err := call(t, m, tt.tool, `{}`)
			if !errors.Is(err, tt.kind) {
				t.Fatalf("err = %v, want %v", err, tt.kind)
			}
			if err.Error() != tt.msg {
				t.Errorf("err = %q, want %q", err, tt.msg)
			}
		})
	}
}

func TestCallReadMalformed(t *testing.T) {
	m := compile(t, "guest", sandbox.Options{MaxIdle: 1})
	if _, err := call(t, m, "number", `{}`); err != nil {
		t.Fatal(err)
	}
	refuse := errors.New("not a result")
	err := m.Call(testContext(t), "echo", []byte(`{}`), nil, func([]byte, bool) error { return refuse })
	if !errors.Is(err, sandbox.ErrMalformed) || !errors.Is(err, refuse) {
		t.Fatalf("err = %v, want ErrMalformed wrapping the read error", err)
	}
	// The instance that produced it was discarded.
	if got, err := call(t, m, "number", `{}`); err != nil || got != "1" {
		t.Fatalf("number = %q, %v; want a fresh instance", got, err)
	}
}

func TestLog(t *testing.T) {
	var records bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&records, &slog.HandlerOptions{Level: slog.LevelDebug}))
	m := compile(t, "guest", sandbox.Options{Logger: logger})

	type line struct {
		level abi.LogLevel
		msg   string
	}
	var got []line
	_, err := sandbox.CallOutput(testContext(t), m, "log", []byte(`"hello from the guest"`), &sandbox.CallHooks{Log: func(l abi.LogLevel, msg string) {
		got = append(got, line{l, msg})
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []line{{abi.LogError, `"hello from the guest"`}, {abi.LogEmergency, "clamped"}}
	if !slices.Equal(got, want) {
		t.Errorf("LogFunc got %v, want %v", got, want)
	}

	dec := json.NewDecoder(&records)
	for _, w := range want {
		var rec struct{ Level, Msg, Plugin, Tool string }
		if err := dec.Decode(&rec); err != nil {
			t.Fatalf("slog record: %v", err)
		}
		if rec.Level != "ERROR" || rec.Msg != w.msg || rec.Plugin != "guest" || rec.Tool != "log" {
			t.Errorf("slog record %+v, want level ERROR, msg %q, plugin guest, tool log", rec, w.msg)
		}
	}
}

func TestLogTruncated(t *testing.T) {
	m := compile(t, "guest", sandbox.Options{})
	var msg string
	if _, err := sandbox.CallOutput(testContext(t), m, "big", []byte(`{}`), &sandbox.CallHooks{Log: func(_ abi.LogLevel, s string) { msg = s }}); err != nil {
		t.Fatal(err)
	}
	// 64 KiB, less the first byte of an "é" that straddles the cut.
	if len(msg) != abi.MaxLogSize-1 || !utf8.ValidString(msg) {
		t.Errorf("log message of %d bytes (valid UTF-8: %v), want %d", len(msg), utf8.ValidString(msg), abi.MaxLogSize-1)
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		module string
		want   []string
	}{
		{"v2", []string{"ABI version 2 is not supported (this host speaks 1)"}},
		{"missing", []string{"missing export wasmcp_call: (i32, i32, i32, i32) -> i64"}},
		{"badsig", []string{
			"export wasmcp_call: signature (i32, i32) -> i64, want (i32, i32, i32, i32) -> i64",
			"missing export memory",
		}},
		{"env", []string{`import env.now: module "env" is not provided (only wasmcp and wasi_snapshot_preview1 are)`}},
		{"reserved", []string{"import wasmcp.progress: signature (f32, f32, i32, i32) -> (), want (f64, f64, i32, i32) -> ()"}},
		{"imports", []string{
			"import wasmcp.shout: no such function in wasmcp",
			"import wasmcp.log: signature (i32, i32) -> (), want (i32, i32, i32) -> ()",
			"import wasi_snapshot_preview1.sock_dial: no such function in wasi_snapshot_preview1",
		}},
		{"inittrap", []string{"compile inittrap: instantiate: trapped: unreachable"}},
		{"bigmem", []string{"export memory: minimum of 100 pages (6400 KiB) exceeds the memory limit of 2 MiB"}},
	}
	for _, tt := range tests {
		t.Run(tt.module, func(t *testing.T) {
			m, err := newRuntime(t).Compile(testContext(t), tt.module, guest(t, tt.module), sandbox.Options{Limits: smallLimits})
			if err == nil {
				_ = m.Close(context.Background())
				t.Fatal("Compile succeeded")
			}
			if !strings.HasPrefix(err.Error(), "compile "+tt.module+": ") {
				t.Errorf("err = %q, want it to name the module", err)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("err = %q, want it to contain %q", err, want)
				}
			}
		})
	}
}

// A failure while loading is classified like one during a call.
func TestCompileErrorKinds(t *testing.T) {
	_, err := newRuntime(t).Compile(testContext(t), "inittrap", guest(t, "inittrap"), sandbox.Options{})
	if !errors.Is(err, sandbox.ErrTrap) {
		t.Errorf("err = %v, want ErrTrap", err)
	}
	opts := sandbox.Options{Limits: sandbox.Limits{Timeout: 100 * time.Millisecond}}
	_, err = newRuntime(t).Compile(testContext(t), "initloop", guest(t, "initloop"), opts)
	if want := "compile initloop: instantiate: timed out after 100ms"; !errors.Is(err, sandbox.ErrTimeout) || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestConcurrentCalls(t *testing.T) {
	m := compile(t, "guest", sandbox.Options{MaxIdle: 2})
	const goroutines, calls = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*calls)
	for g := range goroutines {
		wg.Go(func() {
			for i := range calls {
				args := fmt.Sprintf(`{"goroutine":%d,"call":%d}`, g, i)
				out, err := sandbox.CallOutput(context.Background(), m, "echo", []byte(args), nil)
				if err != nil || string(out) != args {
					errs <- fmt.Errorf("echo %s = %q, %v", args, out, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestClosed(t *testing.T) {
	m := compile(t, "guest", sandbox.Options{})
	if err := m.Close(testContext(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, m, "echo", `{}`); !errors.Is(err, sandbox.ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
	if _, err := m.List(testContext(t)); !errors.Is(err, sandbox.ErrClosed) {
		t.Fatalf("Describe err = %v, want ErrClosed", err)
	}
}

func TestSharedCompilationCache(t *testing.T) {
	ctx := testContext(t)
	cache := wazero.NewCompilationCache()
	defer cache.Close(ctx)
	for range 2 {
		m, err := runtimeOf(t, sandbox.RuntimeConfig{Cache: cache}).Compile(ctx, "guest", guest(t, "guest"), sandbox.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := call(t, m, "echo", `{"cached":true}`); err != nil || got != `{"cached":true}` {
			t.Fatalf("echo = %q, %v", got, err)
		}
	}
}

// BenchmarkCall measures a call into a reused instance, without the JSON
// work of host/plugin: compare with host/plugin's BenchmarkCall for the
// share of decoding and validation.
func BenchmarkCall(b *testing.B) {
	m := compile(b, "guest", sandbox.Options{})
	ctx := context.Background()
	args := []byte(`{"message":"hi"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := m.Call(ctx, "echo", args, nil, func([]byte, bool) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompile compiles a small module from a warm on-disk compilation cache
// and lists its tools, in a runtime of its own: what loading each of many
// plugins would cost the sandbox at start-up without a shared Runtime.
// BenchmarkCompileShared is the same in a shared Runtime, as the host does.
func BenchmarkCompile(b *testing.B) {
	ctx := context.Background()
	cache, err := wazero.NewCompilationCacheWithDir(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer cache.Close(ctx)
	benchmarkCompile(b, func(b testing.TB) *sandbox.Runtime { return runtimeOf(b, sandbox.RuntimeConfig{Cache: cache}) })
}

func benchmarkCompile(b *testing.B, runtime func(testing.TB) *sandbox.Runtime) {
	ctx := context.Background()
	wasm := guest(b, "guest")
	opts := sandbox.Options{Logger: slog.New(slog.DiscardHandler)}
	for b.Loop() {
		m, err := runtime(b).Compile(ctx, "guest", wasm, opts)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.List(ctx); err != nil {
			b.Fatal(err)
		}
		_ = m.Close(ctx)
	}
}

//go:generate ../../../scripts/wat2wasm-testdata.sh testdata testdata/extism
