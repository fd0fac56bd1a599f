package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/abi"
)

// BenchmarkUpdate measures the two swaps a large tool set sees, with
// plugins of ten tools that have the kind of schema real tools have: the
// first load of every plugin in one Update, and the replacement of one
// plugin (a hot reload) in a registry holding all of them. Each is timed at
// 1,000 and at 10,000 tools in the same loop, and reported as a growth: the
// first load's time per tool at 10,000 over that at 1,000 (1 when linear),
// and a swap's time at 10,000 over that at 1,000 (10 when linear in the
// size of the registry, which every swap rebuilds; 100 would be quadratic).
func BenchmarkUpdate(b *testing.B) {
	const perPlugin = 10
	plugins := func(n, version int) []*fake {
		out := make([]*fake, n)
		for i := range out {
			tools := make([]abi.Tool, perPlugin)
			for k := range tools {
				tools[k] = abi.Tool{
					Name:        fmt.Sprintf("p%05d_t%02d", i, k),
					Description: "Looks a message up and returns a fixed answer.",
					InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","maxLength":4096},` +
						`"mode":{"type":"string","enum":["fast","thorough"]}},"required":["message"]}`),
				}
			}
			out[i] = newFake(fmt.Sprintf("p%05d", i), version, tools...)
		}
		return out
	}
	// run loads n plugins into a new registry, then replaces one of them
	// swaps times, and returns the time of the load and of one swap.
	run := func(n, swaps int) (load, swap time.Duration) {
		r := New[*fake](Options{Logger: slog.New(slog.DiscardHandler)})
		defer r.Close(context.Background())
		all := plugins(n, 1)
		next := plugins(1, 2)
		start := time.Now()
		if _, err := r.Update(all, nil); err != nil {
			b.Fatal(err)
		}
		load = time.Since(start)
		start = time.Now()
		for range swaps {
			if _, err := r.Update(next, nil); err != nil {
				b.Fatal(err)
			}
		}
		return load, time.Since(start) / time.Duration(swaps)
	}
	var load1k, load10k, swap1k, swap10k time.Duration
	for b.Loop() {
		l, s := run(100, 20)
		load1k, swap1k = load1k+l, swap1k+s
		l, s = run(1000, 20)
		load10k, swap10k = load10k+l, swap10k+s
	}
	n := float64(b.N)
	b.ReportMetric(float64(load10k.Microseconds())/1000/n, "ms/load-10k-tools")
	b.ReportMetric(float64(swap10k.Microseconds())/1000/n, "ms/swap-10k-tools")
	b.ReportMetric(float64(load10k)/float64(load1k)/10, "load-growth")
	b.ReportMetric(float64(swap10k)/float64(swap1k), "swap-growth")
}
