package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpPatience bounds the wait for an HTTP server to serve echo.
const httpPatience = 60 * time.Second

// httpRounds is how many slices the calls of each row are cut into, the
// servers taking turns slice by slice (as in the stdio experiment).
const httpRounds = 3

// An httpServer is one server of the HTTP experiment, listening at url.
type httpServer struct {
	name string
	proc *proc
	url  string
}

// An httpCell is one server measured at one number of clients.
type httpCell struct {
	lat       []time.Duration
	wall      time.Duration
	cpu       time.Duration
	mem       benchMemDelta
	memOK     bool
	callsDone int
}

// add merges the measurements of another slice of calls into c.
func (c *httpCell) add(o httpCell) {
	c.lat = append(c.lat, o.lat...)
	c.wall += o.wall
	c.cpu += o.cpu
	c.mem.add(o.mem)
	c.memOK = o.memOK
	c.callsDone += o.callsDone
}

func runHTTP(ctx context.Context, e *env) (*section, error) {
	calls := e.n(4000)
	levels := []int{1, 8, 64}
	if e.opts.quick {
		levels = []int{1, 4}
	}
	s := &section{Title: "5. Streamable HTTP"}
	if has, err := wasmcpHasHTTP(ctx, e); err != nil {
		return nil, err
	} else if !has {
		s.Notes = append(s.Notes, "Not measured: `wasmcp serve` has no -http flag in this tree.")
		return s, nil
	}
	cWasm, err := e.cGuest()
	if err != nil {
		return nil, err
	}
	cDir, err := e.pluginDir("plugins-c", cWasm)
	if err != nil {
		return nil, err
	}

	var servers []*httpServer
	defer func() {
		for _, srv := range servers {
			srv.proc.close()
		}
	}()
	start := func(name string, mk func(addr string) (*proc, error)) error {
		addr, err := freeAddr()
		if err != nil {
			return err
		}
		p, err := mk(addr)
		if err != nil {
			return err
		}
		if err := p.cmd.Start(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		p.started()
		srv := &httpServer{name: name, proc: p, url: "http://" + addr + "/mcp"}
		servers = append(servers, srv)
		return waitForEcho(ctx, srv)
	}
	err = start("wasmcp, C echo", func(addr string) (*proc, error) {
		// -rate 0: the default per-session rate limit (100 calls/s) would
		// measure the limit, not the server.
		return e.wasmcpServer(ctx, "http-wasmcp-c", nil, "serve", "-dir", cDir, "-cache-dir", e.codeCache, "-http", addr, "-rate", "0")
	})
	if err == nil {
		err = start("native go-sdk echo", func(addr string) (*proc, error) {
			return e.benchServer("http-native", roleNative, httpEnv+"="+addr)
		})
	}
	if err == nil {
		err = start(fmt.Sprintf("native go-sdk echo, GOGC=%d as wasmcp serve", serveGOGC), func(addr string) (*proc, error) {
			return e.benchServer("http-native-gc", roleNative, httpEnv+"="+addr, serveGOGCEnv)
		})
	}
	if err != nil {
		return nil, err
	}
	if why := tsUnavailable(e); why != "" {
		s.Notes = append(s.Notes, "TypeScript baseline not measured: "+why)
	} else if err := start("TypeScript SDK echo", func(addr string) (*proc, error) {
		return e.newProc("http-ts", false, []string{httpEnv + "=" + addr, "WASMCP_BENCH_TS_SDK=" + tsSDK(e)},
			"node", filepath.Join(e.root, "bench", "testdata", "ts-echo-server.mjs"))
	}); err != nil {
		return nil, err
	}

	s.Intro = fmt.Sprintf("N concurrent clients (protocol %s, one session each) calling echo over Streamable HTTP as "+
		"fast as they can, %d calls per row shared among them; the servers take turns at each N, in %d slices. Two clients: raw "+
		"(pre-built request bodies, answers read but not decoded: the least client work, so that the server's capacity "+
		"shows) and go-sdk (its client, standalone SSE stream open, as a Go application would call). wasmcp runs with "+
		"-rate 0 (the default per-session limit of 100 calls/s would measure itself) and its other defaults (at most 8 "+
		"calls at once per plugin, 64 waiting). Clients and servers share the machine's cores, so throughput is the "+
		"system's; server CPU per call is the server's own.", e.opts.protocol, calls, httpRounds)
	t := table{Header: []string{"server", "client", "clients", "calls/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "server CPU µs/call", "server KB/call"}}
	rates := map[string]float64{}
	for _, c := range levels {
		for _, kind := range []string{"raw", "go-sdk"} {
			// The servers take turns, in httpRounds slices of the calls.
			cells := make([]httpCell, len(servers))
			for round := range httpRounds {
				for i := range servers {
					j := (i + round) % len(servers)
					srv := servers[j]
					e.log.Debug("http", "server", srv.name, "client", kind, "clients", c, "round", round)
					cell, err := measureHTTP(ctx, e, srv, kind, c, max(c, calls/httpRounds))
					if err != nil {
						return nil, fmt.Errorf("%s, %d %s clients: %w", srv.name, c, kind, err)
					}
					cells[j].add(cell)
				}
			}
			for i, srv := range servers {
				cell := cells[i]
				sm := summarize(cell.lat)
				rate := float64(cell.callsDone) / cell.wall.Seconds()
				key := fmt.Sprintf("%s/%s/%d", srv.proc.name, kind, c)
				rates[key] = rate
				kb := "—"
				if cell.memOK {
					kb = fmt.Sprintf("%.1f", float64(cell.mem.Bytes)/float64(cell.callsDone)/1024)
				}
				cpu := "—"
				if cell.cpu >= 100*time.Millisecond {
					cpu = fmt.Sprintf("%.0f", float64(cell.cpu)/float64(time.Microsecond)/float64(cell.callsDone))
				}
				t.Rows = append(t.Rows, []string{srv.name, kind, fmt.Sprint(c), fmt.Sprintf("%.0f", rate),
					ms(sm.P50), ms(sm.P90), ms(sm.P99), ms(sm.Max), cpu, kb})
				s.value(key+"/rate", rate)
			}
			e.log.Info("http", "client", kind, "clients", c)
		}
	}
	s.Tables = append(s.Tables, t)
	if e.opts.profile != "" {
		// The Go servers, at one raw client, CPU and allocations in separate
		// windows as in the stdio experiment.
		const profileClients = 1
		for _, srv := range servers[:2] {
			for _, what := range []string{"cpu", "allocs"} {
				e.log.Info("profiling", "server", srv.proc.name, "what", what)
				prefix := filepath.Join(e.opts.profile, srv.proc.name)
				if _, err := measureHTTP(ctx, e, srv, "raw", profileClients, max(calls, 5000), what, prefix); err != nil {
					return nil, err
				}
			}
		}
		s.Notes = append(s.Notes, fmt.Sprintf("Profiles in %s: http-wasmcp-c.* and http-native.*, one raw client, "+
			"read as those of the stdio experiment.", e.opts.profile))
	}
	top := levels[len(levels)-1]
	for _, kind := range []string{"raw", "go-sdk"} {
		rate := func(proc string) float64 { return rates[fmt.Sprintf("%s/%s/%d", proc, kind, top)] }
		s.addRatio("http-over-native-"+kind, fmt.Sprintf("HTTP throughput at %d %s clients, wasmcp ÷ native go-sdk", top, kind),
			rate("http-wasmcp-c"), rate("http-native"), "≥ 0.9", "calls/s")
		s.addRatio("http-over-native-gc-"+kind, fmt.Sprintf("HTTP throughput at %d %s clients, wasmcp ÷ native go-sdk with GOGC=%d", top, kind, serveGOGC),
			rate("http-wasmcp-c"), rate("http-native-gc"), "", "GC set alike")
		if r := rate("http-ts"); r > 0 {
			s.addRatio("http-over-ts-"+kind, fmt.Sprintf("HTTP throughput at %d %s clients, wasmcp ÷ TypeScript SDK", top, kind),
				rate("http-wasmcp-c"), r, "≥ 3", "calls/s")
		}
	}
	return s, nil
}

// An httpCaller makes calls of echo in one session.
type httpCaller struct {
	call  func() error
	close func()
}

// dialHTTP opens one session of the client kind ("go-sdk" or "raw") to srv.
func dialHTTP(ctx context.Context, e *env, kind string, hc *http.Client, srv *httpServer) (httpCaller, error) {
	if kind == "raw" {
		c, err := dialRawHTTP(ctx, hc, srv.url, e.opts.protocol)
		if err != nil {
			return httpCaller{}, err
		}
		params := fmt.Sprintf(`{"name":"echo","arguments":{"message":%q}}`, echoMessage)
		return httpCaller{func() error { return c.call(ctx, params) }, c.close}, nil
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "wasmcp-bench", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.url, HTTPClient: hc},
		&mcp.ClientSessionOptions{ProtocolVersion: e.opts.protocol})
	if err != nil {
		return httpCaller{}, err
	}
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": echoMessage}}
	return httpCaller{func() error {
		res, err := cs.CallTool(ctx, params)
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %+v", res.Content)
		}
		return err
	}, func() { cs.Close() }}, nil
}

// measureHTTP opens clients sessions of the client kind to srv and makes
// calls calls among them, timed. profile, if given, are the arguments of
// the control command begin that ask for a profile of the calls.
func measureHTTP(ctx context.Context, e *env, srv *httpServer, kind string, clients, calls int, profile ...string) (cell httpCell, err error) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4 * clients}}
	defer hc.CloseIdleConnections()
	sessions := make([]httpCaller, 0, clients)
	defer func() {
		for _, s := range sessions {
			s.close()
		}
	}()
	for range clients {
		s, err := dialHTTP(ctx, e, kind, hc, srv)
		if err != nil {
			return cell, err
		}
		sessions = append(sessions, s)
	}
	for _, s := range sessions { // warm up: connections open, pools filled
		for range 5 {
			if err := s.call(); err != nil {
				return cell, err
			}
		}
	}
	per := max(1, calls/clients)
	if err := srv.proc.begin(profile...); err != nil {
		return cell, err
	}
	cpuBefore, err := srv.proc.cpu()
	if err != nil {
		return cell, err
	}
	lats := make([][]time.Duration, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	start := time.Now()
	for i, s := range sessions {
		wg.Go(func() {
			lats[i] = make([]time.Duration, 0, per)
			for range per {
				t := time.Now()
				if err := s.call(); err != nil {
					errs[i] = err
					return
				}
				lats[i] = append(lats[i], time.Since(t))
			}
		})
	}
	wg.Wait()
	cell.wall = time.Since(start)
	cpuAfter, err := srv.proc.cpu()
	if err != nil {
		return cell, err
	}
	cell.cpu = cpuAfter - cpuBefore
	if cell.mem, cell.memOK, err = srv.proc.end(); err != nil {
		return cell, err
	}
	if err := errors.Join(errs...); err != nil {
		return cell, err
	}
	for _, l := range lats {
		cell.lat = append(cell.lat, l...)
	}
	cell.callsDone = len(cell.lat)
	return cell, nil
}

