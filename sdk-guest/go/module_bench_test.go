package wasmcp_test

import (
	"os"
	"testing"
	"time"
)

// benchEcho is the call bench/deadline.go times as "Go guest: echo".
const benchEcho = `{"message":"hello from the wasmcp bench"}`

// BenchmarkEchoModule times the echo tool of examples/go/everything, built
// with this SDK, per call through the ABI under wazero: what a host pays for
// the SDK's fixed cost per call. A baseline takes turns with it in the same
// run, and new/old is the ratio of their times per call. The baseline is the
// module named by WASMCP_BENCH_BASELINE (the same example built with another
// revision of the SDK, say), or else the new module's wasmcp_abi_version
// export, the floor of any call through wazero.
func BenchmarkEchoModule(b *testing.B) {
	newMod := newGuest(b, buildModule(b, "../../examples/go/everything"))
	mods := []*guestModule{newMod}
	callNew := func() { newMod.document(b, "echo", benchEcho) }
	callOld := func() { newMod.call(b, "wasmcp_abi_version") }
	if path := os.Getenv("WASMCP_BENCH_BASELINE"); path != "" {
		wasm, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		oldMod := newGuest(b, wasm)
		mods = append(mods, oldMod)
		callOld = func() { oldMod.document(b, "echo", benchEcho) }
	}
	const block = 32 // calls timed together, to keep the clock's cost out
	timeBlock := func(call func()) time.Duration {
		start := time.Now()
		for range block {
			call()
		}
		return time.Since(start)
	}
	var tNew, tOld time.Duration
	for i := 0; b.Loop(); i++ {
		// The order alternates so that neither always runs after a
		// collection triggered by the other.
		if i%2 == 0 {
			tNew += timeBlock(callNew)
			tOld += timeBlock(callOld)
		} else {
			tOld += timeBlock(callOld)
			tNew += timeBlock(callNew)
		}
		for _, m := range mods {
			m.logs = m.logs[:0] // echo logs a line per call
		}
	}
	calls := float64(b.N * block)
	b.ReportMetric(float64(tNew.Nanoseconds())/calls, "ns/new")
	b.ReportMetric(float64(tOld.Nanoseconds())/calls, "ns/old")
	b.ReportMetric(float64(tNew)/float64(tOld), "new/old")
}
