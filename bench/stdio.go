package main

import (
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioSlices is how many slices the calls of each server are cut into. The
// servers take turns slice by slice, so that a slow moment of the machine is
// shared by both instead of landing on one.
const stdioSlices = 10

// runStdio times tools/call round trips over stdio, one call in flight, from
// a go-sdk client: `wasmcp serve` with the C example's echo against the same
// echo written in Go on a go-sdk server over go-sdk's own stdio transport.
// Each repetition starts both servers afresh: a process keeps for its whole
// life what it drew at start (where its memory and threads landed).
func runStdio(ctx context.Context, e *env) ([]row, error) {
	calls := e.size(5000, 20)
	dir, err := e.pluginDir("stdio", "examples-c")
	if err != nil {
		return nil, err
	}
	r := row{name: "stdio round trip p50, wasmcp with the C echo ÷ native go-sdk echo", floor: atMost(2.0)}
	for i := range e.opts.reps {
		w, n, err := stdioRep(ctx, e, i, dir, calls)
		if err != nil {
			return []row{r}, err
		}
		e.log.Info("stdio", "rep", i, "wasmcp p50", w, "native p50", n)
		r.add(float64(w), float64(n), us(w), us(n))
	}
	return []row{r}, nil
}

// stdioRep returns the p50 round trip of wasmcp serving dir and of the
// native server, calls calls each.
func stdioRep(ctx context.Context, e *env, i int, dir string, calls int) (wasmcp, native time.Duration, err error) {
	wc, err := e.wasmcpCmd(fmt.Sprintf("stdio-wasmcp-%d", i), "serve", "-dir", dir, "-cache-dir", e.codeCache)
	if err != nil {
		return 0, 0, err
	}
	nc, err := e.nativeCmd(fmt.Sprintf("stdio-native-%d", i), roleStdio)
	if err != nil {
		return 0, 0, err
	}
	var sessions []*mcp.ClientSession
	defer func() {
		for _, cs := range sessions {
			cs.Close()
		}
	}()
	for _, cmd := range []*exec.Cmd{wc, nc} {
		cs, err := connectStdio(ctx, cmd, nil)
		if err != nil {
			return 0, 0, err
		}
		sessions = append(sessions, cs)
	}
	lat := make([][]time.Duration, len(sessions))
	chunk := max(1, calls/stdioSlices)
	// Slice 0 warms up: code paths and caches hot, instance pools filled.
	for s := range stdioSlices + 1 {
		for j := range sessions {
			k := (j + s) % len(sessions)
			for range chunk {
				start := time.Now()
				if err := callEcho(ctx, sessions[k]); err != nil {
					return 0, 0, fmt.Errorf("server %d: %w", k, err)
				}
				if s > 0 {
					lat[k] = append(lat[k], time.Since(start))
				}
			}
		}
	}
	return percentile(lat[0], 50), percentile(lat[1], 50), nil
}