// waitForEcho waits until srv lists echo: a server may accept connections
// before its tools are loaded.
func waitForEcho(ctx context.Context, srv *httpServer) error {
	deadline := time.Now().Add(httpPatience)
	client := mcp.NewClient(&mcp.Implementation{Name: "wasmcp-bench", Version: "0"}, nil)
	for {
		err := func() error {
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.url, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
			if err != nil {
				return err
			}
			defer cs.Close()
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				return err
			}
			for _, t := range res.Tools {
				if t.Name == "echo" {
					return nil
				}
			}
			return errors.New("no echo tool yet")
		}()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%s at %s does not serve echo after %v: %w", srv.name, srv.url, httpPatience, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freeAddr returns a loopback address with a port free right now.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// wasmcpHasHTTP reports whether `wasmcp serve` offers -http.
func wasmcpHasHTTP(ctx context.Context, e *env) (bool, error) {
	bin, err := e.wasmcp(ctx)
	if err != nil {
		return false, err
	}
	// The usage text lists the flags; `serve -h` exits non-zero by design.
	out, _ := exec.CommandContext(ctx, bin, "serve", "-h").CombinedOutput()
	return strings.Contains(string(out), "-http"), nil
}

// tsSDK is where the TypeScript SDK of the end-to-end tests is installed.
func tsSDK(e *env) string {
	return filepath.Join(e.root, "e2e", "ts", "node_modules", "@modelcontextprotocol", "sdk")
}

// tsUnavailable says why the TypeScript baseline cannot run, or "".
func tsUnavailable(e *env) string {
	if _, err := exec.LookPath("node"); err != nil {
		return "node is not installed."
	}
	if _, err := os.Stat(filepath.Join(tsSDK(e), "package.json")); err != nil {
		return "the TypeScript SDK is not installed in e2e/ts (make deps installs it; the bench downloads nothing)."
	}
	return ""
}
