package mcpadapter

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/mcpadapter/internal/wire"
)

// serveHTTP serves a over HTTP on a loopback port and returns the endpoint.
func serveHTTP(t *testing.T, a *Adapter, opts HTTPOptions) string {
	t.Helper()
	srv := httptest.NewServer(a.HTTPHandler(opts))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// dialHTTP connects a go-sdk client to url; it is closed when the test ends.
func dialHTTP(t *testing.T, url, protocolVersion string) *client {
	t.Helper()
	c := dial(t, &mcp.StreamableClientTransport{Endpoint: url}, protocolVersion)
	t.Cleanup(func() { c.Close() })
	return c
}

func echoHost(names ...string) *fakeHost {
	h := &fakeHost{}
	for _, n := range names {
		h.tools = append(h.tools, tool(n, `{"type":"object"}`))
	}
	h.call = func(_ context.Context, req host.CallRequest) (*host.Result, error) {
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text(req.Tool + " ran")}, StructuredContent: json.RawMessage(`{}`)}}, nil
	}
	return h
}

// TestHTTPBothEras connects a client of each protocol era to the default
// (stateful) handler: each negotiates its own era, lists, calls, and hears of
// a change of the tool set.
func TestHTTPBothEras(t *testing.T) {
	for _, tc := range []struct{ ask, want string }{{legacy, legacy}, {"", wire.ModernProtocol}} {
		t.Run("protocol="+cmp.Or(tc.ask, "latest"), func(t *testing.T) {
			h := echoHost("old")
			a := New(h, Options{})
			defer a.Close()
			c := dialHTTP(t, serveHTTP(t, a, HTTPOptions{}), tc.ask)
			ctx := testContext(t)
			if got := c.InitializeResult().ProtocolVersion; got != tc.want {
				t.Fatalf("negotiated %s, want %s", got, tc.want)
			}
			if res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "old"}); err != nil || textOf(res) != "old ran" {
				t.Fatalf("call old = %v, %v", res, err)
			}

			h.emit(host.Change{Added: []host.Tool{tool("new", `{"type":"object"}`)}, Removed: []string{"old"}})
			waitListChanged(ctx, t, c)
			if names := toolNames(ctx, t, c); !slices.Equal(names, []string{"new"}) {
				t.Errorf("tools after the change = %v, want [new]", names)
			}
		})
	}
}

// TestHTTPStateless serves without sessions: a 2025-11-25 client still lists
// and calls, and a 2026-07-28 client still hears of changes.
func TestHTTPStateless(t *testing.T) {
	h := echoHost("t")
	a := New(h, Options{})
	defer a.Close()
	url := serveHTTP(t, a, HTTPOptions{Stateless: true})
	ctx := testContext(t)

	old := dialHTTP(t, url, legacy)
	if res, err := old.CallTool(ctx, &mcp.CallToolParams{Name: "t"}); err != nil || textOf(res) != "t ran" {
		t.Fatalf("2025-11-25 call = %v, %v", res, err)
	}
	if id := old.ID(); id != "" {
		t.Errorf("a stateless server gave the session id %q", id)
	}

	modern := dialHTTP(t, url, "")
	h.emit(host.Change{Added: []host.Tool{tool("u", `{"type":"object"}`)}})
	waitListChanged(ctx, t, modern)
	if names := toolNames(ctx, t, old); !slices.Equal(names, []string{"t", "u"}) {
		t.Errorf("tools = %v, want [t u]", names)
	}
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends one JSON-RPC message the way a Streamable HTTP client does.
func post(t *testing.T, url, body string, header map[string]string) *http.Response {
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
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func TestHTTPSessionIDOnlyWhenStateful(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			a := New(echoHost(), Options{})
			defer a.Close()
			resp := post(t, serveHTTP(t, a, HTTPOptions{Stateless: stateless}), initializeBody, nil)
			id := resp.Header.Get("Mcp-Session-Id")
			if resp.StatusCode != http.StatusOK || (id == "") != stateless {
				t.Errorf("initialize got %d with Mcp-Session-Id %q", resp.StatusCode, id)
			}
		})
	}
}

