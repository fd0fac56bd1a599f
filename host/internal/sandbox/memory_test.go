package sandbox_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
)

// wasmModule assembles a module from its sections, each an id and a body.
func wasmModule(sections ...[]byte) []byte {
	out := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range sections {
		out = append(out, s[0])
		out = binary.AppendUvarint(out, uint64(len(s)-1))
		out = append(out, s[1:]...)
	}
	return out
}

// vec is a vector: its count, then its entries.
func vec(entries ...[]byte) []byte {
	return append(binary.AppendUvarint(nil, uint64(len(entries))), bytes.Join(entries, nil)...)
}

// wasmName is a length-prefixed name.
func wasmName(s string) []byte { return append(binary.AppendUvarint(nil, uint64(len(s))), s...) }

// sleb appends v as a signed LEB128 number.
func sleb(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// fillerGuest is a module whose call grows its memory a page at a time
// until the sandbox refuses, writing to every 4 KiB of each page so that
// the host's pages are all resident, then logs "{}" and returns it. With a
// table, of funcref and the given limits, the call first grows the table
// by grow elements at a time until that fails.
func fillerGuest(table []byte, grow int64) []byte {
	const (
		i32 = 0x7f
		i64 = 0x7e
	)
	types := vec(
		[]byte{0x60, 3, i32, i32, i32, 0},           // log
		[]byte{0x60, 0, 1, i32},                     // wasmcp_abi_version
		[]byte{0x60, 1, i32, 1, i32},                // wasmcp_alloc
		[]byte{0x60, 0, 1, i64},                     // wasmcp_describe
		[]byte{0x60, 4, i32, i32, i32, i32, 1, i64}, // wasmcp_call
	)
	imports := vec(bytes.Join([][]byte{wasmName(abi.ImportModule), wasmName(abi.ImportLog), {0, 0}}, nil))
	exports := vec(
		append(wasmName(abi.ExportMemory), 2, 0),
		append(wasmName(abi.ExportVersion), 0, 1),
		append(wasmName(abi.ExportAlloc), 0, 2),
		append(wasmName(abi.ExportDescribe), 0, 3),
		append(wasmName(abi.ExportCall), 0, 4),
	)
	call := []byte{1, 2, i32} // locals 4 (the new page) and 5 (an address)
	if table != nil {
		// block, loop: br_if 1 (i32.eq (table.grow (ref.null func) (i32.const grow)) -1), br 0
		call = sleb(append(call, 0x02, 0x40, 0x03, 0x40, 0xd0, 0x70, 0x41), grow)
		call = append(call, 0xfc, 15, 0, 0x41, 0x7f, 0x46, 0x0d, 1, 0x0c, 0, 0x0b, 0x0b)
	}
	call = append(call,
		0x02, 0x40, 0x03, 0x40, // block, loop
		0x41, 1, 0x40, 0, 0x22, 4, // (local.tee 4 (memory.grow (i32.const 1)))
		0x41, 0x7f, 0x46, 0x0d, 1, // br_if 1 (i32.eq ... -1)
		0x20, 4, 0x41, 16, 0x74, 0x21, 5, // (local.set 5 (i32.shl (local.get 4) 16))
		0x02, 0x40, 0x03, 0x40, // block, loop: every 4 KiB of the page
		0x20, 5, 0x41, 1, 0x3a, 0, 0, // (i32.store8 (local.get 5) 1)
		0x20, 5, 0x41, 0x80, 0x20, 0x6a, 0x22, 5, // (local.tee 5 (i32.add (local.get 5) 4096))
		0x41, 0xff, 0xff, 0x03, 0x71, 0x45, 0x0d, 1, // br_if 1 (i32.eqz (i32.and ... 0xffff))
		0x0c, 0, 0x0b, 0x0b, // br 0, end, end
		0x0c, 0, 0x0b, 0x0b, // br 0, end, end
		0x41, 16, 0x41, 0xfb, 0xfa, 0x01, 0x3b, 1, 0, // (i32.store16 (i32.const 16) "{}")
		0x41, 0, 0x41, 16, 0x41, 2, 0x10, 0, // (call $log (i32.const 0) (i32.const 16) (i32.const 2))
		0x42) // i64.const
	call = append(sleb(call, int64(abi.Pack(16, 2))), 0x0b)
	code := vec(
		[]byte{4, 0, 0x41, 1, 0x0b},
		[]byte{5, 0, 0x41, 0x80, 0x08, 0x0b},
		[]byte{4, 0, 0x42, 0, 0x0b},
		append(binary.AppendUvarint(nil, uint64(len(call))), call...),
	)
	sections := [][]byte{
		append([]byte{1}, types...),
		append([]byte{2}, imports...),
		append([]byte{3}, vec([]byte{1}, []byte{2}, []byte{3}, []byte{4})...),
	}
	if table != nil {
		sections = append(sections, append([]byte{4}, vec(append([]byte{0x70}, table...))...))
	}
	sections = append(sections,
		append([]byte{5}, vec([]byte{0, 1})...),
		append([]byte{7}, exports...),
		append([]byte{10}, code...),
	)
	return wasmModule(sections...)
}

// rss is the resident set of the process, from /proc/self/status.
func rss(t *testing.T) uint64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// instancesMemory runs n calls of m at once, each in an instance of its
// own that fills its memory to the limit, and returns how much the
// process's resident set grew while all of them held their memory.
func instancesMemory(t *testing.T, m *sandbox.Module, n int) uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	before := rss(t)
	return heldRSS(t, n, func(hooks *sandbox.CallHooks) error {
		out, err := sandbox.CallOutput(testContext(t), m, "fill", []byte(`{}`), hooks)
		if err == nil && string(out) != "{}" {
			err = errors.New("call returned " + strconv.Quote(string(out)))
		}
		return err
	}) - before
}

