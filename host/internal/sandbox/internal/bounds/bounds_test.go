package bounds_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/bounds"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
)

// uleb encodes v as an unsigned LEB128 number.
func uleb(v uint64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			c |= 0x80
		}
		b = append(b, c)
		if v == 0 {
			return b
		}
	}
}

// module is a module header followed by sections.
func module(sections ...[]byte) []byte {
	return append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Join(sections, nil)...)
}

// section encodes a section with its size.
func section(id byte, parts ...[]byte) []byte {
	body := bytes.Join(parts, nil)
	return append(append([]byte{id}, uleb(uint64(len(body)))...), body...)
}

// name is a length-prefixed string.
func name(s string) []byte { return append(uleb(uint64(len(s))), s...) }

// huge is the largest 32-bit count, 4294967295.
var huge = uleb(1<<32 - 1)

// oneFunc declares one function of type () -> () whose body is body.
func oneFunc(body []byte) []byte {
	return module(
		section(1, uleb(1), []byte{0x60, 0, 0}),
		section(3, uleb(1), uleb(0)),
		section(10, uleb(1), uleb(uint64(len(body))), body),
	)
}

// locals is a function body declaring groups of n i32 locals.
func locals(n ...uint64) []byte {
	body := uleb(uint64(len(n)))
	for _, c := range n {
		body = append(append(body, uleb(c)...), 0x7f)
	}
	return append(body, 0x0b)
}

