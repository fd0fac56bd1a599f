package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// roleExtism serves the tools of the Extism plugin at $extismPluginEnv
	// through the Extism Go SDK's host, on a go-sdk server over stdio.
	roleExtism      = "extism-stdio"
	extismPluginEnv = "WASMCP_BENCH_EXTISM_PLUGIN"

	// extismModule is the plugin both servers run: the AssemblyScript
	// hyper-mcp v1 plugin of examples/extism, cheap to instantiate.
	extismModule = "extism-as"
	// extismConcurrency is the calls in flight, the same for both servers.
	extismConcurrency = 4
	// extismDeadline is wasmcp's deadline on the looping call, and
	// extismClientWait how long the client waits for the Extism host.
	extismDeadline   = 500 * time.Millisecond
	extismClientWait = 2 * time.Second
)

// runExtism measures the same Extism plugin under wasmcp serve and under
// the Extism Go SDK's own host wrapped in a go-sdk server, both over stdio
// from a go-sdk client: the time per call at equal concurrency, and what
// becomes of a call that loops. The Extism host runs first, so that it is
// checked even while wasmcp cannot load the plugin.
func runExtism(ctx context.Context, e *env) ([]row, error) {
	plugin, err := e.module(extismModule)
	if err != nil {
		return nil, err
	}
	dir, err := e.pluginDir("extism", extismModule)
	if err != nil {
		return nil, err
	}
	policy := filepath.Join(e.work, "extism-policy.json")
	if err := os.WriteFile(policy, fmt.Appendf(nil, `{"plugins":{%q:{"timeout":%q}}}`, extismModule, extismDeadline), 0o644); err != nil {
		return nil, err
	}
	spin, err := extismHostSpin(ctx, e, plugin)
	if err != nil {
		return nil, fmt.Errorf("Extism host, looping call: %w", err)
	}
	e.log.Info("extism", "Extism host CPU-s/s after the client gave up on a looping call", spin)
	calls := e.size(4000, 40)
	perCall := row{name: fmt.Sprintf("Extism plugin (AssemblyScript, hyper-mcp v1) echo per call, %d in flight, wasmcp ÷ Extism Go SDK host on go-sdk",
		extismConcurrency), floor: atMost(1.0)}
	for i := range e.opts.reps {
		w, x, err := extismCallTimes(ctx, e, i, []string{"-config", policy, "-dir", dir}, plugin, calls)
		if err != nil {
			return []row{perCall}, err
		}
		e.log.Info("extism", "rep", i, "wasmcp per call", w, "Extism host per call", x)
		perCall.add(float64(w), float64(x), us(w), us(x))
	}

	stopped := row{name: fmt.Sprintf("looping Extism plugin: time to wasmcp's answer ÷ its %s deadline (the Extism Go SDK host, with no timeout_ms, still burns %.2f CPU-s/s after the client gave up at %s)",
		extismDeadline, spin, extismClientWait), floor: atMost(1.5)}
	for i := range e.opts.reps {
		d, err := wasmcpSpin(ctx, e, i, policy, dir)
		if err != nil {
			return []row{perCall, stopped}, fmt.Errorf("wasmcp, looping call: %w", err)
		}
		e.log.Info("extism", "rep", i, "wasmcp stopped the loop after", d)
		stopped.add(float64(d), float64(extismDeadline), ms(d), ms(extismDeadline))
	}
	return []row{perCall, stopped}, nil
}

// extismCallTimes starts wasmcp serve with serveArgs and the Extism host
// of plugin, and returns the time per as_echo call of each, calls calls
// made extismConcurrency at a time after a warm-up round. The servers take
// turns slice by slice (as in the stdio experiment), so that a slow moment
// of the machine is shared by both. The Extism host is checked first, so
// that it is known to work even while wasmcp cannot load the plugin.
func extismCallTimes(ctx context.Context, e *env, i int, serveArgs []string, plugin string, calls int) (wasmcp, host time.Duration, err error) {
	hs, _, err := extismConnect(ctx, e, fmt.Sprintf("extism-host-%d", i), nil, plugin)
	if err != nil {
		return 0, 0, fmt.Errorf("Extism host: %w", err)
	}
	defer hs.Close()
	ws, _, err := extismConnect(ctx, e, fmt.Sprintf("extism-wasmcp-%d", i), serveArgs, "")
	if err != nil {
		return 0, 0, fmt.Errorf("wasmcp: %w", err)
	}
	defer ws.Close()
	sessions := []*mcp.ClientSession{ws, hs}
	var total [2]time.Duration
	chunk := max(extismConcurrency, calls/stdioSlices)
	// Slice 0 warms up: code paths hot, instance pools filled.
	for s := range stdioSlices + 1 {
		for j := range sessions {
			k := (j + s) % len(sessions)
			d, err := concurrently(chunk, extismConcurrency, func() error { return callExtismEcho(ctx, sessions[k]) })
			if err != nil {
				return 0, 0, fmt.Errorf("%s: %w", []string{"wasmcp", "Extism host"}[k], err)
			}
			if s > 0 {
				total[k] += d
			}
		}
	}
	n := time.Duration(chunk * stdioSlices)
	return total[0] / n, total[1] / n, nil
}