// TestHTTPRebindingGuard sends a request to the loopback server under a
// foreign Host name, as a browser does after DNS rebinding.
func TestHTTPRebindingGuard(t *testing.T) {
	a := New(echoHost(), Options{})
	defer a.Close()
	url := serveHTTP(t, a, HTTPOptions{})
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"foreign", map[string]string{"Host": "evil.example"}, http.StatusForbidden},
		{"foreign 2026-07-28", map[string]string{"Host": "evil.example:80", "Mcp-Protocol-Version": wire.ModernProtocol}, http.StatusForbidden},
		{"localhost", map[string]string{"Host": "localhost"}, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if resp := post(t, url, initializeBody, tc.header); resp.StatusCode != tc.want {
				t.Errorf("Host %s: status %d, want %d", tc.header["Host"], resp.StatusCode, tc.want)
			}
		})
	}
}

func TestHTTPBodyCap(t *testing.T) {
	a := New(echoHost("t"), Options{})
	defer a.Close()
	url := serveHTTP(t, a, HTTPOptions{MaxBody: 512})
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"pad":"` + strings.Repeat("x", 1024) + `"}}}`
	// A fresh POST (no session yet) of each era, and one within a session.
	id := post(t, url, initializeBody, nil).Header.Get("Mcp-Session-Id")
	for _, tc := range []struct {
		name   string
		header map[string]string
	}{
		{"new session", nil},
		{"2026-07-28", map[string]string{"Mcp-Protocol-Version": wire.ModernProtocol}},
		{"in a session", map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": legacy}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if resp := post(t, url, big, tc.header); resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("headers %v: a body over the cap got %d, want 413", tc.header, resp.StatusCode)
			}
		})
	}
}

// TestHTTPBodyCapDefault derives the cap from MaxInput: arguments of nearly
// MaxInput bytes fit, with their envelope, beyond the SDK's own default.
func TestHTTPBodyCapDefault(t *testing.T) {
	a := New(echoHost("t"), Options{MaxInput: mcp.DefaultMaxRequestBodyBytes + 64<<10})
	defer a.Close()
	c := dialHTTP(t, serveHTTP(t, a, HTTPOptions{}), legacy)
	args := `{"s":"` + strings.Repeat("x", mcp.DefaultMaxRequestBodyBytes) + `"}`
	if _, err := c.CallTool(testContext(t), &mcp.CallToolParams{Name: "t", Arguments: []byte(args)}); err != nil {
		t.Errorf("arguments over the SDK's default body cap, within the input limit: %v", err)
	}
}

// TestHTTPSessionTimeout lets a session idle past its timeout: its id is
// then unknown (404), which tells a client to start a new session.
func TestHTTPSessionTimeout(t *testing.T) {
	a := New(echoHost(), Options{})
	defer a.Close()
	url := serveHTTP(t, a, HTTPOptions{SessionTimeout: time.Millisecond})
	id := post(t, url, initializeBody, nil).Header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatal("no session id")
	}
	ctx := testContext(t)
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	for post(t, url, ping, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": legacy}).StatusCode != http.StatusNotFound {
		select {
		case <-ctx.Done():
			t.Fatal("the idle session was never closed")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestHTTPDraining refuses new sessions and sessionless requests with 503
// once the server drains, while an open session keeps being served.
func TestHTTPDraining(t *testing.T) {
	h := echoHost("t")
	a := New(h, Options{})
	defer a.Close()
	var draining atomic.Bool
	url := serveHTTP(t, a, HTTPOptions{Draining: draining.Load})
	ctx := testContext(t)
	open := dialHTTP(t, url, legacy)
	draining.Store(true)

	if res, err := open.CallTool(ctx, &mcp.CallToolParams{Name: "t"}); err != nil || textOf(res) != "t ran" {
		t.Errorf("call in an open session while draining = %v, %v", res, err)
	}
	for _, tc := range []struct{ name, protocol string }{{"initialize", ""}, {"2026-07-28 call", wire.ModernProtocol}} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
			if tc.protocol != "" {
				body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}`
			}
			req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.protocol != "" {
				req.Header.Set("Mcp-Protocol-Version", tc.protocol)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "shutting down") || !strings.Contains(string(b), `"id":7`) {
				t.Errorf("while draining: %d %s, want 503 naming the shutdown, answering id 7", resp.StatusCode, b)
			}
		})
	}
}

