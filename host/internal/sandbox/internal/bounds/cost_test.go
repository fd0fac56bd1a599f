package bounds_test

import (
	"bytes"
	_ "embed"
	"errors"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/bounds"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
)

// Modules whose compilation wazero (v1.12) takes time or memory for that
// grows faster than their size, each made of one structure that does. As
// generated here, each took wazero seconds or more to compile, some of them
// gigabytes of memory, before Instrument refused them.

// decl declares groups of n i32 locals, as a body starts.
func decl(n ...uint64) []byte {
	l := locals(n...)
	return l[:len(l)-1]
}

func rep(b []byte, n int) []byte { return bytes.Repeat(b, n) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// funcs is a module of functions of type () -> () with these bodies,
// locals included, and the given sections of ids 4 to 9 (memory, global,
// ...), in order.
func funcs(other [][]byte, bodies ...[]byte) []byte {
	var codes, types []byte
	for _, b := range bodies {
		codes = cat(codes, uleb(uint64(len(b))), b)
		types = append(types, 0)
	}
	sections := [][]byte{section(1, uleb(1), []byte{0x60, 0, 0}), section(3, uleb(uint64(len(bodies))), types)}
	sections = append(sections, other...)
	return module(append(sections, section(10, uleb(uint64(len(bodies))), codes))...)
}

func TestInstrumentRefusesCostlyModules(t *testing.T) {
	const (
		block   = 0x02
		loop    = 0x03
		ifOp    = 0x04
		end     = 0x0b
		brIf    = 0x0d
		brTable = 0x0e
		call    = 0x10
		drop    = 0x1a
		get     = 0x20
		set     = 0x21
		add     = 0x6a
		br      = 0x0c
		iconst  = 0x41
		load    = 0x28
		empty   = 0x40
	)
	// readAll reads locals 0 to n-1.
	readAll := func(n int) []byte {
		var b []byte
		for i := range n {
			b = cat(b, []byte{get}, uleb(uint64(i)), []byte{drop})
		}
		return b
	}
	tests := []struct {
		name, want string
		wasm       []byte
	}{{
		// The module of the issue: 12 to 17 s.
		"br_table to one block",
		"in function 0, where up to 200001 branches lead to one block",
		oneFunc(cat(decl(), []byte{block, empty, iconst, 0, brTable}, uleb(200000), rep([]byte{0}, 200001), []byte{end, end})),
	}, {
		"br_if chain",
		"blocks depend on each other up to 20002 deep",
		oneFunc(cat(decl(), []byte{block, empty}, rep([]byte{iconst, 1, brIf, 0}, 20000), []byte{end, end})),
	}, {
		"nested blocks",
		"blocks depend on each other up to 30002 deep",
		oneFunc(cat(decl(), rep([]byte{block, empty}, 30000), rep([]byte{end}, 30001))),
	}, {
		"nested loops",
		"in 10000 levels of loops",
		oneFunc(cat(decl(), rep([]byte{loop, empty}, 10000), rep([]byte{end}, 10001))),
	}, {
		"instructions after a chain of branches",
		"where up to 5000 branches follow each other without a join",
		oneFunc(cat(decl(1), []byte{block, empty}, rep([]byte{iconst, 1, brIf, 0}, 5000), rep([]byte{get, 0, drop}, 100000), []byte{end, end})),
	}, {
		"locals read across joins",
		"where a local's lookups pass up to 501 joins",
		oneFunc(cat(decl(5000), rep([]byte{iconst, 0, ifOp, empty, end}, 500), readAll(5000), []byte{end})),
	}, {
		// Each case of the br_table sets a local of its own and branches
		// back to the loop: its header takes a parameter for every local
		// from every case.
		"locals of a loop's every predecessor",
		"a block of 701 predecessors takes 701 parameters for locals",
		oneFunc(cat(decl(701), []byte{loop, empty, block, empty}, rep([]byte{block, empty}, 700),
			[]byte{get, 0, brTable}, uleb(700), func() []byte {
				var b []byte
				for i := range 701 {
					b = append(b, uleb(uint64(i))...)
				}
				b = append(b, end)
				for i := range 700 {
					b = cat(b, []byte{get}, uleb(uint64(i+1)), []byte{get, 0, add, set}, uleb(uint64(i+1)),
						[]byte{br}, uleb(uint64(700-i)), []byte{end})
				}
				return b
			}(), []byte{end}, readAll(701), []byte{end})),
	}, {
		// wazero lowers memory.fill to a loop of its own, whose header
		// takes a parameter for every local read after it.
		"locals read after memory.fill loops",
		"where a local's lookups pass up to 801 joins",
		funcs([][]byte{section(5, uleb(1), []byte{0, 1})}, cat(decl(1500),
			rep([]byte{iconst, 0, iconst, 0, iconst, 0, 0xfc, 11, 0}, 400), readAll(1500), []byte{end})),
	}, {
		"values passed to a block by a br_table",
		"where branches pass many values to blocks",
		module(
			section(1, uleb(2), []byte{0x60, 0, 0}, cat([]byte{0x60, 0}, uleb(3000), rep([]byte{0x7f}, 3000))),
			section(3, uleb(1), uleb(0)),
			section(10, uleb(1), func() []byte {
				b := cat(decl(), []byte{block, 1}, rep([]byte{iconst, 0}, 3000), []byte{iconst, 0, brTable}, uleb(3000),
					rep([]byte{0}, 3001), []byte{end}, rep([]byte{drop}, 3000), []byte{end})
				return cat(uleb(uint64(len(b))), b)
			}()),
		),
	}, {
		"bounds checks passed along a chain of branches",
		"where blocks pass on the bounds checks of many addresses",
		funcs([][]byte{section(5, uleb(1), []byte{0, 1})}, cat(decl(), []byte{block, empty}, func() []byte {
			var b []byte
			for i := range 10000 {
				b = cat(b, []byte{iconst}, uleb(uint64(i)), []byte{load, 2, 0, drop})
			}
			return b
		}(), rep([]byte{iconst, 1, brIf, 0}, 20000), []byte{end, end})),
	}, {
		"globals reloaded after every call",
		"in function 0, where every call reloads 10001 globals",
		funcs([][]byte{section(6, uleb(10000), rep([]byte{0x7f, 1, iconst, 0, end}, 10000))},
			cat(decl(), rep([]byte{call, 0}, 50000), []byte{end})),
	}, {
		"types gone through by every function",
		"25003 types, globals and imports for each of 25000 functions",
		module(
			section(1, uleb(25000), rep([]byte{0x60, 0, 0}, 25000)),
			section(3, uleb(25000), rep([]byte{0}, 25000)),
			section(10, uleb(25000), rep([]byte{2, 0, end}, 25000)),
		),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wasm, err := bounds.Check(tt.wasm, bounds.MaxTableElements)
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			_, err = bounds.Instrument(wasm)
			if !errors.Is(err, bounds.ErrCompileCost) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Instrument = %v, want %v naming %q", err, bounds.ErrCompileCost, tt.want)
			}
		})
	}
}

