package plugin

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/sandbox"
	"github.com/wasmcp/wasmcp/host/sandbox/sandboxtest"
	"github.com/wasmcp/wasmcp/internal/coldbench"
)

// BenchmarkColdStages takes a call of the WAT example's echo apart, each
// stage with cold caches and TLBs (internal/coldbench), against the native
// echo's work (encoding/json into a struct, and a result): validating the
// arguments, the sandbox's call (the guest's two exports, and its debug log
// line), decoding the result document, and all of Call. The WAT guest does
// almost nothing itself, so that what is measured is the host's:
//
//	go test -run '^$' -bench ColdStages -benchtime 600x -count 3 ./host/plugin/
//
// "sandbox-quiet" calls get-sum, which logs nothing, beside "sandbox"'s
// echo: their difference is what the log line costs the host.
func BenchmarkColdStages(b *testing.B) {
	mods := sandboxtest.MustBuilt(b, "examples-wat")
	ctx := context.Background()
	p, err := Load(ctx, "plugins/examples-wat.wasm", mods["examples-wat"], Options{Sandbox: sandbox.Options{Logger: slog.New(slog.DiscardHandler)}})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close(ctx)
	args := json.RawMessage(`{"message":"hello from the wasmcp bench"}`)
	sum := json.RawMessage(`{"a":7,"b":5}`)
	var doc []byte
	if err := p.mod.CallRead(ctx, "echo", args, nil, func(d []byte) error { doc = append([]byte(nil), d...); return nil }); err != nil {
		b.Fatal(err)
	}
	echo := p.byName["echo"]
	discard := func([]byte) error { return nil }
	coldbench.Run(b,
		coldbench.NativeEcho(args),
		coldbench.Variant{Name: "validate", Call: func() {
			if err := echo.input.Validate(args); err != nil {
				b.Fatal(err)
			}
		}},
		coldbench.Variant{Name: "sandbox", Call: func() {
			if err := p.mod.CallRead(ctx, "echo", args, nil, discard); err != nil {
				b.Fatal(err)
			}
		}},
		coldbench.Variant{Name: "sandbox-quiet", Call: func() {
			if err := p.mod.CallRead(ctx, "get-sum", sum, nil, discard); err != nil {
				b.Fatal(err)
			}
		}},
		coldbench.Variant{Name: "decode", Call: func() {
			var r abi.Result
			if err := decodeResult(doc, &r); err != nil {
				b.Fatal(err)
			}
			complete(&r, "echo")
		}},
		coldbench.Variant{Name: "call", Call: func() {
			if r, err := p.Call(ctx, "echo", args, nil); err != nil || r.IsError {
				b.Fatal(r, err)
			}
		}},
	)
}
