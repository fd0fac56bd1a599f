package bounds_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/bounds"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
)

// budget is bounds.MaxTableElements as a LEB128 number.
var budget = uleb(bounds.MaxTableElements)

func TestCheckCapsTables(t *testing.T) {
	// A memory section after the table section must survive the rewrite.
	memory := section(5, uleb(1), []byte{0}, uleb(1))
	forty := func(limits ...[]byte) []byte {
		entry := append([]byte{0x70}, bytes.Join(limits, nil)...)
		return append(uleb(40), bytes.Repeat(entry, 40)...)
	}
	tests := []struct {
		name     string
		tables   []byte // the body of the table section
		want     []byte // the body after Check; nil when unchanged
		wantSame bool
	}{
		// A table that declares no maximum does not grow.
		{"no maximum", bytes.Join([][]byte{uleb(1), {0x70, 0}, uleb(5)}, nil),
			bytes.Join([][]byte{uleb(1), {0x70, 1}, uleb(5), uleb(5)}, nil), false},
		{"maximum too large", bytes.Join([][]byte{uleb(1), {0x70, 1}, uleb(5), uleb(1<<32 - 1)}, nil),
			bytes.Join([][]byte{uleb(1), {0x70, 1}, uleb(5), budget}, nil), false},
		{"maximum kept", bytes.Join([][]byte{uleb(1), {0x70, 1}, uleb(5), uleb(189)}, nil), nil, true},
		{"maximum of the budget kept", bytes.Join([][]byte{uleb(1), {0x70, 1}, uleb(0), budget}, nil), nil, true},
		{"maximum below minimum kept, for wazero to refuse", bytes.Join([][]byte{uleb(1), {0x70, 1}, uleb(5), uleb(3)}, nil), nil, true},
		{"shared, for wazero to refuse", bytes.Join([][]byte{uleb(1), {0x70, 2}, uleb(0)}, nil),
			bytes.Join([][]byte{uleb(1), {0x70, 3}, uleb(0), uleb(0)}, nil), false},
		// Two tables that may grow share the budget evenly; one that
		// declares no maximum keeps its size.
		{"two tables", bytes.Join([][]byte{uleb(3), {0x70, 1}, uleb(0), uleb(1<<32 - 1), {0x6f, 1}, uleb(0), uleb(1<<32 - 1), {0x70, 0}, uleb(0)}, nil),
			bytes.Join([][]byte{uleb(3), {0x70, 1}, uleb(0), uleb(5_000_000), {0x6f, 1}, uleb(0), uleb(5_000_000), {0x70, 1}, uleb(0), uleb(0)}, nil), false},
		// What a table declares it will not use goes to the other one,
		// whatever their order; minima count.
		{"share given back", bytes.Join([][]byte{uleb(2), {0x70, 1}, uleb(4), uleb(1<<32 - 1), {0x6f, 1}, uleb(0), uleb(10)}, nil),
			bytes.Join([][]byte{uleb(2), {0x70, 1}, uleb(4), uleb(bounds.MaxTableElements - 10), {0x6f, 1}, uleb(0), uleb(10)}, nil), false},
		{"initializer prefix", bytes.Join([][]byte{uleb(1), {0x40, 0, 0x70, 0}, uleb(1), {0xd0, 0x70, 0x0b}}, nil),
			bytes.Join([][]byte{uleb(1), {0x40, 0, 0x70, 1}, uleb(1), uleb(1), {0xd0, 0x70, 0x0b}}, nil), false},
		// The section grows past 127 bytes: its size takes two bytes.
		{"forty tables", forty([]byte{0}, uleb(0)), forty([]byte{1}, uleb(0), uleb(0)), false},
		{"no tables", uleb(0), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := module(section(4, tt.tables), memory)
			orig := bytes.Clone(in)
			out, err := bounds.Check(in, bounds.MaxTableElements)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(in, orig) {
				t.Fatal("Check modified its argument")
			}
			if tt.wantSame {
				if &out[0] != &in[0] || len(out) != len(in) {
					t.Errorf("Check returned a copy %x, want the module itself", out)
				}
				return
			}
			if want := module(section(4, tt.want), memory); !bytes.Equal(out, want) {
				t.Errorf("Check =\n%x, want\n%x", out, want)
			}
			// Once capped, a module needs no more capping.
			again, err := bounds.Check(out, bounds.MaxTableElements)
			if err != nil || &again[0] != &out[0] {
				t.Errorf("Check of its own result = %x, %v; want the same module", again, err)
			}
		})
	}
}

