package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runLarge sends one large argument and gets one large result back: the C
// example's echo of a message of 10 MB through `wasmcp serve` over stdio,
// with -max-input and -max-output raised to let it through. It reports the
// time per MB against the same call at 1 MB (linear time gives 1), the
// server's peak RSS (VmHWM) over the calls, and its RSS after them against
// before, each rep in a fresh server (VmHWM only grows).
func runLarge(ctx context.Context, e *env) ([]row, error) {
	big, small := e.size(10_000_000, 200_000), e.size(1_000_000, 20_000)
	samples := e.size(3, 1)
	// How long the server's memory may take to come back down.
	settle := time.Duration(e.size(10, 1)) * time.Second
	dir, err := e.pluginDir("large", "examples-c")
	if err != nil {
		return nil, err
	}
	limit := fmt.Sprintf("%dMiB", 2*big>>20+1)
	linear := row{name: fmt.Sprintf("echo (C guest) of a %s argument into a %s result through wasmcp serve (stdio): time per MB ÷ the same at %s",
		size(big), size(big), size(small)), floor: atMost(1.5)}
	peak := row{name: fmt.Sprintf("the same: the server's peak RSS growth (VmHWM − RSS before) ÷ the %s argument and result", size(2*big))}
	after := row{name: "the same: the server's RSS after the calls ÷ before them", floor: atMost(1.25)}
	for rep := range e.opts.reps {
		cmd, err := e.wasmcpCmd(fmt.Sprintf("large-%d", rep), "serve", "-dir", dir, "-cache-dir", e.codeCache,
			"-max-input", limit, "-max-output", limit)
		if err != nil {
			return nil, err
		}
		cs, err := connectStdio(ctx, cmd, nil)
		if err != nil {
			return nil, err
		}
		m, err := largeRep(ctx, cs, cmd.Process.Pid, big, small, samples, settle)
		cs.Close()
		if err != nil {
			return []row{linear, peak, after}, err
		}
		e.log.Info("large", "rep", rep, "per MB", m.perMB, "per MB small", m.perMBSmall,
			"RSS before", mib(m.before), "peak", mib(m.peak), "after", mib(m.after), "settled in", m.settled)
		linear.add(float64(m.perMB), float64(m.perMBSmall), ms(m.perMB)+"/MB", ms(m.perMBSmall)+"/MB")
		peak.add(float64(m.peak-m.before), float64(2*big), fmt.Sprintf("%s (peak %s)", size(int(m.peak-m.before)), mib(m.peak)), size(2*big))
		after.add(float64(m.after), float64(m.before), fmt.Sprintf("%s %s after", mib(m.after), m.settled.Round(100*time.Millisecond)), mib(m.before))
	}
	return []row{linear, peak, after}, nil
}

// largeMeasure is what one repetition of runLarge measured.
type largeMeasure struct {
	perMB, perMBSmall   time.Duration
	before, peak, after int64
	settled             time.Duration // how long after the calls after was read
}

// largeRep warms the server of cs (process pid) up with small calls and
// one of small bytes, then times samples calls of big bytes and of small
// bytes in turn, and follows the server's memory.
func largeRep(ctx context.Context, cs *mcp.ClientSession, pid, big, small, samples int, settle time.Duration) (largeMeasure, error) {
	var m largeMeasure
	for range 3 {
		if err := callEcho(ctx, cs); err != nil {
			return m, err
		}
	}
	smallMsg, bigMsg := strings.Repeat("x", small), strings.Repeat("y", big)
	if err := echoLarge(ctx, cs, smallMsg); err != nil {
		return m, err
	}
	var err error
	if m.before, _, err = memory(pid); err != nil {
		return m, err
	}
	d, err := sampleAlternately(samples, [2]func() error{
		func() error { return echoLarge(ctx, cs, bigMsg) },
		func() error { return echoLarge(ctx, cs, smallMsg) },
	})
	if err != nil {
		return m, err
	}
	m.perMB = d[0] * 1e6 / time.Duration(big)
	m.perMBSmall = d[1] * 1e6 / time.Duration(small)
	if _, m.peak, err = memory(pid); err != nil {
		return m, err
	}
	// The runtime gives memory back to the system gradually: wait for the
	// RSS to come within a quarter of its level before, up to settle.
	start := time.Now()
	for {
		if m.after, _, err = memory(pid); err != nil {
			return m, err
		}
		if m.settled = time.Since(start); m.after <= m.before*5/4 || m.settled >= settle {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	return m, nil
}

// echoLarge calls echo with msg and checks that the answer holds all of it.
func echoLarge(ctx context.Context, cs *mcp.ClientSession, msg string) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": msg}})
	if err != nil {
		return err
	}
	if text := resultText(res); res.IsError || len(text) != len("Echo: ")+len(msg) {
		return fmt.Errorf("echo of %d bytes: error %v, %d bytes back: %.200s", len(msg), res.IsError, len(text), text)
	}
	return nil
}
