// Package coldbench measures calls the way a server makes them between
// client requests: with the processor's caches and TLBs full of other
// work's memory.
//
// A stdio server spends most of a round trip waiting for its client, and on
// a virtual machine its vCPU is often idle and descheduled meanwhile, so
// each request starts cold. A hot benchmark loop then says little about
// what a request costs: on the 2-vCPU KVM guests these benchmarks run on,
// json.Unmarshal of a small object takes ~0.5 µs hot and ~16 µs cold, and a
// path's cold cost follows how many distinct cache lines and pages it
// touches rather than how many instructions it runs. Run measures that
// cost, so that changes to the call path can be judged by what a request
// pays.
//
// Before each timed call Run sweeps a buffer larger than the last-level
// cache, one load and store per cache line, which evicts the caches and the
// data TLB. The sweep does not evict the instruction TLB, so a call that
// follows one running the same code would look warmer than it is: the
// variants run in a new random order in every round, and each figure is the
// median over the rounds.
package coldbench

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/abi"
)

// sweepSize is larger than the last-level cache of the machines the
// benchmarks run on (32 MiB per CCX on the EPYC hosts seen), and its
// 16,384 pages are several times the entries of a second-level TLB.
const sweepSize = 64 << 20

// A Variant is one way of making the call being measured.
type Variant struct {
	// Name is the metric's prefix: its figures are reported as
	// Name-cold-µs and Name-hot-µs, and Name/base-cold.
	Name string
	// Call makes one call. It reports a failure through the benchmark
	// itself (b.Fatal), as it would in any benchmark loop.
	Call func()
}

// Run measures each variant b.N times cold, interleaved in random order,
// and 1,000 times hot in a loop after that. It reports each variant's
// median cold time, its mean hot time, and its cold median divided by that
// of variants[0], the baseline, measured in the same rounds.
func Run(b *testing.B, variants ...Variant) {
	b.Helper()
	if len(variants) == 0 {
		b.Fatal("coldbench.Run: no variants")
	}
	sweep := make([]byte, sweepSize)
	for _, v := range variants { // warm up: first calls may allocate or compile
		for range 50 {
			v.Call()
		}
	}
	cold := make([][]time.Duration, len(variants))
	b.ResetTimer()
	for range b.N {
		for _, i := range rand.Perm(len(variants)) {
			evict(sweep)
			start := time.Now()
			variants[i].Call()
			cold[i] = append(cold[i], time.Since(start))
		}
	}
	b.StopTimer()
	base := median(cold[0])
	for i, v := range variants {
		const hotCalls = 1000
		start := time.Now()
		for range hotCalls {
			v.Call()
		}
		hot := time.Since(start) / hotCalls
		m := median(cold[i])
		b.ReportMetric(micros(m), v.Name+"-cold-µs")
		b.ReportMetric(micros(hot), v.Name+"-hot-µs")
		if i > 0 {
			b.ReportMetric(float64(m)/float64(base), v.Name+"/"+variants[0].Name+"-cold")
		}
	}
	// An op is one cold call of every variant plus a sweep each; the
	// figures above are what it measures.
	b.ReportMetric(0, "ns/op")
}

// sink keeps the sweep's loads from being optimised away.
var sink byte

// evict touches every cache line of sweep.
func evict(sweep []byte) {
	var s byte
	for i := 0; i < len(sweep); i += 64 {
		sweep[i]++
		s += sweep[i]
	}
	sink += s
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func micros(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

// NativeEcho is the baseline of the echo benchmarks, named "native": what
// an echo written in Go does for a call, as bench/'s native go-sdk echo
// does it. It decodes args, {"message": ...}, into a struct with
// encoding/json and makes the result; it panics if args do not decode.
func NativeEcho(args json.RawMessage) Variant {
	return Variant{Name: "native", Call: func() {
		var a struct {
			Message string `json:"message"`
		}
		if err := json.Unmarshal(args, &a); err != nil {
			panic(err)
		}
		nativeResult = &abi.Result{Content: []abi.Content{abi.Text("Echo: " + a.Message)}, StructuredContent: json.RawMessage(`{}`)}
	}}
}

// nativeResult keeps NativeEcho's result from being optimised away.
var nativeResult *abi.Result
