package bounds_test

import (
	"context"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/bounds"
)

// Check and Instrument read the binary format of bounds.Features, which
// the sandbox's runtime enables, and which are wazero's defaults. A wazero
// whose defaults change fails here: before the sandbox enables a new
// feature, code.go and types.go must read its instructions and sections
// (or refuse them), and cost.go follow what its frontend makes of them.
func TestFeatures(t *testing.T) {
	if bounds.Features != api.CoreFeaturesV2 {
		t.Errorf("bounds.Features = %s, wazero's defaults (api.CoreFeaturesV2) are %s", bounds.Features, api.CoreFeaturesV2)
	}
	memory := section(5, uleb(1), []byte{0, 1})
	// body is a module of one function () -> () with the body code, after
	// other sections of ids 4 to 9.
	body := func(code []byte, other ...[]byte) []byte { return funcs(other, cat(decl(), code, []byte{0x0b})) }
	probes := []struct {
		name    string
		wasm    []byte
		enabled bool
	}{
		{"SIMD", body(cat([]byte{0xfd, 0x0c}, make([]byte, 16), []byte{0x1a})), true},
		{"bulk memory", body([]byte{0x41, 0, 0x41, 0, 0x41, 0, 0xfc, 0x0b, 0}, memory), true},
		{"reference types", body([]byte{0xfc, 16, 0, 0x1a}, section(4, uleb(1), []byte{0x70, 0, 1})), true},
		{"sign extension", body([]byte{0x41, 0, 0xc0, 0x1a}), true},
		{"non-trapping conversions", body([]byte{0x43, 0, 0, 0, 0, 0xfc, 0, 0x1a}), true},
		{"multi-value", module(
			section(1, uleb(2), []byte{0x60, 0, 0}, []byte{0x60, 0, 2, 0x7f, 0x7f}),
			section(3, uleb(1), uleb(0)),
			section(10, uleb(1), uleb(11), cat(decl(), []byte{0x02, 1, 0x41, 0, 0x41, 0, 0x0b, 0x1a, 0x1a, 0x0b})),
		), true},
		{"tail calls", body([]byte{0x12, 0}), false},
		{"threads", body([]byte{0xfe, 3, 0}, memory), false},
		{"extended constants", module(section(6, uleb(1), []byte{0x7f, 0, 0x41, 1, 0x41, 2, 0x6a, 0x0b})), false},
		{"exception handling", module(section(1, uleb(1), []byte{0x60, 0, 0}), section(13, uleb(1), []byte{0, 0})), false},
		{"typed function references", body([]byte{0xd0, 0x70, 0xd4, 0x1a}), false},
		{"multiple memories", module(section(5, uleb(2), []byte{0, 1}, []byte{0, 1})), false},
		{"64-bit memory", module(section(5, uleb(1), []byte{4, 1})), false},
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx) // wazero's defaults
	defer rt.Close(ctx)
	for _, p := range probes {
		t.Run(p.name, func(t *testing.T) {
			compiled, err := rt.CompileModule(ctx, p.wasm)
			if (err == nil) != p.enabled {
				t.Errorf("%s: wazero's default runtime compiles it: %v (%v), want %v", p.name, err == nil, err, p.enabled)
			}
			if err == nil {
				_ = compiled.Close(ctx)
			}
			if !p.enabled {
				return
			}
			checked, err := bounds.Check(p.wasm, bounds.MaxTableElements)
			if err == nil {
				_, err = bounds.Instrument(checked)
			}
			if err != nil {
				t.Errorf("%s: %v", p.name, err)
			}
		})
	}
}
