package sandbox_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
)

// tableGrower asks for 2^32-16 table elements (32 GiB) in _initialize, and
// in each call for 2^31-1 (16 GiB), 2^32-16 again and then 1000 of a table
// that declares it may grow without bound, and for 1 of a table that
// declares no maximum. The call returns what each table.grow returned and
// the first table's size after them, as six little-endian i32s.
const tableGrower = `(module
  (memory (export "memory") 1)
  (table $t 1 0xffffffff funcref)
  (table $fixed 1 funcref)
  (global $init (mut i32) (i32.const 0))
  (func (export "_initialize")
    (global.set $init (table.grow $t (ref.null func) (i32.const 0xfffffff0))))
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "wasmcp_describe") (result i64) (i64.const 0))
  (func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64)
    (i32.store (i32.const 64) (global.get $init))
    (i32.store (i32.const 68) (table.grow $t (ref.null func) (i32.const 0x7fffffff)))
    (i32.store (i32.const 72) (table.grow $t (ref.null func) (i32.const 0xfffffff0)))
    (i32.store (i32.const 76) (table.grow $t (ref.null func) (i32.const 1000)))
    (i32.store (i32.const 80) (table.size $t))
    (i32.store (i32.const 84) (table.grow $fixed (ref.null func) (i32.const 1)))
    (i64.const 0x4000000018)))` // region [64, 88)

// A guest growing its table by billions of elements gets -1, as the
// specification allows when a table cannot grow, and can go on; a grow
// within bounds still succeeds, but for a table that declares no maximum.
// Without the maxima that bounds.Check writes into the module, the grow in
// _initialize ends the test process with "fatal error: out of memory".
func TestTableGrowCapped(t *testing.T) {
	wasm := sandboxtest.Wat2Wasm(t, []byte(tableGrower))
	m, err := newRuntime(t).Compile(testContext(t), "grower", wasm, sandbox.Options{Limits: smallLimits})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(testContext(t))
	out, err := sandbox.CallOutput(testContext(t), m, "grow", []byte(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 24 {
		t.Fatalf("call returned %d bytes, want 24", len(out))
	}
	var got [6]int32
	for i := range got {
		got[i] = int32(binary.LittleEndian.Uint32(out[4*i:]))
	}
	if want := [6]int32{-1, -1, -1, 1, 1001, -1}; got != want {
		t.Errorf("table.grow returned %d in _initialize, %d, %d and %d in the call; size %d; %d for the fixed table. Want %d",
			got[0], got[1], got[2], got[3], got[4], got[5], want)
	}
}

// No host module exports a table: a module importing one is refused by
// name, before wazero compiles it.
func TestTableImportRefused(t *testing.T) {
	wasm := sandboxtest.Wat2Wasm(t, []byte(`(module
  (import "wasmcp" "table" (table 1 funcref))
  (memory (export "memory") 1)
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "wasmcp_describe") (result i64) (i64.const 0))
  (func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64) (i64.const 0)))`))
	m, err := newRuntime(t).Compile(testContext(t), "importer", wasm, sandbox.Options{Limits: smallLimits})
	if err == nil {
		_ = m.Close(testContext(t))
		t.Fatal("Compile succeeded")
	}
	const want = "compile importer: invalid or oversized module: import section at offset "
	if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), ": import wasmcp.table: table imports are not provided") {
		t.Errorf("err = %q", err)
	}
}

