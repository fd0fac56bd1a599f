package bounds_test

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/bounds"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
)

// loops exercises the instructions whose immediates the instrumenter must
// step over (block types, br_table, typed select, memory arguments, SIMD
// lanes and constants, bulk memory, references) in and around loops of
// every shape: nested, with parameters and results, left by br_if and by
// br_table, and a function without a loop.
const loops = `(module
  (import "env" "add1" (func $add1 (param i32) (result i32)))
  (type $one (func (param i32) (result i32)))
  (memory 1)
  (table 2 funcref)
  (elem (i32.const 0) $sum $nested)
  (global $g (mut i32) (i32.const 7))
  (data "\01\02\03\04\05\06\07\08\09\0a\0b\0c\0d\0e\0f\10")
  (func $sum (export "sum") (param $n i32) (result i32) (local $acc i32)
    (block $out
      (loop $top
        (br_if $out (i32.eqz (local.get $n)))
        (local.set $acc (i32.add (local.get $acc) (local.get $n)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $top)))
    (local.get $acc))
  (func $nested (export "nested") (param $n i32) (result i32) (local $i i32) (local $j i32) (local $c i32)
    (loop $outer
      (local.set $j (i32.const 0))
      (loop $inner
        (local.set $c (i32.add (local.get $c) (select (result i32) (i32.const 1) (i32.const 2) (local.get $j))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br_if $inner (i32.lt_u (local.get $j) (i32.const 3))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $outer (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $c))
  (func (export "params") (param $n i32) (result i32)
    ;; A loop with a parameter and a result: the flag's test must leave the
    ;; loop's operand on the stack alone.
    (i32.const 0)
    (loop $l (param i32) (result i32)
      (i32.add (local.get $n))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $l (i32.ne (local.get $n) (i32.const 0)) (local.tee $n (local.get $n)) (drop))))
  (func (export "table") (param $k i32) (result i32) (local $r i32)
    (loop $l
      (block $b2 (block $b1 (block $b0
        (br_table $b0 $b1 $b2 (local.get $k)))
        (local.set $r (i32.add (local.get $r) (i32.const 100))))
        (local.set $r (i32.add (local.get $r) (i32.const 10))))
      (local.set $r (i32.add (local.get $r) (call_indirect (type $one) (i32.const 5) (i32.const 0))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $k) (i32.const 3))))
    (local.get $r))
  (func (export "simd") (result i64) (local $v v128) (local $i i32)
    (loop $l
      (local.set $v (i32x4.add (local.get $v) (v128.load offset=0 align=1 (i32.const 0))))
      (local.set $v (i8x16.shuffle 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0 (local.get $v) (v128.const i64x2 1 2)))
      (local.set $v (v128.load8_lane 3 (i32.const 5) (local.get $v)))
      (local.set $v (i32x4.replace_lane 2 (local.get $v) (i32x4.extract_lane 1 (local.get $v))))
      (memory.fill (i32.const 100) (i32.const 9) (i32.const 4))
      (memory.copy (i32.const 200) (i32.const 100) (i32.const 4))
      (drop (ref.is_null (ref.null func)))
      (drop (table.size 0))
      (global.set $g (i32.add (global.get $g) (i32.load8_u (i32.const 203))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 4))))
    (i64.add (i64x2.extract_lane 0 (local.get $v)) (i64.extend_i32_u (global.get $g))))
  (func (export "straight") (result f64)
    (f64.add (f64.const 1.5) (f64.convert_i64_s (i64.const -3))))
  ;; Calls of an imported function and through a function reference: the
  ;; instrumentation moves every function the module defines up by one.
  (func (export "imported") (param i32) (result i32) (call $add1 (call $add1 (local.get 0))))
  (global $ref funcref (ref.func $sum))
  (func (export "funcref") (param i32) (result i32)
    (table.set 0 (i32.const 1) (global.get $ref))
    (call_indirect (type $one) (local.get 0) (i32.const 1))))`

