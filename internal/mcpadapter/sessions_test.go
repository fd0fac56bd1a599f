package mcpadapter

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/oauth"
)

// serveOAuth serves a over HTTP as an OAuth resource server whose tokens
// name their principal: "Bearer SUBJECT" or "Bearer SUBJECT/CLIENT" (client
// "app" by default), as httpserve.RequireOAuth would put a verified one in
// each request's context.
func serveOAuth(t *testing.T, a *Adapter, opts HTTPOptions) string {
	t.Helper()
	opts.OAuth = &OAuth{ResourceMetadataURL: "http://127.0.0.1/.well-known/oauth-protected-resource/mcp"}
	h := a.HTTPHandler(opts)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		subject, client, _ := strings.Cut(token, "/")
		p := &oauth.Principal{Issuer: "https://as.example", Subject: subject, ClientID: cmp.Or(client, "app"), Expiry: time.Now().Add(time.Hour)}
		h.ServeHTTP(w, r.WithContext(oauth.WithPrincipal(r.Context(), p)))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// bearer adds a bearer token to every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// dialAs connects a go-sdk client to url with token; "" sends none.
func dialAs(t *testing.T, url, token string) *client {
	t.Helper()
	ct := &mcp.StreamableClientTransport{Endpoint: url}
	if token != "" {
		ct.HTTPClient = &http.Client{Transport: bearer(token)}
	}
	c := dial(t, ct, legacy)
	t.Cleanup(func() { c.Close() })
	return c
}

// open sends an initialize with token ("" for none) and returns its status
// and the session it opened.
func open(t *testing.T, url, token string) (status int, id string) {
	t.Helper()
	header := map[string]string{}
	if token != "" {
		header["Authorization"] = "Bearer " + token
	}
	resp := post(t, url, initializeBody, header)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
}

// pingStatus is the status of a ping in session id.
func pingStatus(t *testing.T, url, token, id string) int {
	t.Helper()
	header := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": legacy}
	if token != "" {
		header["Authorization"] = "Bearer " + token
	}
	return post(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, header).StatusCode
}

// waitClosed waits until session id is unknown: evicted sessions are
// closed in the background.
func waitClosed(t *testing.T, url, token, id string) {
	t.Helper()
	ctx := testContext(t)
	for pingStatus(t, url, token, id) != http.StatusNotFound {
		select {
		case <-ctx.Done():
			t.Fatalf("session %s was never closed", id)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// blockingHost serves "t", which answers at once, and "block", whose calls
// wait until the test releases them.
func blockingHost() (h *fakeHost, started <-chan struct{}, release func()) {
	h = echoHost("t", "block")
	start := make(chan struct{}, 100)
	done := make(chan struct{})
	h.call = func(ctx context.Context, req host.CallRequest) (*host.Result, error) {
		if req.Tool == "block" {
			start <- struct{}{}
			select {
			case <-done:
			case <-ctx.Done():
			}
		}
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text(req.Tool + " ran")}}}, nil
	}
	var once sync.Once
	return h, start, func() { once.Do(func() { close(done) }) }
}

// busy keeps c serving a call of block until release, and returns once
// the call is running.
func busy(t *testing.T, c *client, started <-chan struct{}) {
	t.Helper()
	go c.CallTool(context.Background(), &mcp.CallToolParams{Name: "block"})
	select {
	case <-started:
	case <-testContext(t).Done():
		t.Fatal("block never ran")
	}
}

// logLines collects an adapter's log lines, JSON-encoded.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// evictions returns the log lines of evicted sessions.
func (l *logLines) evictions(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(l.buf.Bytes()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		if m["reason"] != nil {
			out = append(out, m)
		}
	}
	return out
}

func loggedAdapter(t *testing.T, h Host, opts Options) (*Adapter, *logLines) {
	t.Helper()
	log := &logLines{}
	opts.Logger = slog.New(slog.NewJSONHandler(log, nil))
	a := New(h, opts)
	t.Cleanup(a.Close)
	return a, log
}

// A server holding --max-sessions idle sessions (a client that opened them
// and went on its way, or one that floods) takes a new client: the least
// recently used idle session is closed for it, though it holds an event
// stream open, and the stream ends. Its client gets 404 next, which tells
// it to start again; the session used since stays.
func TestHTTPFullServerClosesIdleSession(t *testing.T) {
	a, log := loggedAdapter(t, echoHost("t"), Options{})
	url := serveHTTP(t, a, HTTPOptions{MaxSessions: 2})
	_, oldest := open(t, url, "")
	req, _ := http.NewRequestWithContext(testContext(t), http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", oldest)
	req.Header.Set("Mcp-Protocol-Version", legacy)
	stream, err := http.DefaultClient.Do(req)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream of the oldest session: %v %v", stream, err)
	}
	defer stream.Body.Close()
	_, used := open(t, url, "")
	if s := pingStatus(t, url, "", used); s != http.StatusOK {
		t.Fatalf("ping: %d", s)
	}

	status, body := postRaw(t, url, initializeBody, nil)
	if status != http.StatusOK {
		t.Fatalf("initialize with the server full of idle sessions: %d %s, want 200", status, body)
	}
	waitClosed(t, url, "", oldest)
	if _, err := io.Copy(io.Discard, stream.Body); err != nil {
		t.Errorf("the closed session's event stream: %v", err)
	}
	if s := pingStatus(t, url, "", used); s != http.StatusOK {
		t.Errorf("the session used since: ping got %d, want 200", s)
	}
	lines := log.evictions(t)
	if len(lines) != 1 || lines[0]["session"] != oldest || lines[0]["reason"] != evictedServerFull || lines[0]["address"] == nil {
		t.Errorf("eviction log lines %v, want one of session %s, server_full, naming the address", lines, oldest)
	}
}

// A session serving a request is never closed to make room: when every
// session is busy, an initialize gets 503, and gets in once one is idle.
func TestHTTPFullServerOfBusySessions(t *testing.T) {
	h, started, release := blockingHost()
	defer release()
	a := New(h, Options{})
	defer a.Close()
	url := serveHTTP(t, a, HTTPOptions{MaxSessions: 2})
	for range 2 {
		busy(t, dialAs(t, url, ""), started)
	}
	status, body := postRaw(t, url, initializeBody, nil)
	if status != http.StatusServiceUnavailable || !strings.Contains(string(body), "too many sessions") ||
		!strings.Contains(string(body), "--max-sessions") {
		t.Errorf("initialize with every session busy: %d %s, want 503 saying too many sessions", status, body)
	}
	// A 2026-07-28 request opens no session and still passes.
	if _, err := dialHTTP(t, url, "").ListTools(testContext(t), nil); err != nil {
		t.Errorf("stateless request at the cap: %v", err)
	}
	release()
	ctx := testContext(t)
	for {
		status, _ := open(t, url, "")
		if status == http.StatusOK {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("initialize after the calls ended: %d", status)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// A session is known to be busy from its first request: a client that
// calls as soon as its initialize is answered is never closed for a new
// session in the middle of that call. (Recorded once the initialize's
// answer had gone, a session missed a call sent at once about one time in
// ten.)
func TestHTTPSessionBusyFromItsFirstRequest(t *testing.T) {
	for i := range 30 {
		h, started, release := blockingHost()
		a := New(h, Options{})
		url := serveHTTP(t, a, HTTPOptions{MaxSessions: 1})
		busy(t, dialAs(t, url, ""), started)
		status, _ := open(t, url, "")
		release()
		a.Close()
		if status != http.StatusServiceUnavailable {
			t.Fatalf("round %d: initialize with the one session busy: %d, want 503", i, status)
		}
	}
}

// One principal opening sessions in a loop cannot lock out another, nor
// close the sessions of another: past its own cap it closes its own least
// recently used idle session, and when the server is full the principal
// holding the most sessions loses one first.
func TestHTTPPrincipalCannotLockOutOthers(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	a, log := loggedAdapter(t, echoHost("t"), Options{MeterProvider: mp})
	url := serveOAuth(t, a, HTTPOptions{MaxSessions: 6, MaxPrincipalSessions: 3})
	ctx := testContext(t)
	alice := dialAs(t, url, "alice")
	var mallory []string
	for i := range 20 {
		status, id := open(t, url, "mallory")
		if status != http.StatusOK {
			t.Fatalf("mallory's session %d: %d", i+1, status)
		}
		mallory = append(mallory, id)
	}
	if res, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "t"}); err != nil || textOf(res) != "t ran" {
		t.Fatalf("alice's call after mallory's flood: %v, %v", res, err)
	}
	for _, id := range mallory[:17] {
		waitClosed(t, url, "mallory", id)
	}
	for _, id := range mallory[17:] {
		if s := pingStatus(t, url, "mallory", id); s != http.StatusOK {
			t.Errorf("one of mallory's last 3 sessions: ping got %d, want 200", s)
		}
	}

	// bob, carol and dave fill the server (alice 1, mallory 3, 2 more);
	// dave's makes room with a session of mallory's, who holds the most,
	// though alice's is older.
	for _, p := range []string{"bob", "carol", "dave"} {
		if status, _ := open(t, url, p); status != http.StatusOK {
			t.Fatalf("%s's session: %d", p, status)
		}
	}
	waitClosed(t, url, "mallory", mallory[17])
	if res, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "t"}); err != nil || textOf(res) != "t ran" {
		t.Errorf("alice's call once the server was full: %v, %v", res, err)
	}
	for _, l := range log.evictions(t) {
		if l["subject"] != "mallory" || l["client_id"] != "app" {
			t.Errorf("evicted a session that is not mallory's: %v", l)
		}
	}
	if n := len(log.evictions(t)); n != 18 {
		t.Errorf("%d evictions logged, want 18 (17 at mallory's cap, 1 at the server's)", n)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == "wasmcp.sessions.evicted" {
				for _, p := range m.Data.(metricdata.Sum[int64]).DataPoints {
					got[p.Attributes.Encoded(attribute.DefaultEncoder())] = p.Value
				}
			}
		}
	}
	if want := map[string]int64{"reason=principal_cap": 17, "reason=server_full": 1}; !maps.Equal(got, want) {
		t.Errorf("wasmcp.sessions.evicted = %v, want %v", got, want)
	}
}

