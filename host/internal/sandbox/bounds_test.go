package sandbox_test

import (
	"encoding/binary"
	"runtime"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
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

// brTableBomb is a function whose br_table sends 200,000 branches to one
// block, in 200 KB: wazero took seconds to compile it, the time growing
// with the square of the targets.
func brTableBomb() []byte {
	uleb := func(b []byte, v int) []byte { return binary.AppendUvarint(b, uint64(v)) }
	body := []byte{0, 0x02, 0x40, 0x41, 0, 0x0e} // no locals, block, i32.const 0, br_table
	body = uleb(body, 200000)
	body = append(body, make([]byte, 200001)...) // every label 0
	body = append(body, 0x0b, 0x0b)
	code := uleb(uleb(nil, 1), len(body))
	code = append(code, body...)
	wasm := []byte("\x00asm\x01\x00\x00\x00\x01\x04\x01\x60\x00\x00\x03\x02\x01\x00\x0a")
	return append(uleb(wasm, len(code)), code...)
}

// A module whose counts promise more than its bytes hold, whose tables
// start huge, or whose compilation would take time growing faster than its
// size, is refused before wazero allocates what it asks for or compiles it.
func TestCompileAllocationBombs(t *testing.T) {
	tables := sandboxtest.Wat2Wasm(t, []byte(tableBomb))
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
		{"br_table", brTableBomb(), "compile bomb: oversized module: code section at offset 18: too costly to compile: an estimated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			m, err := newRuntime(t).Compile(testContext(t), "bomb", tt.wasm, fuzzOptions)
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
