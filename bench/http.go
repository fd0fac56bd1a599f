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

	s.Intro = fmt.Sprintf("N concurrent go-sdk clients (protocol %s, one session each, standalone SSE stream open) "+
		"calling echo over Streamable HTTP as fast as they can, %d calls per row shared among the clients; the servers "+
		"take turns at each N. wasmcp runs with -rate 0 (the default per-session limit of 100 calls/s would measure "+
		"itself) and its other defaults (at most 8 calls at once per plugin, 64 waiting). The clients share the bench "+
		"process and its cores with the servers, so throughput is the system's, not the server's alone; server CPU per "+
		"call is the server's.", e.opts.protocol, calls)
	t := table{Header: []string{"server", "clients", "calls/s", "p50 ms", "p90 ms", "p99 ms", "server CPU µs/call", "server KB/call"}}
	rates := map[string]float64{}
	for _, c := range levels {
		for _, srv := range servers {
			e.log.Info("http", "server", srv.name, "clients", c)
			cell, err := measureHTTP(ctx, e, srv, c, calls)
			if err != nil {
				return nil, fmt.Errorf("%s, %d clients: %w", srv.name, c, err)
			}
			sm := summarize(cell.lat)
			rate := float64(cell.callsDone) / cell.wall.Seconds()
			rates[fmt.Sprintf("%s/%d", srv.proc.name, c)] = rate
			kb := "—"
			if cell.memOK {
				kb = fmt.Sprintf("%.1f", float64(cell.mem.Bytes)/float64(cell.callsDone)/1024)
			}
			cpu := "—"
			if cell.cpu >= 100*time.Millisecond {
				cpu = fmt.Sprintf("%.0f", float64(cell.cpu)/float64(time.Microsecond)/float64(cell.callsDone))
			}
			t.Rows = append(t.Rows, []string{srv.name, fmt.Sprint(c), fmt.Sprintf("%.0f", rate),
				ms(sm.P50), ms(sm.P90), ms(sm.P99), cpu, kb})
			s.value(fmt.Sprintf("%s/%d/rate", srv.proc.name, c), rate)
		}
	}
	s.Tables = append(s.Tables, t)
	top := levels[len(levels)-1]
	s.addRatio("http-over-native", fmt.Sprintf("HTTP throughput at %d clients, wasmcp ÷ native go-sdk", top),
		rates[fmt.Sprintf("http-wasmcp-c/%d", top)], rates[fmt.Sprintf("http-native/%d", top)], "≥ 0.9", "calls/s")
	if r, ok := rates[fmt.Sprintf("http-ts/%d", top)]; ok {
		s.addRatio("http-over-ts", fmt.Sprintf("HTTP throughput at %d clients, wasmcp ÷ TypeScript SDK", top),
			rates[fmt.Sprintf("http-wasmcp-c/%d", top)], r, "≥ 3", "calls/s")
	}
	return s, nil
}

// measureHTTP connects clients sessions to srv and makes calls calls among
// them, timed.
func measureHTTP(ctx context.Context, e *env, srv *httpServer, clients, calls int) (cell httpCell, err error) {
	httpClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4 * clients, MaxConnsPerHost: 0}}
	defer httpClient.CloseIdleConnections()
	sessions := make([]*mcp.ClientSession, clients)
	defer func() {
		for _, cs := range sessions {
			if cs != nil {
				cs.Close()
			}
		}
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "wasmcp-bench", Version: "0"}, nil)
	for i := range sessions {
		sessions[i], err = client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.url, HTTPClient: httpClient},
			&mcp.ClientSessionOptions{ProtocolVersion: e.opts.protocol})
		if err != nil {
			return cell, err
		}
	}
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": echoMessage}}
	call := func(cs *mcp.ClientSession) error {
		res, err := cs.CallTool(ctx, params)
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %+v", res.Content)
		}
		return err
	}
	for _, cs := range sessions { // warm up: connections open, pools filled
		for range 5 {
			if err := call(cs); err != nil {
				return cell, err
			}
		}
	}
	per := max(1, calls/clients)
	if err := srv.proc.begin(); err != nil {
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
	for i, cs := range sessions {
		wg.Go(func() {
			lats[i] = make([]time.Duration, 0, per)
			for range per {
				t := time.Now()
				if err := call(cs); err != nil {
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
