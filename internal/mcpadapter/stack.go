package mcpadapter

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callStack is the frame growStack makes room for: the runtime doubles a
// goroutine's stack until the frame fits, from 8 KB to 16 KB, where the C
// example's echo, schema validation and sandbox included, runs without
// growing it again. Without it the stack overflows in wazero's call into
// the guest (callEngine.callWithStack), or earlier in jsonschema's
// validator for a schema without a plan.
const callStack = 8 << 10

// frameIndex is read, never written, by growStack, so that the compiler
// cannot tell which byte of the frame it reads and must keep the frame.
var frameIndex int

// growStack makes the runtime grow the calling goroutine's stack, once, to
// fit a callStack frame more. go-sdk runs each request on a new goroutine,
// whose stack starts small; the host's call path (schema validation, the
// sandbox) is deep, and without this the stack would grow on the way down,
// copying and adjusting every frame above the point where it ran out, once
// or twice a call. Grown here, while the stack is shallow, it is copied once
// with few frames (CockroachDB's growstack does the same). In
// BenchmarkStdioCall's profile of the C echo, the time spent growing stacks
// fell from ~11 µs a call to ~4 µs, and the round trip took 0.88 of the
// time (median of 10 interleaved runs).
//
//go:noinline
func growStack() byte {
	var frame [callStack]byte
	return frame[frameIndex]
}

// growStackForCalls grows the stack of every tools/call request as the
// outermost receiving middleware: the shallowest point of go-sdk's
// per-request goroutine that wasmcp reaches, four frames down rather than
// the tool handler's ten, and growing copies and adjusts every frame above:
// in the stdio server's profile of the C echo, stack growth fell from ~4.4
// to ~3.0 µs a call against growing it in the handler.
func growStackForCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			_ = growStack()
		}
		return next(ctx, method, req)
	}
}