// A principal whose sessions at its cap are all busy gets 429; others
// still get in.
func TestHTTPPrincipalCapOfBusySessions(t *testing.T) {
	h, started, release := blockingHost()
	defer release()
	a := New(h, Options{})
	defer a.Close()
	url := serveOAuth(t, a, HTTPOptions{MaxPrincipalSessions: 2})
	for range 2 {
		busy(t, dialAs(t, url, "mallory"), started)
	}
	status, body := postRaw(t, url, initializeBody, map[string]string{"Authorization": "Bearer mallory"})
	if status != http.StatusTooManyRequests || !strings.Contains(string(body), "--max-principal-sessions") {
		t.Errorf("initialize at the principal's cap, all busy: %d %s, want 429 naming the cap", status, body)
	}
	if status, _ := open(t, url, "bob"); status != http.StatusOK {
		t.Errorf("another principal: %d", status)
	}
}

// A principal's limits are its user's, whichever client acts for it: two
// clients of one subject share the host's caller (rate, calls in flight)
// and the sessions cap; another subject has its own.
func TestHTTPPrincipalLimitsBySubject(t *testing.T) {
	h := echoHost("t")
	var mu sync.Mutex
	callers := map[string]string{}
	h.call = func(_ context.Context, req host.CallRequest) (*host.Result, error) {
		mu.Lock()
		defer mu.Unlock()
		callers[fmt.Sprint(req.Principal.Subject, "/", req.Principal.ClientID)] = req.Caller
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("ok")}}}, nil
	}
	a, log := loggedAdapter(t, h, Options{})
	url := serveOAuth(t, a, HTTPOptions{MaxPrincipalSessions: 1})
	ctx := testContext(t)
	for _, token := range []string{"alice/desktop", "alice/ide", "bob/desktop"} {
		if _, err := dialAs(t, url, token).CallTool(ctx, &mcp.CallToolParams{Name: "t"}); err != nil {
			t.Fatalf("%s: %v", token, err)
		}
	}
	if callers["alice/desktop"] != callers["alice/ide"] || callers["alice/desktop"] == callers["bob/desktop"] {
		t.Errorf("callers %q: want alice's clients to share one, bob another", callers)
	}
	lines := log.evictions(t)
	if len(lines) != 1 || lines[0]["subject"] != "alice" || lines[0]["client_id"] != "desktop" || lines[0]["reason"] != evictedPrincipalCap {
		t.Errorf("evictions %v, want alice/desktop's session closed for alice/ide's", lines)
	}
}

func TestAddressKey(t *testing.T) {
	for _, tc := range []struct{ remote, want string }{
		{"192.0.2.7:4711", "192.0.2.7"},
		{"[::ffff:192.0.2.7]:4711", "192.0.2.7"},
		{"[2001:db8:1:2:3:4:5:6]:4711", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:1", "2001:db8:1:2::/64"},
		{"not an address", "not an address"},
	} {
		t.Run(tc.remote, func(t *testing.T) {
			if got := addressKey(tc.remote); got != tc.want {
				t.Errorf("addressKey(%q) = %q, want %q", tc.remote, got, tc.want)
			}
		})
	}
}
