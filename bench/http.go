package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

// httpPatience bounds the wait for an HTTP server to serve echo.
const httpPatience = 60 * time.Second

// httpSlices is how many slices the calls of each server are cut into by
// default, the servers taking turns slice by slice (as in the stdio
// experiment).
const httpSlices = 3

// runHTTP measures the throughput of many go-sdk clients calling echo over
// Streamable HTTP as fast as they can: `wasmcp serve -http` with the C
// example against the same echo on go-sdk's own HTTP handler. Clients and
// servers share the machine's cores, so the throughput is the system's.
func runHTTP(ctx context.Context, e *env) ([]row, error) {
	clients, calls := e.size(64, 4), e.size(6000, 40)
	dir, err := e.pluginDir("http", "examples-c")
	if err != nil {
		return nil, err
	}
	r := row{name: fmt.Sprintf("HTTP throughput, %d go-sdk clients, wasmcp with the C echo ÷ native go-sdk echo", clients),
		floor: atLeast(0.8)}
	for i := range e.opts.reps {
		w, n, err := httpRep(ctx, e, i, dir, clients, calls)
		if err != nil {
			return []row{r}, err
		}
		e.log.Info("http", "rep", i, "wasmcp calls/s", int(w), "native calls/s", int(n))
		r.add(w, n, fmt.Sprintf("%.0f calls/s", w), fmt.Sprintf("%.0f calls/s", n))
	}
	return []row{r}, nil
}

// httpRep starts both servers afresh and returns their throughput, calls
// calls each among clients sessions.
func httpRep(ctx context.Context, e *env, i int, dir string, clients, calls int) (wasmcp, native float64, err error) {
	got, err := throughputs(ctx, clients, calls,
		launch{cmd: func(addr string) (*exec.Cmd, error) {
			// -rate 0: the default per-session rate limit would measure the
			// limit, not the server. Its other admission defaults stay.
			return e.wasmcpCmd(fmt.Sprintf("http-wasmcp-%d", i),
				"serve", "-dir", dir, "-cache-dir", e.codeCache, "-http", addr, "-rate", "0")
		}},
		launch{cmd: func(addr string) (*exec.Cmd, error) {
			return e.nativeCmd(fmt.Sprintf("http-native-%d", i), roleHTTP, addrEnv+"="+addr)
		}})
	if err != nil {
		return 0, 0, err
	}
	return got[0], got[1], nil
}

// A launch starts one HTTP server for a free loopback address, and says
// what its clients present.
type launch struct {
	cmd func(addr string) (*exec.Cmd, error)
	// bearer, when set, returns the access token that client session i
	// presents to the server at url (its MCP endpoint).
	bearer func(url string, i int) (string, error)
}

// throughputs starts the servers, opens clients sessions to each, and
// returns their throughput in calls per second, calls echo calls each, the
// servers taking turns slice by slice.
func throughputs(ctx context.Context, clients, calls int, servers ...launch) ([]float64, error) {
	runs, err := throughputsOf(ctx, load{clients: clients, calls: calls}, servers...)
	out := make([]float64, len(runs))
	for k, r := range runs {
		out[k] = r.rate()
	}
	return out, err
}

// A caller makes one call in a session and checks its answer.
type caller func(context.Context, *mcp.ClientSession) error

// A tally is how many calls a server answered in how long, and the CPU time
// its process used meanwhile (0 where /proc cannot tell).
type tally struct {
	calls int
	wall  time.Duration
	cpu   time.Duration
}

func (r tally) rate() float64 { return float64(r.calls) / r.wall.Seconds() }

// cpuPerCall is the server's CPU time per call.
func (r tally) cpuPerCall() time.Duration { return r.cpu / time.Duration(max(1, r.calls)) }

// A load is what the clients of throughputsOf do: clients sessions make
// calls calls of call (nil: echo) to each server, cut into slices (0:
// httpSlices).
type load struct {
	call           caller
	clients, calls int
	slices         int
}