// callAll calls each function of args with its arguments and returns the
// results.
func callAll(t *testing.T, ctx context.Context, mod api.Module, args map[string][]uint64) map[string][]uint64 {
	t.Helper()
	got := map[string][]uint64{}
	for _, name := range slices.Sorted(maps.Keys(args)) {
		res, err := mod.ExportedFunction(name).Call(ctx, args[name]...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got[name] = res
	}
	return got
}

// meteredRuntime is a runtime with the host's yield function, which counts
// its calls and traps once stop returns true, and an "env" module of
// test helpers.
type meteredRuntime struct {
	ctx    context.Context
	rt     wazero.Runtime
	yields atomic.Int64
	stop   atomic.Bool
	// started is closed by the guest's first call of env.started.
	started chan struct{}
}

func newMeteredRuntime(t *testing.T) *meteredRuntime {
	ctx := context.Background()
	m := &meteredRuntime{ctx: ctx, rt: wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler()),
		started: make(chan struct{})}
	t.Cleanup(func() { _ = m.rt.Close(ctx) })
	_, err := m.rt.NewHostModuleBuilder(bounds.YieldModule).NewFunctionBuilder().
		WithFunc(func() uint32 {
			m.yields.Add(1)
			if m.stop.Load() {
				panic("stopped")
			}
			return bounds.Fuel
		}).Export(bounds.YieldImport).Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	_, err = m.rt.NewHostModuleBuilder("env").
		NewFunctionBuilder().WithFunc(func() { once.Do(func() { close(m.started) }) }).Export("started").
		NewFunctionBuilder().WithFunc(func(x uint32) uint32 { return x + 1 }).Export("add1").
		Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (m *meteredRuntime) instantiate(t *testing.T, wasm []byte) api.Module {
	t.Helper()
	inst, err := m.rt.InstantiateWithConfig(m.ctx, wasm, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

func instrument(t *testing.T, wat string) (orig, out []byte) {
	t.Helper()
	wasm := sandboxtest.Wat2Wasm(t, []byte(wat))
	out, err := bounds.Instrument(wasm)
	if err != nil {
		t.Fatal(err)
	}
	return wasm, out
}

// TestInstrumentKeepsResults runs the same functions before and after
// instrumenting, long enough for the fuel to run out many times.
func TestInstrumentKeepsResults(t *testing.T) {
	wasm, out := instrument(t, loops)
	m := newMeteredRuntime(t)
	args := map[string][]uint64{"sum": {1_000_000}, "nested": {4}, "params": {5}, "table": {0}, "simd": nil,
		"straight": nil, "imported": {41}, "funcref": {9}}
	var results []map[string][]uint64
	for _, mod := range [][]byte{wasm, out} {
		results = append(results, callAll(t, m.ctx, m.instantiate(t, mod), args))
	}
	if sum := results[0]["sum"][0]; sum != 1_000_000*1_000_001/2%(1<<32) {
		t.Fatalf("sum(1e6) = %d in the original module", sum)
	}
	for name := range args {
		if !slices.Equal(results[0][name], results[1][name]) {
			t.Errorf("%s: %v before instrumenting, %v after", name, results[0][name], results[1][name])
		}
	}
	if n := m.yields.Load(); n < 1_000_000/bounds.Fuel {
		t.Errorf("yield was called %d times for a million loop iterations, want at least %d", n, 1_000_000/bounds.Fuel)
	}
}

// TestInstrumentStopsEndlessCode runs guests that never end on their own, in
// every shape: a tight loop, a loop around a huge straight-line body, a
// tree of calls without a loop, an endless recursion through call_indirect
// guarded by a depth check. Each must reach yield, whose trap stops it.
func TestInstrumentStopsEndlessCode(t *testing.T) {
	straight := strings.Repeat("(local.set $x (i32.add (local.get $x) (i32.const 1)))\n", 20000)
	_, out := instrument(t, `(module
	  (import "env" "started" (func $started))
	  (func (export "tight") (local $i i64)
	    (call $started)
	    (loop $l (local.set $i (i64.add (local.get $i) (i64.const 1))) (br $l)))
	  (func (export "straight") (local $x i32)
	    (loop $l `+straight+` (br $l)))
	  (func $t0 (call $t1) (call $t1))
	  (func $t1 (call $t2) (call $t2))
	  (func $t2 (call $t3) (call $t3))
	  (func $t3 (call $t4) (call $t4))
	  (func $t4 (call $t5) (call $t5))
	  (func $t5 (call $t6) (call $t6))
	  (func $t6 (call $t7) (call $t7))
	  (func $t7 (call $t8) (call $t8))
	  (func $t8 (call $t9) (call $t9))
	  (func $t9 (call $tA) (call $tA))
	  (func $tA (call $tB) (call $tB))
	  (func $tB (call $tC) (call $tC))
	  (func $tC (call $tD) (call $tD))
	  (func $tD (call $tE) (call $tE))
	  (func $tE (call $tF) (call $tF))
	  (func $tF (call $t0) (call $t0))
	  (func (export "tree") (call $t0)))`)
	for _, name := range []string{"tight", "straight", "tree"} {
		t.Run(name, func(t *testing.T) {
			m := newMeteredRuntime(t)
			inst := m.instantiate(t, out)
			done := make(chan error, 1)
			go func() {
				_, err := inst.ExportedFunction(name).Call(m.ctx)
				done <- err
			}()
			if name == "tight" {
				<-m.started // the guest is running
			}
			m.stop.Store(true)
			if err := <-done; err == nil || !strings.Contains(err.Error(), "stopped") {
				t.Errorf("%s: %v, want the trap of yield", name, err)
			}
		})
	}
}

// TestInstrumentStart checks that the start function is exported rather
// than run by instantiation, so that an endless one cannot hold the host
// before it can stop it, and that it still does its work when called.
func TestInstrumentStart(t *testing.T) {
	_, out := instrument(t, `(module
	  (global $g (export "g") (mut i32) (i32.const 0))
	  (func $init (global.set $g (i32.const 42)) (loop $forever (br_if $forever (global.get $g))))
	  (start $init))`)
	m := newMeteredRuntime(t)
	inst := m.instantiate(t, out)
	if g := inst.ExportedGlobal("g").Get(); g != 0 {
		t.Fatalf("g = %d after instantiation: the start function ran", g)
	}
	m.stop.Store(true)
	_, err := inst.ExportedFunction(bounds.StartExport).Call(m.ctx)
	if err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Fatalf("endless start function: %v, want the trap of yield", err)
	}
	if g := inst.ExportedGlobal("g").Get(); g != 42 {
		t.Fatalf("g = %d after the start function, want 42", g)
	}
}

// TestInstrumentKeepsNames checks that the name section follows the
// functions it names to their new indices: a trap's stack trace names the
// function that trapped and its caller.
func TestInstrumentKeepsNames(t *testing.T) {
	_, out := instrument(t, `(module
	  (import "env" "add1" (func $add1 (param i32) (result i32)))
	  (func $first (export "first") (result i32) (i32.const 1))
	  (func $boom (param $why i32) (drop (call $add1 (local.get $why))) (unreachable))
	  (func $caller (export "caller") (call $boom (i32.const 3))))`)
	m := newMeteredRuntime(t)
	_, err := m.instantiate(t, out).ExportedFunction("caller").Call(m.ctx)
	if err == nil {
		t.Fatal("caller did not trap")
	}
	trace := err.Error()
	if !strings.Contains(trace, ".boom(i32)") || !strings.Contains(trace, ".caller()") {
		t.Fatalf("stack trace does not name boom and caller:\n%s", trace)
	}
}

// TestInstrumentAddsSections instruments modules without a global or an
// export section, whose new sections must land in the order the binary
// format requires (wazero refuses any other).
func TestInstrumentAddsSections(t *testing.T) {
	m := newMeteredRuntime(t)
	ctx, rt := m.ctx, m.rt
	for _, tc := range []struct{ name, wat string }{
		{"empty", `(module)`},
		{"loop", `(module (func (loop)))`},
		{"data", `(module (memory 1) (func (loop)) (data (i32.const 0) "x"))`},
		{"imported global", `(module (import "env" "g" (global i32)) (global i32 (global.get 0)) (func (export "f") (result i32) (global.get 1)))`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wat := tc.wat
			wasm := sandboxtest.Wat2Wasm(t, []byte(wat))
			out, err := bounds.Instrument(wasm)
			if err != nil {
				t.Fatalf("%s: %v", wat, err)
			}
			compiled, err := rt.CompileModule(ctx, out)
			if err != nil {
				t.Fatalf("%s: instrumented module refused: %v", wat, err)
			}
			imported := false
			for _, f := range compiled.ImportedFunctions() {
				mod, name, _ := f.Import()
				imported = imported || mod == bounds.YieldModule && name == bounds.YieldImport
			}
			if !imported {
				t.Fatalf("%s: yield is not imported", wat)
			}
			_ = compiled.Close(ctx)
		})
	}
}

func TestInstrumentRefuses(t *testing.T) {
	for _, tc := range []struct{ name, wat, want string }{
		{"reserved import", `(module (import "wasmcp" "yield" (func (result i32))))`, "reserved"},
		{"reserved start export", `(module (func (export "wasmcp:start")))`, "reserved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wasm := sandboxtest.Wat2Wasm(t, []byte(tc.wat))
			if _, err := bounds.Instrument(wasm); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
			}
		})
	}
	// Bodies that do not end where their size says, and an instruction
	// outside WebAssembly 2.0 (return_call, a tail call).
	for _, tc := range []struct {
		name string
		body []byte
	}{
		{"no end", []byte{0x00, 0x03, 0x40, 0x0b}},                         // loop, end: the function's end is missing
		{"after end", []byte{0x00, 0x0b, 0x01}},                            // a nop after the function's end
		{"return_call", []byte{0x00, 0x12, 0x00, 0x0b}},                    // return_call 0
		{"br_table cut", []byte{0x00, 0x0e, 0x05, 0x00, 0x00, 0x00, 0x0b}}, // br_table cut short
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := bounds.Instrument(oneFunc(tc.body)); err == nil {
				t.Errorf("body %x: instrumented without an error", tc.body)
			}
		})
	}
}

