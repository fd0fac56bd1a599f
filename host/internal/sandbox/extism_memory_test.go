package sandbox_test

import (
	"encoding/binary"
	"errors"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"

	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
)

// extismGuests are the Extism plugins of testdata/extism/*.wat.
var extismGuests = sandboxtest.NewGuests("testdata/extism")

// The flags of testdata/extism/fill.wat's input.
const (
	fillFree = 1 // free the kernel block once written
	fillGrow = 2 // then grow the linear memory until refused
)

// fillCall returns a call of testdata/extism/fill.wasm's tool in m that
// allocates and writes kernel bytes, then does what flags say.
func fillCall(t *testing.T, m *sandbox.Module, kernel, flags uint64) func(*sandbox.CallHooks) error {
	input := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, kernel), flags)
	return func(hooks *sandbox.CallHooks) error {
		return sandbox.RunExtism(testContext(t), m, sandbox.ExportCallV1, "fill", input, hooks, func(out []byte, failed bool) error {
			if failed || string(out) != "{}" {
				return errors.New("call returned " + strconv.Quote(string(out)))
			}
			return nil
		})
	}
}

// Extism instances filling their kernel memory, wave after wave, hold no
// more than their memory limits between them, and what they held goes
// back to the system when their calls end, while they sit idle in the
// pool, as linear memory does when an instance is closed.
func TestExtismKernelMemoryBound(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector shadows the memory the host touches")
	}
	const (
		n     = 4
		limit = 32 << 20
		fill  = 28 << 20
	)
	m := compileBytes(t, "fill", extismGuests.Get(t, "fill"), sandbox.Options{
		Limits: sandbox.Limits{MemoryPages: limit / 65536}, MaxIdle: n,
	})
	call := fillCall(t, m, fill, 0)
	runtime.GC()
	debug.FreeOSMemory()
	before := rss(t)
	for wave := range 3 {
		grew := heldRSS(t, n, call) - before
		t.Logf("wave %d: %d calls with %d MiB of kernel memory each at a limit of %d MiB grew the process by %d MiB",
			wave, n, fill>>20, limit>>20, grew>>20)
		if grew > n*limit+memorySlack {
			t.Errorf("wave %d: %d instances grew the process by %d MiB, over %d times the limit of %d MiB plus %d MiB",
				wave, n, grew>>20, n, limit>>20, memorySlack>>20)
		}
	}
	if after := rss(t); after > before+memorySlack {
		t.Errorf("the idle instances left the process %d MiB larger", (after-before)>>20)
	}
}

// An instance's kernel memory and linear memory together stay within its
// memory limit, also when the kernel's bytes were freed before the linear
// memory grew.
func TestExtismKernelAndLinearWithinLimit(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector shadows the memory the host touches")
	}
	const (
		limit = 32 << 20
		fill  = 28 << 20
	)
	for _, tt := range []struct {
		name  string
		flags uint64
	}{
		{"kernel kept", fillGrow},
		{"kernel freed", fillFree | fillGrow},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := compileBytes(t, "fill", extismGuests.Get(t, "fill"), sandbox.Options{
				Limits: sandbox.Limits{MemoryPages: limit / 65536}, MaxIdle: 1,
			})
			runtime.GC()
			debug.FreeOSMemory()
			before := rss(t)
			grew := heldRSS(t, 1, fillCall(t, m, fill, tt.flags)) - before
			t.Logf("%d MiB of kernel memory, then linear memory grown to the limit of %d MiB, grew the process by %d MiB",
				fill>>20, limit>>20, grew>>20)
			if grew > limit+memorySlack {
				t.Errorf("the instance grew the process by %d MiB, over its limit of %d MiB plus %d MiB", grew>>20, limit>>20, memorySlack>>20)
			}
		})
	}
}