// A stateless server promises 2025-era clients only what it delivers, and
// says why it cannot sample.
func TestHTTPStatelessLegacyPromises(t *testing.T) {
	h := &fakeHost{tools: []host.Tool{tool("ask", `{"type":"object"}`)}}
	h.call = func(ctx context.Context, req host.CallRequest) (*host.Result, error) {
		if req.Log != nil {
			req.Log("plug", abi.LogError, "nobody hears this")
		}
		_, err := req.Sample(ctx, json.RawMessage(`{"messages":[],"maxTokens":1}`))
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text(fmt.Sprint(err))}}}, nil
	}
	a := New(h, Options{})
	defer a.Close()
	url := serveHTTP(t, a, HTTPOptions{Stateless: true})
	c := dialHTTP(t, url, legacy)
	if caps := c.InitializeResult().Capabilities; caps.Tools == nil || caps.Tools.ListChanged {
		t.Errorf("stateless 2025-era capabilities %+v, want tools without listChanged", caps.Tools)
	}
	res, err := c.CallTool(testContext(t), &mcp.CallToolParams{Name: "ask"})
	if err != nil || !strings.Contains(textOf(res), "--stateless") {
		t.Errorf("sampling in stateless mode: %v, %v; want an error naming stateless mode", res, err)
	}
	select {
	case l := <-c.logs:
		t.Errorf("a stateless client got a log line it never asked for: %+v", l)
	default:
	}
	modern := dialHTTP(t, url, "")
	if caps := modern.InitializeResult().Capabilities; caps.Tools == nil || !caps.Tools.ListChanged {
		t.Errorf("2026-07-28 capabilities %+v, want listChanged (subscriptions/listen delivers it)", caps.Tools)
	}
}

// A client that sends half a body and stalls is cut off.
func TestHTTPBodyTimeout(t *testing.T) {
	a := New(echoHost(), Options{})
	defer a.Close()
	url := serveHTTP(t, a, HTTPOptions{BodyTimeout: 100 * time.Millisecond})
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", addr)
	conn.SetReadDeadline(time.Now().Add(time.Minute)) // a hang fails the test
	reply, _ := io.ReadAll(conn)
	if !strings.HasPrefix(string(reply), "HTTP/1.1 408") {
		t.Errorf("stalled body answered %q, want 408", reply)
	}
}

// postRaw sends body and returns the status and the response body.
func postRaw(t *testing.T, url, body string, header map[string]string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// The memory of sessions is returned once they have expired. A first flood
// warms what the runtime keeps for reuse (the descriptors of the goroutines
// a session ran, the capacity of maps); the second must leave the heap where
// the first left it.
func TestHTTPExpiredSessionsFreed(t *testing.T) {
	a := New(echoHost("t"), Options{})
	defer a.Close()
	url := serveHTTP(t, a, HTTPOptions{SessionTimeout: 200 * time.Millisecond, MaxSessions: 5000})
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	ctx := testContext(t)
	const n = 2000
	// flood opens n sessions, lets them expire and returns the heap with
	// them open.
	flood := func() (during uint64) {
		for range n {
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("initialize: %v %v", resp, err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		during = heap()
		for {
			count := 0
			for range a.server.Sessions() {
				count++
			}
			if count == 0 {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("%d sessions never expired", count)
			case <-time.After(100 * time.Millisecond):
			}
		}
		http.DefaultClient.CloseIdleConnections()
		return during
	}
	before := heap()
	flood()
	warm := heap()
	during := flood()
	after := heap()
	t.Logf("heap: %d KiB before, %d KiB after a first flood of %d sessions, %d KiB during the second, %d KiB after it",
		before>>10, warm>>10, n, during>>10, after>>10)
	if grew := int64(after) - int64(warm); grew > int64(during-warm)/4 {
		t.Errorf("the heap kept %d KiB of %d KiB after the sessions expired", grew>>10, (during-warm)>>10)
	}
}
