package main

import (
	"context"
	"fmt"
	"os/exec"
)

// runOAuth measures what verifying OAuth access tokens costs a busy server:
// the per-call time of the HTTP experiment's load on `wasmcp serve -http`
// with the C echo and -oauth-issuer, each client session presenting a JWT of
// its own (another subject) from an authorization server on loopback, over
// the per-call time of the same server with -token-file, every session
// presenting the one shared token. A token is verified on its first request
// and remembered; the sessions' warm-up makes those first requests, so the
// slices measure what every later request pays.
func runOAuth(ctx context.Context, e *env) ([]row, error) {
	// Twice the HTTP experiment's calls, in slices short enough that both
	// servers see the same load from the rest of the machine: the floor is
	// within 5%.
	clients, calls, slices := e.size(64, 4), e.size(12000, 40), e.size(12, 2)
	dir, err := e.pluginDir("oauth", "examples-c")
	if err != nil {
		return nil, err
	}
	is, err := startIssuer("mcp")
	if err != nil {
		return nil, err
	}
	defer is.close()
	tokenFile, static, err := e.staticToken("oauth")
	if err != nil {
		return nil, err
	}
	r := row{name: fmt.Sprintf("HTTP per-call time, %d go-sdk clients, C echo: a JWT access token per client (-oauth-issuer, RS256) ÷ one static token (-token-file)", clients),
		floor: atMost(1.05)}
	// The server's own CPU time says the same with less of the machine's
	// other load in it (clients and servers share the cores).
	cpu := row{name: "the same: the server's CPU time per call"}
	serve := func(name string, args ...string) func(addr string) (*exec.Cmd, error) {
		return func(addr string) (*exec.Cmd, error) {
			// -rate 0, as in the HTTP experiment.
			return e.wasmcpCmd(name, append([]string{"serve", "-dir", dir, "-cache-dir", e.codeCache,
				"-http", addr, "-rate", "0"}, args...)...)
		}
	}
	for i := range e.opts.reps {
		got, err := throughputsOf(ctx, load{clients: clients, calls: calls, slices: slices},
			launch{cmd: serve(fmt.Sprintf("oauth-jwt-%d", i), "-oauth-issuer", is.url), bearer: is.bearerFor("mcp")},
			launch{cmd: serve(fmt.Sprintf("oauth-static-%d", i), "-token-file", tokenFile), bearer: static})
		if err != nil {
			return []row{r, cpu}, err
		}
		jwt, shared := got[0], got[1]
		e.log.Info("oauth", "rep", i, "JWT calls/s", int(jwt.rate()), "static calls/s", int(shared.rate()),
			"JWT server CPU/call", jwt.cpuPerCall(), "static server CPU/call", shared.cpuPerCall())
		// Per-call time is the inverse of throughput.
		r.add(1/jwt.rate(), 1/shared.rate(), fmt.Sprintf("%.1f µs/call", 1e6/jwt.rate()), fmt.Sprintf("%.1f µs/call", 1e6/shared.rate()))
		if jwt.cpu > 0 && shared.cpu > 0 { // else too few calls for /proc's clock ticks (-quick)
			cpu.add(float64(jwt.cpuPerCall()), float64(shared.cpuPerCall()), us(jwt.cpuPerCall()), us(shared.cpuPerCall()))
		}
	}
	if len(cpu.reps) < len(r.reps) {
		return []row{r}, nil
	}
	return []row{r, cpu}, nil
}