// tableGuest starts with two tables that may grow without bound and one
// that declares no maximum, grows the first in its start function by more
// than the budget allows, and exports functions that grow them.
const tableGuest = `(module
  (table $a 10 0xffffffff funcref)
  (table $b 0 0xffffffff externref)
  (table $c 3 funcref)
  (global $start (export "start") (mut i32) (i32.const 0))
  (func $grow_start
    (global.set $start (table.grow $a (ref.null func) (i32.const 0xfffffff0))))
  (start $grow_start)
  (func (export "grow_a") (param i32) (result i32)
    (table.grow $a (ref.null func) (local.get 0)))
  (func (export "grow_b") (param i32) (result i32)
    (table.grow $b (ref.null extern) (local.get 0)))
  (func (export "grow_c") (param i32) (result i32)
    (table.grow $c (ref.null func) (local.get 0)))
  (func (export "size_a") (result i32) (table.size $a)))`

// With the capped module, wazero refuses a table.grow past the budget, or of
// a table that declares no maximum, with -1, as the specification allows,
// and performs those within it. Without the cap, the grow in the start
// function would end the test process.
func TestCappedTablesGrow(t *testing.T) {
	wasm := sandboxtest.Wat2Wasm(t, []byte(tableGuest))
	capped, err := bounds.Check(wasm, bounds.MaxTableElements)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	mod, err := rt.Instantiate(ctx, capped)
	if err != nil {
		t.Fatal(err)
	}
	call := func(name string, args ...uint64) int32 {
		t.Helper()
		res, err := mod.ExportedFunction(name).Call(ctx, args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return api.DecodeI32(res[0])
	}
	if got := api.DecodeI32(mod.ExportedGlobal("start").Get()); got != -1 {
		t.Errorf("table.grow of 2^32-16 in the start function = %d, want -1", got)
	}
	// Each table that may grow gets half of what the initial sizes leave,
	// the second the odd element.
	half := uint64(bounds.MaxTableElements-13) / 2
	for _, tt := range []struct {
		fn    string
		delta uint64
		want  int32
	}{
		{"grow_a", 0x7fffffff, -1},
		{"grow_a", 0xffffffff, -1},
		{"grow_a", half + 1, -1},
		{"grow_a", 1000, 10},
		{"grow_a", half - 1000, 1010},
		{"grow_a", 1, -1},
		{"grow_b", half + 2, -1},
		{"grow_b", 5, 0},
		{"grow_c", 1, -1},
	} {
		if got := call(tt.fn, tt.delta); got != tt.want {
			t.Errorf("%s(%d) = %d, want %d", tt.fn, tt.delta, got, tt.want)
		}
	}
	if got, want := call("size_a"), int32(10+half); got != want {
		t.Errorf("size_a = %d, want %d", got, want)
	}
}

// sectionsOf splits a module into its sections, each id and body.
func sectionsOf(t *testing.T, wasm []byte) (ids []byte, bodies [][]byte) {
	t.Helper()
	r := bytes.NewReader(wasm[8:])
	for r.Len() > 0 {
		id, _ := r.ReadByte()
		size, err := binary.ReadUvarint(r)
		if err != nil || size > uint64(r.Len()) {
			t.Fatalf("section %d: size %d, %v", id, size, err)
		}
		body := make([]byte, size)
		_, _ = r.Read(body)
		ids, bodies = append(ids, id), append(bodies, body)
	}
	return ids, bodies
}

// The guest modules `make plugins` builds are left alone but for the
// maxima of their tables: those that declare one (C, Rust, AssemblyScript)
// are returned as they are; Go's, which declare none, get their initial
// size. What
// wazero makes of them is otherwise the same (checked for one module of
// each toolchain).
func TestCheckBuiltGuests(t *testing.T) {
	mods := sandboxtest.MustBuilt(t)
	ctx := context.Background()
	// The interpreter compiles several times faster, and decodes the same.
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	compile := sandboxtest.Representative(mods)
	for name, wasm := range mods {
		t.Run(name, func(t *testing.T) {
			out, err := bounds.Check(wasm, bounds.MaxTableElements)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			inIDs, inBodies := sectionsOf(t, wasm)
			outIDs, outBodies := sectionsOf(t, out)
			if !bytes.Equal(inIDs, outIDs) {
				t.Errorf("%s: sections %v became %v", name, inIDs, outIDs)
				return
			}
			for i, id := range inIDs {
				in, out := inBodies[i], outBodies[i]
				if id != 4 {
					if !bytes.Equal(in, out) {
						t.Errorf("%s: section %d changed", name, id)
					}
					continue
				}
				// One funcref table, without a maximum or with one of at
				// most the budget.
				if in[0] != 1 || in[1] != 0x70 {
					t.Fatalf("%s: table section %x", name, in)
				}
				switch in[2] {
				case 0:
					if want := slices.Concat([]byte{1, 0x70, 1}, in[3:], in[3:]); !bytes.Equal(out, want) {
						t.Errorf("%s: table section %x became %x, want %x", name, in, out, want)
					}
				case 1:
					if !bytes.Equal(in, out) {
						t.Errorf("%s: table section %x with a maximum became %x", name, in, out)
					}
				}
			}
			if !slices.Contains(compile, name) {
				return
			}
			before, err := rt.CompileModule(ctx, wasm)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			after, err := rt.CompileModule(ctx, out)
			if err != nil {
				t.Fatalf("%s: capped: %v", name, err)
			}
			if a, b := describe(before), describe(after); a != b {
				t.Errorf("%s: compiled\n%s\nbecame\n%s", name, a, b)
			}
		})
	}
}

// describe lists a compiled module's imports and exports.
func describe(m wazero.CompiledModule) string {
	var lines []string
	for _, f := range m.ImportedFunctions() {
		mod, name, _ := f.Import()
		lines = append(lines, fmt.Sprint("import ", mod, ".", name, f.ParamTypes(), f.ResultTypes()))
	}
	for name, f := range m.ExportedFunctions() {
		lines = append(lines, fmt.Sprint("export ", name, f.ParamTypes(), f.ResultTypes()))
	}
	for name, mem := range m.ExportedMemories() {
		max, ok := mem.Max()
		lines = append(lines, fmt.Sprint("memory ", name, mem.Min(), max, ok))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// FuzzCheck gives Check random modules, seeded with the sandbox's test
// guests and modules with tables. Check must not panic nor modify its
// argument; a module it returns needs no more capping; and a module whose
// tables it capped decodes in wazero exactly when the original does, to the
// same imports and exports.
func FuzzCheck(f *testing.F) {
	mods, err := sandboxtest.ReadDir("../../testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(mods)) {
		f.Add(mods[name])
	}
	table := sandboxtest.Wat2Wasm(f, []byte(tableGuest))
	f.Add(table)
	f.Add(module(section(4, uleb(2), []byte{0x70, 0}, uleb(1), []byte{0x40, 0, 0x6f, 1}, uleb(0), uleb(1<<32-1), []byte{0xd0, 0x6f, 0x0b})))
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	f.Fuzz(func(t *testing.T, wasm []byte) {
		orig := bytes.Clone(wasm)
		out, err := bounds.Check(wasm, bounds.MaxTableElements)
		if !bytes.Equal(wasm, orig) {
			t.Fatal("Check modified its argument")
		}
		if err != nil || len(out) == len(wasm) && (len(out) == 0 || &out[0] == &wasm[0]) {
			return
		}
		if again, err := bounds.Check(out, bounds.MaxTableElements); err != nil || &again[0] != &out[0] {
			t.Fatalf("Check of its own result %x = %x, %v", out, again, err)
		}
		before, errBefore := rt.CompileModule(ctx, wasm)
		after, errAfter := rt.CompileModule(ctx, out)
		if (errBefore == nil) != (errAfter == nil) {
			t.Fatalf("wazero: %v before the cap, %v after", errBefore, errAfter)
		}
		if errBefore == nil {
			if a, b := describe(before), describe(after); a != b {
				t.Fatalf("compiled\n%s\nbecame\n%s", a, b)
			}
			_ = before.Close(ctx)
			_ = after.Close(ctx)
		}
	})
}

// The tables that declare room to grow share at most growth elements
// beyond their initial sizes: what the sandbox lets tables take of an
// instance's memory limit.
func TestCheckTableGrowth(t *testing.T) {
	tables := bytes.Join([][]byte{uleb(3), {0x70, 1}, uleb(5), uleb(1<<32 - 1), {0x6f, 1}, uleb(2), uleb(4), {0x70, 0}, uleb(7)}, nil)
	out, err := bounds.Check(module(section(4, tables)), 1000)
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Join([][]byte{uleb(3), {0x70, 1}, uleb(5), uleb(5 + 998), {0x6f, 1}, uleb(2), uleb(4), {0x70, 1}, uleb(7), uleb(7)}, nil)
	if !bytes.Equal(out, module(section(4, want))) {
		t.Errorf("Check = %x, want %x", out, module(section(4, want)))
	}
	if got := bounds.TableElements(out); got != 5+998+4+7 {
		t.Errorf("TableElements = %d, want %d", got, 5+998+4+7)
	}
}
