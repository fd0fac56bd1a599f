package sandbox_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host/sandbox"
)

// A module whose counts promise more than its bytes hold is refused before
// wazero allocates what they promise. This one, found by FuzzCompile, made
// wazero allocate 7 GB for its 17 bytes (an export vector of 222 million
// entries); with a larger count the Go runtime ended the process.
func TestCompileAllocationBomb(t *testing.T) {
	bomb := []byte("\x00asm\x01\x00\x00\x00\av\xf6\xf6\xf6ioy")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := sandbox.Compile(testContext(t), "bomb", bomb, fuzzOptions)
	runtime.ReadMemStats(&after)
	if err == nil {
		_ = m.Close(testContext(t))
		t.Fatal("Compile succeeded")
	}
	if want := "compile bomb: malformed module: export section at offset 8: length 118"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want %q...", err, want)
	}
	// Creating the runtime and its host modules takes a few MiB.
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Errorf("Compile allocated %d MiB", n>>20)
	}
}
