package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
)

// Noisy neighbour: a cheap tool called at a steady rate while another
// plugin's calls loop until their deadline.
const (
	noisyRate     = 200 // echo calls per second
	spinTimeout   = time.Second
	spinTolerance = 100 * time.Millisecond // how late a looping call may be stopped
)

// runNoisy measures the echo's p99 latency over stdio, called at noisyRate
// from a go-sdk client, with 2 × GOMAXPROCS calls of another plugin looping
// at their deadline ÷ the same with nothing else running, in one server and
// one session, as a client driving both tools would. Over stdio the idle
// baseline is what a real client sees, with no HTTP stack of the bench's
// own in it. It also checks that no echo call failed and that every looping
// call was stopped at its deadline.
func runNoisy(ctx context.Context, e *env) ([]row, error) {
	spinners := 2 * runtime.NumCPU() // the server's GOMAXPROCS on this machine
	window := time.Duration(e.size(4, 1)) * time.Second
	dir, err := e.pluginDir("noisy", "examples-c")
	if err != nil {
		return nil, err
	}
	spin, err := generateGuestCalling([]abi.Tool{{Name: "spin", InputSchema: json.RawMessage(`{"type":"object"}`)}}, "", loopForever)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "spinner.wasm"), spin, 0o644); err != nil {
		return nil, err
	}
	policy := filepath.Join(dir, "..", "noisy-policy.json")
	if err := os.WriteFile(policy, fmt.Appendf(nil, `{"plugins":{"spinner":{"timeout":%q}}}`, spinTimeout), 0o644); err != nil {
		return nil, err
	}
	r := row{name: fmt.Sprintf("noisy neighbour: echo p99 at %d calls/s over stdio with %d calls of another plugin looping to their %s deadline ÷ idle",
		noisyRate, spinners, spinTimeout), floor: atMost(3)}
	late := row{name: fmt.Sprintf("the same: the looping calls' latest answer after their deadline ÷ %s", spinTolerance), floor: atMost(1)}
	for i := range e.opts.reps {
		cmd, err := e.wasmcpCmd(fmt.Sprintf("noisy-%d", i), "serve", "-dir", dir, "-cache-dir", e.codeCache, "-config", policy)
		if err != nil {
			return []row{r}, err
		}
		cs, err := connectStdio(ctx, cmd, nil)
		if err != nil {
			return []row{r}, err
		}
		idle, noisy, over, err := noisyRep(ctx, cs, spinners, window)
		cs.Close()
		if err != nil {
			return []row{r, late}, err
		}
		e.log.Info("noisy", "rep", i, "idle p99", idle, "noisy p99", noisy, "latest stop after the deadline", over)
		r.add(float64(noisy), float64(idle), us(noisy), us(idle))
		late.add(float64(over), float64(spinTolerance), ms(over), ms(spinTolerance))
	}
	return []row{r, late}, nil
}

// noisyRep returns the echo's p99 idle and with spinners looping calls, and
// how late after its deadline the latest looping call was answered. An echo
// call that fails, or a looping one answered before its deadline or without
// an error, fails it.
func noisyRep(ctx context.Context, cs *mcp.ClientSession, spinners int, window time.Duration) (idle, noisy, over time.Duration, err error) {
	// Warm: the echo's instance pool and code paths, as in a session in use.
	if _, err = paced(ctx, cs, window/4); err != nil {
		return 0, 0, 0, err
	}
	if idle, err = paced(ctx, cs, window); err != nil {
		return 0, 0, 0, err
	}
	var stop atomic.Bool
	var mu sync.Mutex
	var problems []string
	var wg sync.WaitGroup
	for range spinners {
		wg.Go(func() {
			for !stop.Load() {
				start := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "spin", Arguments: map[string]any{}})
				took := time.Since(start)
				mu.Lock()
				switch {
				case err != nil:
					problems = append(problems, fmt.Sprintf("spin: %v", err))
				case !res.IsError:
					problems = append(problems, "spin returned without error")
				case took < spinTimeout:
					problems = append(problems, fmt.Sprintf("spin stopped after %s, before its %s deadline", took, spinTimeout))
				default:
					over = max(over, took-spinTimeout)
				}
				mu.Unlock()
			}
		})
	}
	time.Sleep(spinTimeout / 2) // every spinner is looping
	noisy, err = paced(ctx, cs, window)
	stop.Store(true)
	wg.Wait()
	if err == nil && len(problems) > 0 {
		err = fmt.Errorf("%d problems, the first: %s", len(problems), problems[0])
	}
	return idle, noisy, over, err
}

// paced calls echo at noisyRate for window and returns the p99 latency.
func paced(ctx context.Context, cs *mcp.ClientSession, window time.Duration) (time.Duration, error) {
	tick := time.NewTicker(time.Second / noisyRate)
	defer tick.Stop()
	var lat []time.Duration
	for end := time.Now().Add(window); time.Now().Before(end); {
		<-tick.C
		start := time.Now()
		if err := callEcho(ctx, cs); err != nil {
			return 0, fmt.Errorf("echo under load: %w", err)
		}
		lat = append(lat, time.Since(start))
	}
	return percentile(lat, 99), nil
}