// throughputsOf is throughputs with the load l, and returns the tallies.
func throughputsOf(ctx context.Context, l load, launches ...launch) ([]tally, error) {
	slices := cmp.Or(l.slices, httpSlices)
	var servers []*httpServer
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()
	for _, launch := range launches {
		s, err := startHTTP(ctx, launch, l.call)
		if err != nil {
			return nil, err
		}
		servers = append(servers, s)
		if err := s.open(ctx, l.clients); err != nil {
			return nil, err
		}
	}
	runs := make([]tally, len(servers))
	for s := range slices {
		for j := range servers {
			k := (j + s) % len(servers)
			pid := servers[k].cmd.Process.Pid
			cpu0, _ := processCPU(pid)
			n, d, err := servers[k].burst(ctx, l.calls/slices)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", servers[k].url, err)
			}
			cpu1, _ := processCPU(pid)
			runs[k].calls += n
			runs[k].wall += d
			runs[k].cpu += cpu1 - cpu0
		}
	}
	return runs, nil
}

// An httpServer is one server process listening at url, and the client
// sessions open to it.
type httpServer struct {
	cmd      *exec.Cmd
	url      string
	hc       *http.Client
	sessions []*mcp.ClientSession
	// call is the call the sessions make; nil is callEcho.
	call caller
	// bearer is the launch's, and tokens what each session presents.
	bearer func(url string, i int) (string, error)
	tokens []string
}

// do makes the server's call in cs.
func (s *httpServer) do(ctx context.Context, cs *mcp.ClientSession) error {
	if s.call == nil {
		return callEcho(ctx, cs)
	}
	return s.call(ctx, cs)
}

// startHTTP starts the server l launches for a free loopback address and
// waits until a session can make call there (nil: echo).
func startHTTP(ctx context.Context, l launch, call caller) (*httpServer, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cmd, err := l.cmd(addr)
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &httpServer{cmd: cmd, url: "http://" + addr + "/mcp", call: call, bearer: l.bearer}
	deadline := time.Now().Add(httpPatience)
	for {
		err := s.open(ctx, 1)
		if err == nil {
			return s, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			s.stop()
			return nil, fmt.Errorf("%s does not answer after %v: %w", s.url, httpPatience, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// open replaces the server's sessions with n new ones, each warmed up with a
// few calls: connections open, instance pools filled, tokens verified.
func (s *httpServer) open(ctx context.Context, n int) error {
	return s.openWith(ctx, n, nil)
}

// openWith is open with opts for the sessions' client.
func (s *httpServer) openWith(ctx context.Context, n int, opts *mcp.ClientOptions) error {
	s.closeSessions()
	s.hc = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4 * n}}
	client := mcp.NewClient(&mcp.Implementation{Name: "wasmcp-bench", Version: "0"}, opts)
	for i := range n {
		t := &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: s.hc, MaxRetries: -1}
		if s.bearer != nil {
			token, err := s.bearer(s.url, i)
			if err != nil {
				return err
			}
			s.tokens = append(s.tokens, token)
			t.OAuthHandler = heldToken{oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token, TokenType: "Bearer"})}
		}
		cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
		if err != nil {
			return err
		}
		s.sessions = append(s.sessions, cs)
		for range 5 {
			if err := s.do(ctx, cs); err != nil {
				return err
			}
		}
	}
	return nil
}

// heldToken is a go-sdk client's auth.OAuthHandler for a token it already
// holds: the transport puts it on every request, and a refusal is final.
type heldToken struct{ ts oauth2.TokenSource }

func (h heldToken) TokenSource(context.Context) (oauth2.TokenSource, error) { return h.ts, nil }

func (h heldToken) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	return fmt.Errorf("the server refused the token: %s", resp.Status)
}

// burst makes about calls calls among the sessions, all at once, and returns
// how many it made and how long they took together.
func (s *httpServer) burst(ctx context.Context, calls int) (int, time.Duration, error) {
	per := max(1, calls/len(s.sessions))
	errs := make([]error, len(s.sessions))
	var wg sync.WaitGroup
	start := time.Now()
	for i, cs := range s.sessions {
		wg.Go(func() {
			for range per {
				if errs[i] = s.do(ctx, cs); errs[i] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	return per * len(s.sessions), time.Since(start), errors.Join(errs...)
}

func (s *httpServer) closeSessions() {
	for _, cs := range s.sessions {
		cs.Close()
	}
	s.sessions = slices.Delete(s.sessions, 0, len(s.sessions))
	s.tokens = nil
	if s.hc != nil {
		s.hc.CloseIdleConnections()
	}
}

// stop ends the sessions and the process: SIGTERM, then SIGKILL if it has
// not exited within 10 s.
func (s *httpServer) stop() {
	s.closeSessions()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan struct{})
	go func() {
		_ = s.cmd.Wait()
		close(exited)
	}()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-exited
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
