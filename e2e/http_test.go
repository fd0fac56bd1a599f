package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bearer token of the HTTP servers of the tests, handed over in an
// environment variable as an operator would.
const (
	tokenEnv  = "WASMCP_E2E_TOKEN"
	testToken = "e2e-0123456789abcdef0123456789abcdef"
)

// servingURL finds the endpoint in the server's "serving over HTTP" line,
// in text or JSON log format.
var servingURL = regexp.MustCompile(`serving over HTTP"?[ ,]"?url"?[=:]"?(http://[^"\s]+)`)

// startHTTP starts cmd (a "wasmcp serve") with --http on a free loopback
// port and a token, and returns its endpoint once it serves, and a function
// that stops it: SIGTERM, after which it must exit 0 without having had to
// cut requests at the end of its grace period. The test's end stops it if
// the test did not.
func startHTTP(t *testing.T, cmd *exec.Cmd, log *lockedBuffer) (url string, stop func()) {
	t.Helper()
	url, stop, _ = startKillableHTTP(t, cmd, log)
	return url, stop
}

// startKillableHTTP is startHTTP that also returns kill, which ends the
// server with SIGKILL, as a crash would; stop does nothing after it.
func startKillableHTTP(t *testing.T, cmd *exec.Cmd, log *lockedBuffer) (url string, stop, kill func()) {
	t.Helper()
	cmd.Args = append(cmd.Args, "--token-env", tokenEnv)
	cmd.Env = append(os.Environ(), tokenEnv+"="+testToken)
	return launchHTTP(t, cmd, log)
}

