package sandbox_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/wasmcp/wasmcp/host/internal/sandbox"
)

// TestSharedRuntime compiles two modules in one Runtime: each serves its
// own calls, a guest's log line reaches its own module's logger, and
// closing one leaves the other serving.
func TestSharedRuntime(t *testing.T) {
	ctx := testContext(t)
	rt := newRuntime(t)
	var logs [2]bytes.Buffer
	var mods [2]*sandbox.Module
	for i, name := range []string{"first", "second"} {
		opts := sandbox.Options{MaxIdle: 1, Logger: slog.New(slog.NewJSONHandler(&logs[i], nil))}
		var err error
		if mods[i], err = rt.Compile(ctx, name, guest(t, "guest"), opts); err != nil {
			t.Fatal(err)
		}
	}
	// Instances are each module's own: the call counters are separate.
	for _, want := range []string{"1", "2"} {
		if got, err := call(t, mods[0], "number", `{}`); err != nil || got != want {
			t.Fatalf("first: number = %q, %v; want %q", got, err, want)
		}
	}
	if got, err := call(t, mods[1], "number", `{}`); err != nil || got != "1" {
		t.Fatalf("second: number = %q, %v; want 1", got, err)
	}
	if _, err := call(t, mods[1], "log", `"from the second"`); err != nil {
		t.Fatal(err)
	}
	var rec struct{ Msg, Plugin string }
	if err := json.NewDecoder(&logs[1]).Decode(&rec); err != nil || rec.Plugin != "second" {
		t.Fatalf("second's log record %+v, %v; want plugin second", rec, err)
	}
	if logs[0].Len() != 0 {
		t.Fatalf("first's logger got the second's line: %s", logs[0].String())
	}

	if err := mods[0].Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, mods[0], "echo", `{}`); !errors.Is(err, sandbox.ErrClosed) {
		t.Fatalf("first after Close: %v, want ErrClosed", err)
	}
	if got, err := call(t, mods[1], "echo", `{"still":"here"}`); err != nil || got != `{"still":"here"}` {
		t.Fatalf("second after the first closed: %q, %v", got, err)
	}
	if err := mods[1].Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkCompileShared is BenchmarkCompile in one Runtime shared by every
// module, as the host does.
func BenchmarkCompileShared(b *testing.B) {
	ctx := context.Background()
	cache, err := wazero.NewCompilationCacheWithDir(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer cache.Close(ctx)
	rt := runtimeOf(b, sandbox.RuntimeConfig{Cache: cache})
	benchmarkCompile(b, func(testing.TB) *sandbox.Runtime { return rt })
}

// TestSHA256 checks that a module reports the digest of the bytes it was
// compiled from, not of what the instrumentation made of them.
func TestSHA256(t *testing.T) {
	wasm := guest(t, "guest")
	m := compile(t, "guest", sandbox.Options{})
	if got, want := m.Sum(), sha256.Sum256(wasm); got != want {
		t.Fatalf("SHA256 = %x, want %x", got, want)
	}
}