// The guest modules `make plugins` builds (Go, C, Rust, AssemblyScript,
// WAT), whose tables now have maxima, load and answer every one of their
// tools. examples/crosslang_test.go and the end-to-end tests load every
// module and check what the tools answer.
func TestBuiltGuests(t *testing.T) {
	mods := sandboxtest.MustBuilt(t)
	for _, name := range sandboxtest.Representative(mods) {
		t.Run(name, func(t *testing.T) {
			m, err := newRuntime(t).Compile(testContext(t), name, mods[name], sandbox.Options{Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close(testContext(t))
			doc, err := m.List(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			var described struct{ Tools []struct{ Name string } }
			if err := json.Unmarshal(doc, &described); err != nil {
				t.Fatalf("describe document: %v", err)
			}
			if len(described.Tools) == 0 {
				t.Fatal("no tools")
			}
			for _, tool := range described.Tools {
				// Whatever the tool thinks of empty arguments, it answers
				// with a document.
				out, err := sandbox.CallOutput(testContext(t), m, tool.Name, []byte(`{}`), nil)
				if err != nil {
					t.Errorf("%s: %v", tool.Name, err)
				} else if !json.Valid(out) {
					t.Errorf("%s returned %.100q, not JSON", tool.Name, out)
				}
			}
		})
	}
}

// dwarfSections are the custom sections of a DWARF 4 compile unit,
// "guest.c", that maps every code offset from 1 to 2^20 to line 42, as a
// compiler's -g would.
func dwarfSections() []byte {
	le32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	join := func(parts ...[]byte) []byte { return slices.Concat(parts...) }
	unit := func(body []byte) []byte { return join(le32(uint32(len(body))), body) }
	custom := func(name string, body []byte) []byte {
		payload := join([]byte{byte(len(name))}, []byte(name), body)
		return join([]byte{0}, binary.AppendUvarint(nil, uint64(len(payload))), payload)
	}
	abbrev := []byte{
		1, 0x11, 0, // abbreviation 1: compile unit, no children
		0x03, 0x08, // name, string
		0x10, 0x17, // stmt_list, sec_offset
		0x11, 0x01, // low_pc, addr
		0x12, 0x06, // high_pc, data4 (an offset from low_pc)
		0, 0, 0,
	}
	info := unit(join(
		[]byte{4, 0}, le32(0), []byte{4}, // version 4, abbreviations at 0, 4-byte addresses
		[]byte{1}, []byte("guest.c\x00"), le32(0), le32(1), le32(1<<20),
	))
	header := join(
		[]byte{1, 1, 1, 0xfb, 14, 13},              // instruction length, ops, is_stmt, line base -5, line range, opcode base
		[]byte{0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1}, // standard opcode lengths
		[]byte{0},                                         // no include directories
		[]byte("guest.c\x00"), []byte{0, 0, 0}, []byte{0}, // one file
	)
	program := join(
		[]byte{0, 5, 2}, le32(1), // set_address 1
		[]byte{3, 41},               // advance_line to 42
		[]byte{1},                   // copy
		[]byte{2, 0x80, 0x80, 0x40}, // advance_pc 2^20
		[]byte{0, 1, 1},             // end_sequence
	)
	line := unit(join([]byte{4, 0}, le32(uint32(len(header))), header, program))
	return join(custom(".debug_abbrev", abbrev), custom(".debug_info", info), custom(".debug_line", line))
}

// The guest's DWARF sections are not parsed: a trap's error, down to
// wazero's stack trace, names no source line of them.
func TestDWARFIgnored(t *testing.T) {
	wasm := slices.Concat(guest(t, "guest"), dwarfSections())
	m, err := newRuntime(t).Compile(testContext(t), "dwarf", wasm, sandbox.Options{Limits: smallLimits})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(testContext(t))
	_, err = sandbox.CallOutput(testContext(t), m, "trap", []byte(`{}`), nil)
	if !errors.Is(err, sandbox.ErrTrap) || err.Error() != "trapped: unreachable" {
		t.Fatalf("err = %v, want ErrTrap %q", err, "trapped: unreachable")
	}
	for _, e := range errorTree(err) {
		if strings.Contains(e.Error(), "guest.c") {
			t.Errorf("error %q: source lines from the guest's DWARF", e)
		}
	}
}

// errorTree is err and every error it wraps.
func errorTree(err error) []error {
	errs := []error{err}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if w := u.Unwrap(); w != nil {
			errs = append(errs, errorTree(w)...)
		}
	case interface{ Unwrap() []error }:
		for _, w := range u.Unwrap() {
			errs = append(errs, errorTree(w)...)
		}
	}
	return errs
}
