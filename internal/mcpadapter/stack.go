package mcpadapter

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