// heldRSS runs call n times at once and returns the process's resident set
// while each was held in its first log line: calls that log once they have
// filled their memory.
func heldRSS(t *testing.T, n int, call func(*sandbox.CallHooks) error) uint64 {
	var (
		filled  sync.WaitGroup
		release = make(chan struct{})
		held    uint64
		wg      sync.WaitGroup
	)
	filled.Add(n)
	go func() {
		filled.Wait()
		held = rss(t)
		close(release)
	}()
	hooks := &sandbox.CallHooks{Log: func(abi.LogLevel, string) {
		filled.Done()
		<-release
	}}
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- call(hooks)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return held
}

// compileBytes compiles wasm as a module named name, closed with the test.
func compileBytes(t *testing.T, name string, wasm []byte, opts sandbox.Options) *sandbox.Module {
	t.Helper()
	opts.Logger = slog.New(slog.DiscardHandler)
	m, err := newRuntime(t).Compile(testContext(t), name, wasm, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	return m
}

// memorySlack is what the process may grow by beyond the memory limits of
// the instances alive: what the host allocates for them and for the test.
const memorySlack = 16 << 20

// Instances filling their memory to the limit at once grow the process by
// at most their number times the limit, plus a constant, and what they
// held is returned when they are closed.
func TestInstancesMemoryBound(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector shadows the memory the host touches")
	}
	const (
		n     = 4
		limit = 32 << 20
	)
	for round := range 3 {
		before := rss(t)
		m := compileBytes(t, "filler", fillerGuest(nil, 0), sandbox.Options{
			Limits: sandbox.Limits{MemoryPages: limit / 65536}, MaxIdle: n,
		})
		grew := instancesMemory(t, m, n)
		t.Logf("round %d: %d instances at a limit of %d MiB grew the process by %d MiB", round, n, limit>>20, grew>>20)
		if grew > n*limit+memorySlack {
			t.Errorf("round %d: %d instances grew the process by %d MiB, over %d times the limit of %d MiB plus %d MiB",
				round, n, grew>>20, n, limit>>20, memorySlack>>20)
		}
		_ = m.Close(testContext(t))
		runtime.GC()
		if after := rss(t); after > before+memorySlack {
			t.Errorf("round %d: closing the instances left the process %d MiB larger", round, (after-before)>>20)
		}
	}
}

// A guest growing its table as far as it can, and then its memory, gets
// no more than the memory limit for both: a table grows only within the
// maximum it declares, and tables take what they may hold, 32 bytes an
// element, from the limit of the linear memory.
func TestTablesWithinMemoryLimit(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector shadows the memory the host touches")
	}
	const limit = 16 << 20
	for _, tt := range []struct {
		name  string
		table []byte
	}{
		{"no maximum", []byte{0, 1}},
		{"unbounded maximum", append([]byte{1, 1}, binary.AppendUvarint(nil, 1<<32-1)...)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := compileBytes(t, "tables", fillerGuest(tt.table, 1), sandbox.Options{
				Limits: sandbox.Limits{MemoryPages: limit / 65536}, MaxIdle: 1,
			})
			grew := instancesMemory(t, m, 1)
			t.Logf("a table grown to its maximum and a memory filled at a limit of %d MiB grew the process by %d MiB", limit>>20, grew>>20)
			if grew > limit+memorySlack {
				t.Errorf("the instance grew the process by %d MiB, over its limit of %d MiB plus %d MiB", grew>>20, limit>>20, memorySlack>>20)
			}
		})
	}
}
