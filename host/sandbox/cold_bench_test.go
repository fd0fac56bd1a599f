package sandbox

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmcp/wasmcp/host/sandbox/sandboxtest"
	"github.com/wasmcp/wasmcp/internal/coldbench"
)

// BenchmarkColdCall measures the sandbox's call with cold caches and TLBs
// (internal/coldbench), against the native echo's work: one entry into the
// guest (wasmcp_alloc alone), the WAT example's get-sum (two entries and
// almost no guest code) under a caller's context of twelve levels, as a
// go-sdk request's is, and under context.Background, and the WAT and C
// examples' echo:
//
//	go test -run '^$' -bench ColdCall -benchtime 400x -count 3 ./host/sandbox/
//
// "quiet-deep" ÷ "quiet" near 1 says that the guest's context does not walk
// its caller's (budget.Value): wazero asks it for a value on every entry.
func BenchmarkColdCall(b *testing.B) {
	mods := sandboxtest.MustBuilt(b, "examples-wat", "examples-c")
	ctx := context.Background()
	opts := Options{Logger: slog.New(slog.DiscardHandler)}
	wat, err := Compile(ctx, "wat", mods["examples-wat"], opts)
	if err != nil {
		b.Fatal(err)
	}
	defer wat.Close(ctx)
	c, err := Compile(ctx, "c", mods["examples-c"], opts)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(ctx)
	in, err := wat.get(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer wat.put(ctx, in)
	inCtx := withInstance(ctx, in)

	deep := ctx
	for i := range 6 {
		var cancel context.CancelFunc
		deep, cancel = context.WithCancel(context.WithValue(deep, struct{ level int }{i}, i))
		defer cancel()
	}
	sum := json.RawMessage(`{"a":7,"b":5}`)
	args := json.RawMessage(`{"message":"hello from the wasmcp bench"}`)
	discard := func([]byte) error { return nil }
	call := func(m *Module, ctx context.Context, tool string, args []byte) func() {
		return func() {
			if err := m.CallRead(ctx, tool, args, nil, discard); err != nil {
				b.Fatal(err)
			}
		}
	}
	coldbench.Run(b,
		coldbench.NativeEcho(args),
		coldbench.Variant{Name: "entry", Call: func() {
			stack := in.stack[:1]
			stack[0] = api.EncodeU32(uint32(len(sum)))
			if err := in.allocFn.CallWithStack(inCtx, stack); err != nil {
				b.Fatal(err)
			}
		}},
		coldbench.Variant{Name: "quiet", Call: call(wat, ctx, "get-sum", sum)},
		coldbench.Variant{Name: "quiet-deep", Call: call(wat, deep, "get-sum", sum)},
		coldbench.Variant{Name: "wat-echo", Call: call(wat, ctx, "echo", args)},
		coldbench.Variant{Name: "c-echo", Call: call(c, ctx, "echo", args)},
	)
}
