package main

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func init() {
	experiments = append(experiments, experiment{"discovery", runDiscovery})
}

// dispatchedEcho is the echo call made through the discovery tool that
// calls a tool by name (abi.CallToolName).
var dispatchedEcho = &mcp.CallToolParams{Name: "wasmcp_call_tool",
	Arguments: map[string]any{"name": "echo", "arguments": map[string]any{"message": echoMessage}}}

// runDiscovery times tools/call round trips over stdio, one call in
// flight, from a go-sdk client of `wasmcp serve -discovery beside` with the
// C example: echo called through wasmcp_call_tool against echo called
// directly, in the same session, taking turns slice by slice. The ratio is
// of the p50 round trips.
func runDiscovery(ctx context.Context, e *env) ([]row, error) {
	calls := e.size(5000, 20)
	dir, err := e.pluginDir("discovery", "examples-c")
	if err != nil {
		return nil, err
	}
	r := row{name: "a call through the discovery tool ÷ the same direct call, C echo over stdio (p50 round trip)", floor: atMost(1.1)}
	for i := range e.opts.reps {
		via, direct, err := discoveryRep(ctx, e, i, dir, calls)
		if err != nil {
			return []row{r}, err
		}
		e.log.Info("discovery", "rep", i, "through wasmcp_call_tool p50", via, "direct p50", direct)
		r.add(float64(via), float64(direct), us(via), us(direct))
	}
	return []row{r}, nil
}

// discoveryRep returns the p50 round trips of echo through the call tool
// and directly, calls calls each, on a server started afresh.
func discoveryRep(ctx context.Context, e *env, i int, dir string, calls int) (via, direct time.Duration, err error) {
	cmd, err := e.wasmcpCmd(fmt.Sprintf("discovery-%d", i), "serve", "-dir", dir, "-cache-dir", e.codeCache, "-discovery", "beside")
	if err != nil {
		return 0, 0, err
	}
	cs, err := connectStdio(ctx, cmd, nil)
	if err != nil {
		return 0, 0, err
	}
	defer cs.Close()
	kinds := []func() error{
		func() error { return callDispatched(ctx, cs) },
		func() error { return callEcho(ctx, cs) },
	}
	lat := make([][]time.Duration, len(kinds))
	chunk := max(1, calls/stdioSlices)
	// Slice 0 warms up, as in the stdio experiment.
	for s := range stdioSlices + 1 {
		for j := range kinds {
			k := (j + s) % len(kinds)
			for range chunk {
				start := time.Now()
				if err := kinds[k](); err != nil {
					return 0, 0, err
				}
				if s > 0 {
					lat[k] = append(lat[k], time.Since(start))
				}
			}
		}
	}
	return percentile(lat[0], 50), percentile(lat[1], 50), nil
}

// callDispatched calls echo through the call tool and checks the answer.
func callDispatched(ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.CallTool(ctx, dispatchedEcho)
	if err != nil {
		return fmt.Errorf("echo through wasmcp_call_tool: %w", err)
	}
	if t, ok := res.Content[0].(*mcp.TextContent); res.IsError || !ok || t.Text != echoWant {
		return fmt.Errorf("echo through wasmcp_call_tool: unexpected result %+v", res)
	}
	return nil
}
