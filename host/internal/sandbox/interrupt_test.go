package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
)

// spinning starts the guest's spin tool, which logs and then loops
// forever, and returns once it loops, with the channel its error arrives on.
func spinning(t *testing.T, m *sandbox.Module, ctx context.Context) <-chan error {
	t.Helper()
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := m.Call(ctx, "spin", nil, &sandbox.CallHooks{Log: func(abi.LogLevel, string) { close(started) }})
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("spin returned before it looped: %v", err)
	}
	return done
}

// TestCloseStopsRunningCall closes a module while a call of it loops: the
// call must end with ErrClosed, long before its deadline of an hour.
func TestCloseStopsRunningCall(t *testing.T) {
	m := compile(t, "guest", sandbox.Options{Limits: sandbox.Limits{Timeout: time.Hour}})
	done := spinning(t, m, testContext(t))
	if err := m.Close(testContext(t)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, sandbox.ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
}

// TestGarbageCollectionWhileGuestLoops collects garbage while a guest loops.
// Machine code that never returns to Go cannot be stopped for the
// collection, which would then wait for the guest's deadline, an hour; the
// instrumentation's yields let it stop the goroutine. The call is then
// cancelled, which must be what ends it.
func TestGarbageCollectionWhileGuestLoops(t *testing.T) {
	m := compile(t, "guest", sandbox.Options{Limits: sandbox.Limits{Timeout: time.Hour}})
	ctx, cancel := context.WithCancel(testContext(t))
	done := spinning(t, m, ctx)
	runtime.GC()
	cancel()
	if err := <-done; !errors.Is(err, sandbox.ErrCanceled) {
		t.Fatalf("err = %v, want ErrCanceled", err)
	}
}

// TestDeadlineWithoutLoops times out a guest that never loops: a tree of
// calls 2^64 leaves wide, which a check at loop heads alone never stops.
func TestDeadlineWithoutLoops(t *testing.T) {
	var wat strings.Builder
	wat.WriteString(`(module
  (memory (export "memory") 1)
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "wasmcp_describe") (result i64) (i64.const 0))
  (func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64) (call $t0) (i64.const 0))
`)
	for i := range 64 {
		fmt.Fprintf(&wat, "  (func $t%d (call $t%d) (call $t%d))\n", i, (i+1)%64, (i+1)%64)
	}
	wat.WriteString(")")
	wasm := sandboxtest.Wat2Wasm(t, []byte(wat.String()))
	m, err := sandbox.Compile(testContext(t), "tree", wasm, sandbox.Options{Limits: sandbox.Limits{Timeout: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	if _, err := m.Call(testContext(t), "tree", []byte(`{}`), nil); !errors.Is(err, sandbox.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
}