// The limit grows with the module: a br_table to one block that a module
// of its own size may not have, a larger module may.
func TestCompileCostPerByte(t *testing.T) {
	table := oneFunc(cat(decl(), []byte{0x02, 0x40, 0x41, 0, 0x0e}, uleb(30000), rep([]byte{0}, 30001), []byte{0x0b, 0x0b}))
	if _, err := bounds.Instrument(table); !errors.Is(err, bounds.ErrCompileCost) {
		t.Fatalf("Instrument = %v, want %v", err, bounds.ErrCompileCost)
	}
	padded := append(table, section(0, name("padding"), make([]byte, 100000))...)
	if _, err := bounds.Instrument(padded); err != nil {
		t.Fatalf("Instrument with 100 KB more = %v", err)
	}
}

// The modules toolchains write cost a small part of the limit: Go guests
// (whose dispatch loops br_table to thousands of blocks), C, Rust,
// AssemblyScript and WAT.
func TestCompileCostOfBuiltGuests(t *testing.T) {
	mods := sandboxtest.MustBuilt(t)
	for name, wasm := range mods {
		t.Run(name, func(t *testing.T) {
			work, limit, err := bounds.CompileWork(wasm)
			if err != nil {
				t.Errorf("%s: %v", name, err)
			} else if work > limit/4 {
				t.Errorf("%s: compiling it costs %d, over a quarter of its limit of %d", name, work, limit)
			}
		})
	}
}

//go:generate ../../../../../scripts/wat2wasm-testdata.sh testdata

//go:embed testdata/switch.wasm
var switchInLoop []byte

// Modules that compile in milliseconds, whatever structures they repeat,
// are not refused.
func TestCompileCostOfCheapModules(t *testing.T) {
	tests := []struct {
		name string
		wasm []byte
	}{
		// A local of each case, set before it is read: a read goes back
		// no further than the case's own blocks.
		{"switch in a loop", switchInLoop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := bounds.Instrument(tt.wasm); err != nil {
				t.Errorf("Instrument = %v", err)
			}
		})
	}
}
