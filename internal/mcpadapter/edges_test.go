package mcpadapter

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/mcpadapter/internal/wire"
)

// badIDs are request ids go-sdk would answer with other bytes: each must be
// refused with -32600 and id null, never answered with another id.
var badIDs = []string{`1.5`, `9007199254740993`, `1e308`, `12345678901234567890`, `-0`, `1.0`, `1e2`, `-9007199254740992`, `true`, `{}`}

// goodIDs come back exactly as sent.
var goodIDs = []string{`0`, `42`, `-7`, `9007199254740991`, `-9007199254740991`, `"abc"`, `""`, `"1.5"`}

func TestStdioIDsExact(t *testing.T) {
	c := rawServe(t, &fakeHost{}, 0)
	c.initialize(legacy)
	for _, id := range badIDs {
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		var resp struct {
			ID    json.RawMessage
			Error struct{ Code int }
		}
		line := c.next()
		if err := json.Unmarshal([]byte(line), &resp); err != nil || string(resp.ID) != "null" || resp.Error.Code != -32600 {
			t.Errorf("id %s answered %s, want -32600 with id null", id, line)
		}
	}
	for _, id := range goodIDs {
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if want := `{"jsonrpc":"2.0","id":` + id + `,"result":{}}`; c.next() != want {
			t.Errorf("id %s not answered exactly, want %s", id, want)
		}
	}
}

func TestHTTPIDsExact(t *testing.T) {
	a := New(echoHost(), Options{})
	defer a.Close()
	url := serveHTTP(t, a, HTTPOptions{})
	for _, hdr := range []map[string]string{nil, {"Mcp-Protocol-Version": wire.ModernProtocol}} {
		for _, id := range badIDs {
			status, body := postRaw(t, url, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, hdr)
			var resp struct {
				ID    json.RawMessage
				Error struct{ Code int }
			}
			if json.Unmarshal(body, &resp) != nil || status != http.StatusBadRequest || string(resp.ID) != "null" || resp.Error.Code != -32600 {
				t.Errorf("headers %v, id %s: %d %s, want 400 with -32600 and id null", hdr, id, status, body)
			}
		}
	}
	// An initialize with an exact id, answered with it.
	status, body := postRaw(t, url, strings.Replace(initializeBody, `"id":1`, `"id":9007199254740991`, 1), nil)
	if status != http.StatusOK || !strings.Contains(string(body), `"id":9007199254740991`) {
		t.Errorf("initialize: %d %s", status, body)
	}
}

// An unknown method gets JSON-RPC -32601 with its id in every era and mode.
func TestUnknownMethodIsMethodNotFound(t *testing.T) {
	c := rawServe(t, &fakeHost{}, 0)
	c.initialize(legacy)
	c.send(`{"jsonrpc":"2.0","id":3,"method":"no/such"}`)
	var resp struct {
		ID    int
		Error struct{ Code int }
	}
	if line := c.next(); json.Unmarshal([]byte(line), &resp) != nil || resp.ID != 3 || resp.Error.Code != -32601 {
		t.Errorf("stdio: %s, want -32601 for id 3", line)
	}
	for _, stateless := range []bool{false, true} {
		a := New(echoHost(), Options{})
		defer a.Close()
		url := serveHTTP(t, a, HTTPOptions{Stateless: stateless})
		hdr := map[string]string{"Mcp-Protocol-Version": legacy}
		if !stateless {
			hdr["Mcp-Session-Id"] = post(t, url, initializeBody, nil).Header.Get("Mcp-Session-Id")
		}
		status, body := postRaw(t, url, `{"jsonrpc":"2.0","id":3,"method":"no/such"}`, hdr)
		resp.ID, resp.Error.Code = 0, 0
		if json.Unmarshal(body, &resp) != nil || resp.ID != 3 || resp.Error.Code != -32601 || status != http.StatusOK {
			t.Errorf("HTTP stateless=%v: %d %s, want 200 with -32601 for id 3", stateless, status, body)
		}
	}
}

func TestLogLevelUnknownIsInvalidParams(t *testing.T) {
	c := rawServe(t, &fakeHost{}, 0)
	c.initialize(legacy)
	c.send(`{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"loud"}}`)
	var resp struct{ Error struct{ Code int } }
	if line := c.next(); json.Unmarshal([]byte(line), &resp) != nil || resp.Error.Code != -32602 {
		t.Errorf("setLevel loud: %s, want -32602", line)
	}
	c.send(`{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"notice"}}`)
	c.expect(`{"jsonrpc":"2.0","id":5,"result":{}}`)
}

