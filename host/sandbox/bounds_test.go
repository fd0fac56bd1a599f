package sandbox_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host/sandbox"
	"github.com/wasmcp/wasmcp/host/sandbox/sandboxtest"
)

// tableBomb asks for four tables of 2^27 elements, 4 GiB that wazero
// allocated when it instantiated the module, whatever the memory limit.
const tableBomb = `(module
  (memory (export "memory") 1)
  (table 134217727 funcref) (table 134217727 funcref)
  (table 134217727 funcref) (table 134217727 funcref)
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "wasmcp_describe") (result i64) (i64.const 0))
  (func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64) (i64.const 0)))`

// A module whose counts promise more than its bytes hold, or whose tables
// start huge, is refused before wazero allocates what it asks for.
func TestCompileAllocationBombs(t *testing.T) {
	tables, err := sandboxtest.Wat2Wasm([]byte(tableBomb))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		wasm []byte
		want string
	}{
		// Found by FuzzCompile: wazero allocated 7 GB for these 17 bytes (an
		// export vector of 222 million entries); with a larger count the Go
		// runtime ended the process.
		{"exports", []byte("\x00asm\x01\x00\x00\x00\av\xf6\xf6\xf6ioy"),
			"compile bomb: invalid or oversized module: export section at offset 8: length 118"},
		{"tables", tables, "compile bomb: invalid or oversized module: table section at offset 39: entry 0: tables of more than 10000000 elements in all"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			m, err := sandbox.Compile(testContext(t), "bomb", tt.wasm, fuzzOptions)
			runtime.ReadMemStats(&after)
			if err == nil {
				_ = m.Close(testContext(t))
				t.Fatal("Compile succeeded")
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q...", err, tt.want)
			}
			// Creating the runtime and its host modules takes a few MiB.
			if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
				t.Errorf("Compile allocated %d MiB", n>>20)
			}
		})
	}
}
