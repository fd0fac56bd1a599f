package sandbox

import (
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
)

// grower grows its memory by as many pages as its arguments have bytes.
const grower = `(module
  (memory (export "memory") 1)
  (data (i32.const 16) "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}")
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "wasmcp_describe") (result i64) (i64.const 0))
  (func (export "wasmcp_call") (param i32 i32 i32) (param $len i32) (result i64)
    (drop (memory.grow (local.get $len)))
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 41))))`

// An instance that grew by more than keepBytes in a call is closed, not
// pooled: its memory goes back to the system with the call.
func TestGrownInstanceNotPooled(t *testing.T) {
	ctx := sandboxtest.Context(t)
	m, err := testRuntime(t).Compile(ctx, "grower", sandboxtest.Wat2Wasm(t, []byte(grower)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)
	idle := func() int {
		m.mu.Lock()
		defer m.mu.Unlock()
		return len(m.idle)
	}
	if _, err := CallOutput(ctx, m, "t", []byte(strings.Repeat(" ", 8)), nil); err != nil {
		t.Fatal(err)
	}
	if got := idle(); got != 1 {
		t.Fatalf("after growing by 8 pages, %d idle instances, want 1", got)
	}
	if _, err := CallOutput(ctx, m, "t", []byte(strings.Repeat(" ", keepBytes/pageSize+1)), nil); err != nil {
		t.Fatal(err)
	}
	if got := idle(); got != 0 {
		t.Fatalf("after growing past keepBytes, %d idle instances, want 0", got)
	}
}
