// Command soak runs many hostile tool calls against one wasmcp host and
// reports the goroutines and memory of the process before and after, to show
// that misbehaving guests leave nothing behind.
//
// Usage, from bench/ (the bench module):
//
//	go run ./soak [-n 10000] [-workers 4] [-timeout 1s]
//
// The plugins are host/testdata/hostile.wat (stack exhaustion, log floods,
// an endless loop, a memory bomb, and a well-behaved tool) and
// host/testdata/echo.wat (their committed .wasm, or built with wat2wasm when
// the program starts), loaded through the public host API. Calls
// are drawn from a fixed mix by a seeded generator, so two runs make the
// same calls. Every call must end as its tool predicts (a tool error for a
// hostile tool, an answer for the others) and the figures after must be
// within generous bounds of those before: at most 10 more goroutines, and a
// live heap at most twice as large plus 64 MiB. The figures are printed,
// not timed: the exit status says only whether the bounds held.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	var o Options
	flag.IntVar(&o.Calls, "n", 10000, "number of calls")
	flag.IntVar(&o.Workers, "workers", 4, "calls made at once")
	flag.DurationVar(&o.Timeout, "timeout", time.Second, "deadline of one call (the endless loop runs this long)")
	flag.Parse()
	f, err := Soak(context.Background(), o, os.Stdout)
	if err == nil {
		err = f.Flat()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}