func TestCheckRefuses(t *testing.T) {
	manyFuncs := func(n int, perFunc uint64) []byte {
		var codes []byte
		types := make([]byte, 0, n)
		for range n {
			body := locals(perFunc)
			codes = append(append(codes, uleb(uint64(len(body)))...), body...)
			types = append(types, 0)
		}
		return module(
			section(1, uleb(1), []byte{0x60, 0, 0}),
			section(3, uleb(uint64(n)), types),
			section(10, uleb(uint64(n)), codes),
		)
	}
	tests := []struct {
		name string
		wasm []byte
		want string
	}{
		// Found by FuzzCompile: wazero allocated 7 GB for these 17 bytes.
		{"section past the end", []byte("\x00asm\x01\x00\x00\x00\av\xf6\xf6\xf6ioy"),
			"export section at offset 8: length 118: unexpected end at offset 10: 118 bytes needed, 6 left"},
		{"exports", module(section(7, huge)), "export section at offset 8: count 4294967295 at offset 10: not enough bytes (0)"},
		{"functions", module(section(3, huge, []byte{0})), "function section at offset 8: count 4294967295"},
		{"globals", module(section(6, huge)), "global section at offset 8: count 4294967295"},
		{"tables", module(section(4, huge)), "table section at offset 8: count 4294967295"},
		{"table size", module(section(4, uleb(1), []byte{0x70, 0}, uleb(bounds.MaxTableElements+1))),
			"table section at offset 8: entry 0: tables of more than 10000000 elements in all"},
		{"table sizes", module(section(4, uleb(2), []byte{0x70, 0}, uleb(bounds.MaxTableElements), []byte{0x6f, 1}, uleb(1), uleb(1))),
			"table section at offset 8: entry 1: tables of more than 10000000 elements in all"},
		{"initialized table", module(section(4, uleb(1), []byte{0x40, 0, 0x64, 0x70, 0}, uleb(1<<27), []byte{0xd2, 0, 0x0b})),
			"entry 0: tables of more than 10000000 elements in all"},
		{"import name", module(section(2, uleb(1), huge, []byte("env"))), "import section at offset 8: entry 0: name: length 4294967295"},
		{"table import", module(section(2, uleb(2), name("m"), name("f"), []byte{0}, uleb(0), name("m"), name("t"), []byte{1, 0x70, 0}, uleb(1))),
			"import section at offset 8: entry 1: import m.t: table imports are not provided"},
		{"two table sections", module(section(4, uleb(0)), section(4, uleb(0))), "table section at offset 11: a second table section"},
		{"export name", module(section(7, uleb(1), huge, []byte{0, 0})), "export section at offset 8: entry 0: name: length 4294967295"},
		{"parameters", module(section(1, uleb(1), []byte{0x60}, huge, []byte{0x7f})), "type section at offset 8: entry 0: count 4294967295"},
		{"recursion group", module(section(1, uleb(1), []byte{0x4e}, huge)), "type section at offset 8: entry 0: count 4294967295"},
		{"locals", oneFunc(locals(1<<32 - 1)), "code section at offset 18: entry 0: more than 50000 locals"},
		{"locals summed", oneFunc(locals(30000, 30000)), "more than 50000 locals"},
		{"locals of the module", manyFuncs(100, bounds.MaxFunctionLocals), "code section at offset 117: entry 1: the module declares more than 50821 locals in all (its size plus 50000)"},
		{"code size", module(section(10, uleb(1), huge)), "code section at offset 8: entry 0: length 4294967295"},
		{"data", module(section(11, uleb(1), uleb(1), huge)), "data section at offset 8: entry 0: count 4294967295"},
		{"active data", module(section(11, uleb(1), uleb(0), []byte{0x41, 0x0b, 0x0b}, huge)), "data section at offset 8: entry 0: count 4294967295"},
		{"element functions", module(section(9, uleb(1), uleb(1), []byte{0}, huge)), "element section at offset 8: entry 0: count 4294967295"},
		{"element expressions", module(section(9, uleb(1), uleb(5), []byte{0x70}, huge)), "element section at offset 8: entry 0: count 4294967295"},
		{"custom section", module([]byte{0}, huge, name("x")), "custom section at offset 8: length 4294967295"},
		{"function names", module(section(0, name("name"), section(1, huge))), "custom section at offset 8: name subsection 1: count 4294967295"},
		{"local names", module(section(0, name("name"), section(2, uleb(1), uleb(0), huge))),
			"custom section at offset 8: name subsection 2: entry 0: count 4294967295"},
		{"name subsection", module(section(0, name("name"), []byte{1}, huge)), "name subsection 1: length 4294967295"},
		{"name subsection left over", module(section(0, name("name"), section(0, name("m"), []byte{0}))), "name subsection 0: 1 bytes left over"},
		{"unknown constant", module(section(11, uleb(1), uleb(0), []byte{0x6a, 0x0b}, uleb(0))), "constant expression opcode 0x6a"},
		{"long number", module(section(6, uleb(1), []byte{0x7f, 0, 0x41, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x0b})), ""},
		{"32 bits", module(section(7, []byte{0x80, 0x80, 0x80, 0x80, 0x10})), "does not fit in 32 bits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := bounds.Check(tt.wasm, bounds.MaxTableElements)
			if tt.want == "" {
				// Left to wazero: nothing in this section allocates by a size.
				if err != nil {
					t.Errorf("Check = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestCheckAccepts(t *testing.T) {
	for name, wasm := range map[string][]byte{
		"empty module":    module(),
		"not WebAssembly": []byte("not wasm"),
		"most locals":     oneFunc(locals(bounds.MaxFunctionLocals/2, bounds.MaxFunctionLocals/2)),
		"largest tables": module(section(4, uleb(3),
			[]byte{0x70, 0}, uleb(bounds.MaxTableElements-2),
			[]byte{0x6f, 1}, uleb(1), uleb(1<<32-1), // the maximum does not count
			[]byte{0x40, 0, 0x70, 0}, uleb(1), []byte{0xd0, 0x70, 0x0b},
		)),
		"other custom":    module(section(0, name("producers"), []byte{0xff, 0xff, 0xff})),
		"unknown section": module(section(42, huge)),
		"all element forms": module(section(9, uleb(8),
			[]byte{0, 0x41, 0, 0x0b}, uleb(1), uleb(0), // active, table 0, function indexes
			[]byte{1, 0}, uleb(1), uleb(0), // passive
			[]byte{2}, uleb(1), []byte{0x23, 0, 0x0b, 0}, uleb(0), // active, table 1
			[]byte{3, 0}, uleb(0), // declarative
			[]byte{4, 0x41, 0, 0x0b}, uleb(1), []byte{0xd2, 0, 0x0b}, // expressions
			[]byte{5, 0x70}, uleb(1), []byte{0xd0, 0x70, 0x0b},
			[]byte{6}, uleb(0), []byte{0x41, 0, 0x0b, 0x6f}, uleb(1), []byte{0xd0, 0x6f, 0x0b},
			[]byte{7, 0x63, 0x70}, uleb(1), []byte{0xd0, 0x00, 0x0b}, // (ref null func), ref.null of type 0
		)),
		"constants": module(section(6, uleb(4),
			[]byte{0x7e, 0, 0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x0b},
			[]byte{0x7c, 1, 0x44, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x0b},
			[]byte{0x7d, 0, 0x43, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b}, // 0x0b inside an f32
			append([]byte{0x7b, 0, 0xfd, 0x0c}, append(make([]byte, 16), 0x0b)...),
		)),
		"imports": module(section(2, uleb(3),
			name("m"), name("f"), []byte{0}, uleb(0),
			name("m"), name("mem"), []byte{2, 0}, uleb(1),
			name("m"), name("g"), []byte{3, 0x64, 0x70, 1},
		)),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := bounds.Check(wasm, bounds.MaxTableElements); err != nil {
				t.Errorf("%s: Check = %v", name, err)
			}
		})
	}
}

// Modules written by wat2wasm with names, as compilers write them: every
// guest of the sandbox tests passes.
func TestCheckTestGuests(t *testing.T) {
	mods, err := sandboxtest.ReadDir("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	for name, wasm := range mods {
		t.Run(name, func(t *testing.T) {
			if _, err := bounds.Check(wasm, bounds.MaxTableElements); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			// Every prefix of a valid module is refused or left to wazero,
			// never read past its end.
			for n := range wasm {
				_, _ = bounds.Check(wasm[:n], bounds.MaxTableElements)
			}
		})
	}
}
