package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
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
		_, err := sandbox.CallOutput(ctx, m, "spin", nil, &sandbox.CallHooks{Log: func(abi.LogLevel, string) { close(started) }})
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("spin returned before it looped: %v", err)
	}
	return done
}

// TestCloseStopsRunningCall closes a module while a call of it loops, and
// gives up waiting for it: the call must end with ErrClosed, long before
// its deadline of an hour.
func TestCloseStopsRunningCall(t *testing.T) {
	m := compile(t, "guest", sandbox.Options{Limits: sandbox.Limits{Timeout: time.Hour}})
	done := spinning(t, m, testContext(t))
	ctx, cancel := context.WithTimeout(testContext(t), 50*time.Millisecond)
	defer cancel()
	if err := m.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close = %v, want the wait's end", err)
	}
	if err := <-done; !errors.Is(err, sandbox.ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
}

// TestCloseDrains closes a module while a call of it waits for its
// client: new calls are refused at once, and Close returns once the call
// has finished, as it would have without Close.
func TestCloseDrains(t *testing.T) {
	m := compile(t, "guest", sandbox.Options{})
	inside, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		_, err := sandbox.CallOutput(testContext(t), m, "log", []byte(`"waiting"`), &sandbox.CallHooks{Log: func(abi.LogLevel, string) {
			once.Do(func() { close(inside); <-release })
		}})
		done <- err
	}()
	<-inside
	closed := make(chan error, 1)
	go func() { closed <- m.Close(testContext(t)) }()
	for {
		if _, err := call(t, m, "echo", `{}`); errors.Is(err, sandbox.ErrClosed) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) with a call running", err)
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	if err := <-done; err != nil {
		t.Errorf("the call running while Close waited: %v", err)
	}
	if err := <-closed; err != nil {
		t.Errorf("Close = %v", err)
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
	m, err := newRuntime(t).Compile(testContext(t), "tree", wasm, sandbox.Options{Limits: sandbox.Limits{Timeout: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	if _, err := sandbox.CallOutput(testContext(t), m, "tree", []byte(`{}`), nil); !errors.Is(err, sandbox.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
}