// A client pipelining calls is not read past MaxInFlight unanswered ones.
func TestStdioBackPressure(t *testing.T) {
	h := &fakeHost{tools: []host.Tool{tool("wait", `{"type":"object"}`)}}
	started, release := make(chan struct{}, 10), make(chan struct{})
	h.call = func(ctx context.Context, req host.CallRequest) (*host.Result, error) {
		started <- struct{}{}
		<-release
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("done")}}}, nil
	}
	a := New(h, Options{MaxInFlight: 2})
	defer a.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go a.Serve(testContext(t), inR, outW)
	defer inW.Close()
	out := make(chan string, 10)
	go func() {
		dec := json.NewDecoder(outR)
		for {
			var m json.RawMessage
			if dec.Decode(&m) != nil {
				return
			}
			out <- string(m)
		}
	}()
	write := func(s string) { io.WriteString(inW, s+"\n") }
	write(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	<-out
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for id := 1; id <= 2; id++ {
		write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"wait"}}`, id))
		<-started
	}
	// The third line is not read while two calls are in flight: its write
	// on the pipe does not return.
	written := make(chan struct{})
	go func() { write(`{"jsonrpc":"2.0","id":3,"method":"ping"}`); close(written) }()
	select {
	case <-written:
		t.Fatal("a third request was read with two calls in flight and a cap of two")
	case <-time.After(200 * time.Millisecond):
	}
	release <- struct{}{}
	<-written
	for range 2 {
		<-out // the first call's answer and the ping's, in some order
	}
	close(release)
	<-out
}

// When the client closes its input, the calls in flight are answered before
// Serve returns; a guest waiting on the client for sampling is told at once
// that no answer will come.
func TestStdioDrainsOnEOF(t *testing.T) {
	h := &fakeHost{tools: []host.Tool{tool("slow", `{"type":"object"}`), tool("ask", `{"type":"object"}`)}}
	started, release := make(chan struct{}, 2), make(chan struct{})
	h.call = func(ctx context.Context, req host.CallRequest) (*host.Result, error) {
		started <- struct{}{}
		if req.Tool == "ask" {
			_, err := req.Sample(ctx, json.RawMessage(`{"messages":[],"maxTokens":1}`))
			return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text(fmt.Sprint("sample: ", err))}}}, nil
		}
		<-release
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("slow done")}}}, nil
	}
	a := New(h, Options{})
	defer a.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- a.Serve(testContext(t), inR, outW); outW.Close() }()
	lines := make(chan string, 10)
	go func() {
		all, _ := io.ReadAll(outR)
		for _, l := range strings.Split(strings.TrimSpace(string(all)), "\n") {
			lines <- l
		}
		close(lines)
	}()
	write := func(s string) { io.WriteString(inW, s+"\n") }
	write(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"x","version":"1"}}}`)
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`)
	write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}}`)
	<-started
	<-started
	inW.Close() // EOF with two calls in flight, one of them waiting on us
	close(release)
	if err := <-served; err != nil {
		t.Fatalf("Serve = %v", err)
	}
	var got []string
	for l := range lines {
		got = append(got, l)
	}
	all := strings.Join(got, "\n")
	if !strings.Contains(all, `"id":1,"result"`) || !strings.Contains(all, "slow done") ||
		!strings.Contains(all, `"id":2,"result"`) || !strings.Contains(all, "closed its input") {
		t.Errorf("output after EOF:\n%s\nwant the answers to calls 1 and 2, the sample told the client left", all)
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

func TestHTTPSessionCap(t *testing.T) {
	a := New(echoHost(), Options{})
	defer a.Close()
	url := serveHTTP(t, a, HTTPOptions{MaxSessions: 2})
	var ids []string
	for range 2 {
		resp := post(t, url, initializeBody, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("initialize within the cap: %d", resp.StatusCode)
		}
		ids = append(ids, resp.Header.Get("Mcp-Session-Id"))
	}
	status, body := postRaw(t, url, initializeBody, nil)
	if status != http.StatusServiceUnavailable || !strings.Contains(string(body), "too many sessions") {
		t.Errorf("initialize past the cap: %d %s, want 503 saying too many sessions", status, body)
	}
	// A 2026-07-28 request opens no session and still passes.
	if _, err := dialHTTP(t, url, "").ListTools(testContext(t), nil); err != nil {
		t.Errorf("stateless request at the cap: %v", err)
	}
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", ids[0])
	req.Header.Set("Mcp-Protocol-Version", legacy)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	if resp := post(t, url, initializeBody, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("initialize after a session ended: %d", resp.StatusCode)
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

// The memory of sessions is returned once they have expired.
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
	before := heap()
	const n = 2000
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
	during := heap()
	ctx := testContext(t)
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
	after := heap()
	t.Logf("heap: %d KiB before, %d KiB with %d sessions, %d KiB after they expired", before>>10, during>>10, n, after>>10)
	if grew := int64(after) - int64(before); grew > int64(during-before)/4 {
		t.Errorf("the heap kept %d KiB of %d KiB after the sessions expired", grew>>10, (during-before)>>10)
	}
}