// TestInstrumentBuiltGuests instruments the modules `make plugins` builds,
// from Go, C, Rust, AssemblyScript and WAT: wazero must accept each.
func TestInstrumentBuiltGuests(t *testing.T) {
	mods := sandboxtest.MustBuilt(t)
	// wazero's interpreter validates as its compiler does, in a fraction
	// of the time.
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	for _, name := range sandboxtest.Representative(mods) {
		t.Run(name, func(t *testing.T) {
			out, err := bounds.Instrument(mods[name])
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			compiled, err := rt.CompileModule(ctx, out)
			if err != nil {
				t.Errorf("%s: instrumented module refused: %v", name, err)
				return
			}
			_ = compiled.Close(ctx)
		})
	}
}

// BenchmarkInstrument instruments the largest module `make plugins` builds
// (a Go guest of a few MB), what every load of such a module pays.
func BenchmarkInstrument(b *testing.B) {
	mods := sandboxtest.MustBuilt(b)
	var wasm []byte
	for _, m := range mods {
		if len(m) > len(wasm) {
			wasm = m
		}
	}
	b.SetBytes(int64(len(wasm)))
	for b.Loop() {
		if _, err := bounds.Instrument(wasm); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzInstrument gives Instrument random modules, seeded with the sandbox's
// test guests and the modules above. It must not panic nor modify its
// argument on any module Check passes, and a module that wazero accepts
// must still be accepted once instrumented, with the same exports (plus the start function's) and the
// same imports (plus yield).
func FuzzInstrument(f *testing.F) {
	mods, err := sandboxtest.ReadDir("../../testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(mods)) {
		f.Add(mods[name])
	}
	for _, wat := range []string{loops, tableGuest} {
		wasm := sandboxtest.Wat2Wasm(f, []byte(wat))
		f.Add(wasm)
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	f.Fuzz(func(t *testing.T, wasm []byte) {
		checked, err := bounds.Check(wasm, bounds.MaxTableElements)
		if err != nil {
			return
		}
		// Every module Check passes is instrumented, as the sandbox does,
		// before wazero has seen it: whatever it holds, no panic.
		orig := bytes.Clone(checked)
		out, err := bounds.Instrument(checked)
		if !bytes.Equal(checked, orig) {
			t.Fatal("Instrument modified its argument")
		}
		before, cerr := rt.CompileModule(ctx, checked)
		if cerr != nil {
			return
		}
		defer before.Close(ctx)
		if err != nil {
			// Only what the sandbox's runtime refuses anyway, or the names
			// Instrument reserves.
			if !strings.Contains(err.Error(), "not supported") && !strings.Contains(err.Error(), "reserved") {
				t.Fatalf("wazero accepts the module, Instrument refuses it: %v", err)
			}
			return
		}
		after, err := rt.CompileModule(ctx, out)
		if err != nil {
			t.Fatalf("wazero accepts the module, and refuses it instrumented: %v", err)
		}
		defer after.Close(ctx)
		wantExports := slices.Sorted(maps.Keys(before.ExportedFunctions()))
		gotExports := slices.DeleteFunc(slices.Sorted(maps.Keys(after.ExportedFunctions())),
			func(name string) bool { return name == bounds.StartExport })
		if !slices.Equal(wantExports, gotExports) {
			t.Fatalf("exported functions %v became %v", wantExports, gotExports)
		}
		if n, m := len(before.ImportedFunctions()), len(after.ImportedFunctions()); m != n+1 {
			t.Fatalf("%d imported functions became %d, want one more", n, m)
		}
	})
}

// TestInstrumentMalformedGlobals gives Instrument global sections that
// Check passes (it reads only their count) but that do not hold what they
// count: Instrument must refuse them, not read past the module's end.
func TestInstrumentMalformedGlobals(t *testing.T) {
	for _, tc := range []struct {
		name string
		body []byte
	}{
		{"no mutability", []byte{0x01, 0x7f}},                 // a type, no mutability
		{"no initializer", []byte{0x01, 0x7f, 0x00}},          // no initializer
		{"no end", []byte{0x01, 0x7f, 0x00, 0x41, 0x00}},      // an initializer without its end
		{"count", []byte{0x02, 0x7f, 0x00, 0x41, 0x00, 0x0b}}, // two counted, one there
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.body
			wasm := module(section(6, body))
			if _, err := bounds.Check(wasm, bounds.MaxTableElements); err != nil {
				t.Fatalf("global section %x: Check refuses it (%v); the test needs one it passes", body, err)
			}
			if _, err := bounds.Instrument(wasm); err == nil {
				t.Errorf("global section %x: instrumented without an error", body)
			}
		})
	}
}