// launchHTTP is startKillableHTTP without the token: cmd's own arguments
// say how clients authenticate (OAuth, in oauth_test.go).
func launchHTTP(t *testing.T, cmd *exec.Cmd, log *lockedBuffer) (url string, stop, kill func()) {
	t.Helper()
	cmd.Args = append(cmd.Args, "--http", "127.0.0.1:0")
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			if err := <-exited; err != nil {
				t.Errorf("server did not exit cleanly after SIGTERM: %v\n%s", err, log)
			}
			if strings.Contains(log.String(), "grace period") {
				t.Errorf("shutdown had to cut requests:\n%s", log)
			}
		})
	}
	kill = func() {
		once.Do(func() {
			cmd.Process.Kill()
			<-exited
		})
	}
	t.Cleanup(stop)
	ctx := testContext(t)
	for {
		if m := servingURL.FindStringSubmatch(log.String()); m != nil {
			return m[1], stop, kill
		}
		select {
		case err := <-exited:
			t.Fatalf("server exited before serving: %v\n%s", err, log)
		case <-ctx.Done():
			t.Fatalf("server never served:\n%s", log)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// connectHTTP runs cmd as an HTTP server and connects client to it.
func (s *server) connectHTTP(t *testing.T, client *mcp.Client, cmd *exec.Cmd, protocol string) {
	t.Helper()
	var stopped atomic.Bool
	url, stop := startHTTP(t, cmd, s.stderr)
	s.url, s.stop = url, func() { stopped.Store(true); stop() }
	cs, err := client.Connect(testContext(t), &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: bearerClient(testToken)},
		&mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connect to %s: %v\nserver log:\n%s", s.url, err, s.stderr)
	}
	s.ClientSession = cs
	t.Cleanup(func() {
		if err := cs.Close(); err != nil && !stopped.Load() {
			t.Errorf("close the session: %v", err)
		}
		if t.Failed() {
			t.Logf("server log:\n%s", s.stderr)
		}
	})
}

// bearerClient is an HTTP client that authenticates with token.
func bearerClient(token string) *http.Client {
	return &http.Client{Transport: bearerTransport{token}}
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// rawPost sends one JSON-RPC message as a Streamable HTTP client would, with
// the given extra headers ("Host" sets the Host header).
func rawPost(t *testing.T, url, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestHTTPGuards checks what stands in front of the MCP handler of a real
// server: the bearer token, the Origin check and the DNS-rebinding guard.
func TestHTTPGuards(t *testing.T) {
	s := startServer(t, servedCopy(t, wat("hello")), serverOptions{
		protocol: legacyProtocol, http: true, args: []string{"--allow-origin", "http://localhost:6274"},
	})
	auth := "Bearer " + testToken
	for _, tc := range []struct {
		name      string
		header    map[string]string
		status    int
		challenge string
	}{
		{"no token", nil, 401, `Bearer realm="wasmcp"`},
		{"wrong token", map[string]string{"Authorization": "Bearer wrong"}, 401, `Bearer realm="wasmcp", error="invalid_token"`},
		{"good token", map[string]string{"Authorization": auth}, 200, ""},
		{"cross-origin", map[string]string{"Authorization": auth, "Origin": "http://evil.example"}, 403, ""},
		{"cross-origin without token", map[string]string{"Origin": "http://evil.example"}, 403, ""},
		{"allowed origin", map[string]string{"Authorization": auth, "Origin": "http://localhost:6274"}, 200, ""},
		{"rebound Host", map[string]string{"Authorization": auth, "Host": "evil.example"}, 403, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := rawPost(t, s.url, initialize, tc.header)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != tc.challenge {
				t.Errorf("WWW-Authenticate = %q, want %q", got, tc.challenge)
			}
			if origin := tc.header["Origin"]; tc.status == 200 && origin != "" && resp.Header.Get("Access-Control-Allow-Origin") != origin {
				t.Errorf("allowed origin got no Access-Control-Allow-Origin")
			}
		})
	}
	// The client of startServer, with the token, works all along.
	if res := s.call(t, "hello", ``); res.IsError {
		t.Errorf("hello: %s", text(res))
	}
}

// TestHTTPStateless serves with --stateless: a 2025-11-25 client gets no
// session but can list and call; a 2026-07-28 client still hears of reloads.
func TestHTTPStateless(t *testing.T) {
	dir := servedCopy(t, wat("hostile"))
	modern := startServer(t, dir, serverOptions{http: true, args: []string{"--stateless"}})
	old := dial(t, modern.url, legacyProtocol)
	if id := old.ID(); id != "" {
		t.Errorf("a --stateless server gave a session id %q", id)
	}
	res, err := old.CallTool(testContext(t), &mcp.CallToolParams{Name: "ping"})
	if err != nil || text(res) != "pong" {
		t.Fatalf("2025-11-25 call: %v, %v", res, err)
	}
	copyFile(t, wat("hello"), filepath.Join(modern.dir, "hello.wasm"))
	modern.waitToolsChanged(t)
	if _, ok := modern.tools(t)["hello"]; !ok {
		t.Error("hello not listed after list_changed")
	}
}

// dial connects one more go-sdk client to the HTTP server at url.
func dial(t *testing.T, url, protocol string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "wasmcp-e2e-extra", Version: "1"}, nil).Connect(testContext(t),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: bearerClient(testToken)}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestAuditAndRateLimit reads the audit lines of a real server (JSON logs):
// every outcome the host can produce has its name, the session is the
// client's, and the rate limit refuses with a tool error.
func TestAuditAndRateLimit(t *testing.T) {
	s := startServer(t, servedCopy(t, wat("hostile"), wat("hello")), serverOptions{
		protocol: legacyProtocol,
		http:     true,
		args:     []string{"--timeout", "1s", "--memory", "2MiB", "--log-format", "json", "--tool-rate", "0.001"},
	})
	wantOK(t, s.call(t, "ping", `{}`))
	wantToolError(t, s.call(t, "spin", `{}`), "timed out")
	wantToolError(t, s.call(t, "bomb", `{}`), "memory")
	// One call per 1000s, burst 1: hello's second call is refused.
	wantOK(t, s.call(t, "hello", ``))
	wantToolError(t, s.call(t, "hello", ``), "rate limit exceeded for tool hello", "retry after")

	want := []string{"ping:ok", "spin:timeout", "bomb:memory", "hello:ok", "hello:rate_limited"}
	// The log arrives through a pipe: wait for the last line.
	ctx := testContext(t)
	for strings.Count(s.stderr.String(), `"component":"audit"`) < len(want) {
		select {
		case <-ctx.Done():
			t.Fatalf("audit lines missing:\n%s", s.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	var got []string
	for _, line := range strings.Split(s.stderr.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil || rec["component"] != "audit" {
			continue
		}
		got = append(got, rec["tool"].(string)+":"+rec["outcome"].(string))
		if rec["session"] != s.ID() || rec["plugin"] == "" || len(rec["sha256"].(string)) != 64 {
			t.Errorf("audit line %s: want session %q, a plugin and its sha256", line, s.ID())
		}
		if _, ok := rec["args"]; ok {
			t.Errorf("arguments logged without --log-args: %s", line)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("audit outcomes %v, want %v", got, want)
	}
}

// TestHTTPShutdownWithClients stops a server on SIGTERM while clients of
// both eras hold their event streams open (the GET stream of a session,
// and subscriptions/listen): it must exit 0 without waiting out its grace
// period for those streams.
func TestHTTPShutdownWithClients(t *testing.T) {
	log := &lockedBuffer{}
	cmd := exec.Command(binPath, "serve", "--dir", servedCopy(t, wat("hello")), "--cache-dir", cacheDir)
	url, stop := startHTTP(t, cmd, log)
	for _, protocol := range []string{legacyProtocol, ""} {
		cs := dial(t, url, protocol)
		if res, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: "hello"}); err != nil || res.IsError {
			t.Fatalf("hello over %s: %v, %v", protocol, res, err)
		}
	}
	stop()
	if !strings.Contains(log.String(), "stopping on signal") {
		t.Errorf("log does not say why it stopped:\n%s", log)
	}
}