// callExtismEcho calls as_echo in cs and checks the answer.
func callExtismEcho(ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "as_echo", Arguments: map[string]any{"text": echoMessage}})
	if err != nil {
		return err
	}
	if t, ok := res.Content[0].(*mcp.TextContent); res.IsError || !ok || t.Text != echoMessage {
		return fmt.Errorf("unexpected as_echo result %+v", res)
	}
	return nil
}

// extismConnect starts a server, wasmcp serve with serveArgs or the
// Extism host of plugin when serveArgs is nil, and connects to it,
// checking that it lists the plugin's tools. It returns the server's pid.
func extismConnect(ctx context.Context, e *env, name string, serveArgs []string, plugin string) (*mcp.ClientSession, int, error) {
	cmd, err := e.nativeCmd(name, roleExtism, extismPluginEnv+"="+plugin)
	if serveArgs != nil {
		// -wait-loaded: the plugin is listed at once, or not at all.
		cmd, err = e.wasmcpCmd(name, append([]string{"serve", "-wait-loaded", "-cache-dir", e.codeCache}, serveArgs...)...)
	}
	if err != nil {
		return nil, 0, err
	}
	cs, err := connectStdio(ctx, cmd, nil)
	if err != nil {
		return nil, 0, err
	}
	tools, err := cs.ListTools(ctx, nil)
	if err == nil && !hasTool(tools.Tools, "as_echo") {
		err = fmt.Errorf("the server lists no as_echo of %s.wasm", extismModule)
		if serveArgs != nil {
			err = fmt.Errorf("%w: this wasmcp does not load Extism modules (issue 25's host side); see %s",
				err, filepath.Join(e.work, "logs", name+".log"))
		}
	}
	if err != nil {
		cs.Close()
		return nil, 0, err
	}
	return cs, cmd.Process.Pid, nil
}

func hasTool(tools []*mcp.Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// wasmcpSpin calls as_spin under wasmcp serve, whose policy sets the
// plugin's deadline, and returns how long the answer took; it must be an
// error result.
func wasmcpSpin(ctx context.Context, e *env, i int, policy, dir string) (time.Duration, error) {
	cs, _, err := extismConnect(ctx, e, fmt.Sprintf("extism-wasmcp-spin-%d", i), []string{"-config", policy, "-dir", dir}, "")
	if err != nil {
		return 0, err
	}
	defer cs.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*extismDeadline)
	defer cancel()
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "as_spin", Arguments: map[string]any{}})
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("as_spin: %w", err)
	}
	if !res.IsError {
		return 0, fmt.Errorf("as_spin answered %+v, want an error result", res)
	}
	return d, nil
}

// extismHostSpin calls as_spin under the Extism host, gives up on the
// client side after extismClientWait, and returns the CPU time the server
// process spends per second of the second after that: about 1 while the
// loop goes on. The server is killed after.
func extismHostSpin(ctx context.Context, e *env, plugin string) (float64, error) {
	cs, pid, err := extismConnect(ctx, e, "extism-host-spin", nil, plugin)
	if err != nil {
		return 0, err
	}
	defer func() {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
		cs.Close()
	}()
	callCtx, cancel := context.WithTimeout(ctx, extismClientWait)
	defer cancel()
	if res, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "as_spin", Arguments: map[string]any{}}); err == nil {
		return 0, fmt.Errorf("as_spin answered %+v before the client's deadline", res)
	}
	before, err := cpuTime(pid)
	if err != nil {
		return 0, err
	}
	const window = time.Second
	time.Sleep(window)
	after, err := cpuTime(pid)
	if err != nil {
		return 0, err
	}
	return float64(after-before) / float64(window), nil
}

// cpuTime is the user and system time process pid has used, from
// /proc/PID/stat (Linux; USER_HZ is 100 on every Linux Go supports).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which is in parentheses: utime
	// and stime are the 12th and 13th of them.
	_, rest, ok := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, b)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / 100), nil
}

// serveExtism is the roleExtism server: the Extism host of the plugin at
// $extismPluginEnv, one pooled instance per call in flight, with Extism's
// defaults (no timeout_ms), on a go-sdk server over stdio.
func serveExtism(ctx context.Context) error {
	h, err := newExtismHost(ctx, os.Getenv(extismPluginEnv), extismOptions{instances: extismConcurrency})
	if err != nil {
		return err
	}
	s, err := extismServer(ctx, h)
	if err != nil {
		return err
	}
	// A looping call keeps its instance and goroutine for the life of the
	// process: the host does not close it.
	return s.Run(ctx, &mcp.StdioTransport{})
}
