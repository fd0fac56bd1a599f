package sandbox

import (
	"errors"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
)

// looper loops until its deadline when called with arguments, and answers
// at once without.
const looper = `(module
  (memory (export "memory") 1)
  (data (i32.const 16) "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}")
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "wasmcp_describe") (result i64) (i64.const 0))
  (func (export "wasmcp_call") (param i32 i32 i32) (param $len i32) (result i64)
    (if (local.get $len) (then (loop $l (br $l))))
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 41))))`

// Only a module whose last call was long runs its next call on a goroutine
// of its own: one long call does not cost every later short call a
// hand-off between threads.
func TestLastCallLong(t *testing.T) {
	ctx := sandboxtest.Context(t)
	m, err := testRuntime(t).Compile(ctx, "looper", sandboxtest.Wat2Wasm(t, []byte(looper)), Options{Limits: Limits{Timeout: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)
	if _, err := CallOutput(ctx, m, "t", []byte("loop"), nil); !errors.Is(err, ErrTimeout) {
		t.Fatalf("looping call: %v, want ErrTimeout", err)
	}
	if !m.lastLong.Load() {
		t.Fatal("after a call that looped to its deadline, the last call is not long")
	}
	if _, err := CallOutput(ctx, m, "t", nil, nil); err != nil {
		t.Fatal(err)
	}
	if m.lastLong.Load() {
		t.Fatal("after a short call, the last call is still long")
	}
}
