package mcpadapter

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
)

// fakeHost is a Host whose tools and call results the test sets.
type fakeHost struct {
	mu    sync.Mutex
	tools []host.Tool
	subs  []func(host.Change)
	call  func(context.Context, host.CallRequest) (*host.Result, error)
	// loaded is the channel Loaded returns; nil: a closed one.
	loaded chan struct{}
}

func (h *fakeHost) Loaded() <-chan struct{} {
	if h.loaded == nil {
		done := make(chan struct{})
		close(done)
		return done
	}
	return h.loaded
}

func (h *fakeHost) Tools() []host.Tool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.tools)
}

// ToolsFor shows every tool: the fake has no views.
func (h *fakeHost) ToolsFor(*host.Principal) []host.Tool { return h.Tools() }

// MissingScopes: the fake's tools need none.
func (h *fakeHost) MissingScopes(*host.Principal, string) []string { return nil }

// Local is a principal of subject "local", as the host's without a policy.
func (h *fakeHost) Local() *host.Principal { return &host.Principal{Subject: "local"} }

// Call names the module serving the tool in the result, as the host does.
func (h *fakeHost) Call(ctx context.Context, req host.CallRequest) (*host.Result, error) {
	var m host.Module
	for _, t := range h.Tools() {
		if t.Name == req.Tool {
			m = host.Module{Plugin: t.Plugin, File: "/plugins/" + t.Plugin + ".wasm", SHA256: t.SHA256}
		}
	}
	res, err := h.call(ctx, req)
	if res != nil && res.Module == (host.Module{}) {
		res.Module = m
	}
	return res, err
}

// Subscribe delivers the tools served now first, as the host does.
func (h *fakeHost) Subscribe(fn func(host.Change)) func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.tools) > 0 {
		fn(host.Change{Added: slices.Clone(h.tools)})
	}
	h.subs = append(h.subs, fn)
	i := len(h.subs) - 1
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.subs[i] = nil
	}
}

// emit applies c to the tools and delivers it to the subscribers, as the
// host does after a reload.
func (h *fakeHost) emit(c host.Change) {
	h.mu.Lock()
	h.tools = slices.DeleteFunc(h.tools, func(t host.Tool) bool {
		return slices.Contains(c.Removed, t.Name) ||
			slices.ContainsFunc(c.Updated, func(u host.Tool) bool { return u.Name == t.Name })
	})
	h.tools = append(append(h.tools, c.Added...), c.Updated...)
	slices.SortFunc(h.tools, func(a, b host.Tool) int { return cmp.Compare(a.Name, b.Name) })
	subs := slices.Clone(h.subs)
	h.mu.Unlock()
	for _, fn := range subs {
		if fn != nil {
			fn(c)
		}
	}
}

func tool(name, inputSchema string) host.Tool {
	return host.Tool{
		Tool:   abi.Tool{Name: name, Description: name + " tool", InputSchema: json.RawMessage(inputSchema)},
		Plugin: "plug",
		SHA256: "0000",
	}
}

// testContext bounds a test so that a hang fails it instead of the whole
// run. It is no statement about speed.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// client is a go-sdk client connected to an Adapter over stdio (pipes).
type client struct {
	*mcp.ClientSession
	listChanged chan struct{}
	logs        chan *mcp.LoggingMessageParams
}

func connect(t *testing.T, a *Adapter, protocolVersion string) *client {
	t.Helper()
	ctx := testContext(t)
	sctx, stop := context.WithCancel(ctx)
	ct, served := serveStdio(sctx, a)
	c := dial(t, ct, protocolVersion)
	t.Cleanup(func() {
		c.Close()
		stop()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return c
}

// dial connects a go-sdk client over ct with protocolVersion ("" for the
// SDK's latest). The caller closes it.
func dial(t *testing.T, ct mcp.Transport, protocolVersion string) *client {
	t.Helper()
	c := &client{listChanged: make(chan struct{}, 100), logs: make(chan *mcp.LoggingMessageParams, 100)}
	mc := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { c.listChanged <- struct{}{} },
		LoggingMessageHandler:  func(_ context.Context, r *mcp.LoggingMessageRequest) { c.logs <- r.Params },
	})
	cs, err := mc.Connect(testContext(t), ct, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	c.ClientSession = cs
	return c
}

// legacy is the protocol of the initialize handshake that today's clients
// speak; "" selects the SDK's latest.
const legacy = "2025-11-25"

func TestInitializeAdvertisesToolsWithoutTools(t *testing.T) {
	h := &fakeHost{}
	a := New(h, Options{Version: "v1.2.3"})
	defer a.Close()
	c := connect(t, a, legacy)
	res := c.InitializeResult()
	if res.ServerInfo.Name != "wasmcp" || res.ServerInfo.Version != "v1.2.3" {
		t.Errorf("serverInfo = %+v, want wasmcp v1.2.3", res.ServerInfo)
	}
	if res.Capabilities.Tools == nil || !res.Capabilities.Tools.ListChanged {
		t.Errorf("capabilities.tools = %+v, want listChanged with zero tools", res.Capabilities.Tools)
	}
	if res.Capabilities.Logging == nil {
		t.Error("capabilities.logging missing")
	}
	list, err := c.ListTools(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 0 {
		t.Errorf("tools = %v, want none", list.Tools)
	}
}

func TestListToolsPassesDefinitions(t *testing.T) {
	yes, no := true, false
	full := host.Tool{
		Tool: abi.Tool{
			Name:         "full",
			Title:        "Full",
			Description:  "has everything",
			InputSchema:  json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number"}}}`),
			Annotations:  &abi.ToolAnnotations{Title: "Full!", ReadOnlyHint: &yes, DestructiveHint: &no, OpenWorldHint: &no},
			Meta:         map[string]any{"x.example/k": "v"},
		},
		Plugin: "plug",
	}
	h := &fakeHost{tools: []host.Tool{full, tool("bare", `{"type":"object"}`)}}
	a := New(h, Options{})
	defer a.Close()
	c := connect(t, a, legacy)
	list, err := c.ListTools(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*mcp.Tool{}
	for _, tl := range list.Tools {
		got[tl.Name] = tl
	}
	if len(got) != 2 {
		t.Fatalf("tools = %v, want full and bare", list.Tools)
	}
	f := got["full"]
	assertJSON(t, "inputSchema", f.InputSchema, string(full.InputSchema))
	assertJSON(t, "outputSchema", f.OutputSchema, string(full.OutputSchema))
	assertJSON(t, "annotations", f.Annotations,
		`{"title":"Full!","readOnlyHint":true,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}`)
	if f.Title != "Full" || f.Description != "has everything" || f.Meta["x.example/k"] != "v" {
		t.Errorf("full = %+v", f)
	}
	if b := got["bare"]; b.OutputSchema != nil || b.Annotations != nil {
		t.Errorf("bare has outputSchema %v, annotations %v; want neither", b.OutputSchema, b.Annotations)
	}
}

func TestCallPassesArgumentsUntouched(t *testing.T) {
	var gotArgs json.RawMessage
	var gotTool string
	h := &fakeHost{tools: []host.Tool{tool("echo", `{"type":"object"}`)}}
	h.call = func(_ context.Context, req host.CallRequest) (*host.Result, error) {
		gotTool, gotArgs = req.Tool, req.Arguments
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("ok")}, StructuredContent: json.RawMessage(`{}`)}}, nil
	}
	a := New(h, Options{})
	defer a.Close()
	c := connect(t, a, legacy)
	// The SDK's client sends the arguments as given; the server hands them
	// on as they arrived, key order and spacing included.
	args := json.RawMessage(`{"z":1,"a":[true,null],"m":"é"}`)
	if _, err := c.CallTool(testContext(t), &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
		t.Fatal(err)
	}
	if gotTool != "echo" || string(gotArgs) != string(args) {
		t.Errorf("host got %s(%s), want echo(%s)", gotTool, gotArgs, args)
	}
}

func TestCallResultEveryContentType(t *testing.T) {
	prio := 0.5
	size := int64(3)
	text, blob := "body", "AQID"
	h := &fakeHost{tools: []host.Tool{tool("all", `{"type":"object"}`)}}
	h.call = func(context.Context, host.CallRequest) (*host.Result, error) {
		return &host.Result{Result: abi.Result{
			Content: []abi.Content{
				{Type: abi.ContentText, Text: "hi", Annotations: &abi.ContentAnnotations{Audience: []string{"user"}, Priority: &prio, LastModified: "2025-01-12T15:00:58Z"}},
				abi.Image("iVBORw==", "image/png"),
				{Type: abi.ContentAudio, Data: "AQID", MimeType: "audio/wav", Meta: map[string]any{"k": "v"}},
				{Type: abi.ContentResourceLink, URI: "file:///x", Name: "x", Title: "X", Description: "an x", MimeType: "text/plain", Size: &size},
				{Type: abi.ContentResource, Resource: &abi.ResourceContents{URI: "mem://t", MimeType: "text/plain", Text: &text}},
				{Type: abi.ContentResource, Resource: &abi.ResourceContents{URI: "mem://b", Blob: &blob}},
			},
			StructuredContent: json.RawMessage(`{"n":1}`),
			Meta:              map[string]any{"m": true},
		}}, nil
	}
	a := New(h, Options{})
	defer a.Close()
	c := connect(t, a, legacy)
	res, err := c.CallTool(testContext(t), &mcp.CallToolParams{Name: "all"})
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, "result", res, `{
		"content": [
			{"type":"text","text":"hi","annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-12T15:00:58Z"}},
			{"type":"image","data":"iVBORw==","mimeType":"image/png"},
			{"type":"audio","data":"AQID","mimeType":"audio/wav","_meta":{"k":"v"}},
			{"type":"resource_link","uri":"file:///x","name":"x","title":"X","description":"an x","mimeType":"text/plain","size":3},
			{"type":"resource","resource":{"uri":"mem://t","mimeType":"text/plain","text":"body"}},
			{"type":"resource","resource":{"uri":"mem://b","blob":"AQID"}}
		],
		"structuredContent": {"n":1},
		"_meta": {"m":true}
	}`)
}

func TestCallToolErrorIsResult(t *testing.T) {
	h := &fakeHost{tools: []host.Tool{tool("fail", `{"type":"object"}`)}}
	h.call = func(context.Context, host.CallRequest) (*host.Result, error) {
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("at /a: got string, want number")}, IsError: true}}, nil
	}
	a := New(h, Options{})
	defer a.Close()
	c := connect(t, a, legacy)
	res, err := c.CallTool(testContext(t), &mcp.CallToolParams{Name: "fail", Arguments: map[string]any{"a": "x"}})
	if err != nil {
		t.Fatalf("tool error came as a protocol error: %v", err)
	}
	// An error has no structuredContent unless the tool gave a conforming
	// one: official clients validate it against the outputSchema.
	assertJSON(t, "result", res, `{"content":[{"type":"text","text":"at /a: got string, want number"}],"isError":true}`)
}

func TestCallUndecodableBase64IsToolError(t *testing.T) {
	h := &fakeHost{tools: []host.Tool{tool("img", `{"type":"object"}`)}}
	h.call = func(context.Context, host.CallRequest) (*host.Result, error) {
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Image("not base64!", "image/png")}}}, nil
	}
	a := New(h, Options{})
	defer a.Close()
	c := connect(t, a, legacy)
	res, err := c.CallTool(testContext(t), &mcp.CallToolParams{Name: "img"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(textOf(res), "base64") {
		t.Errorf("result = %s, want an isError naming base64", mustJSON(t, res))
	}
}

func TestUnknownToolIsInvalidParams(t *testing.T) {
	h := &fakeHost{tools: []host.Tool{tool("gone", `{"type":"object"}`)}}
	// "gone" is registered with the server, but the host has unloaded it by
	// the time the call arrives: the race of a reload.
	h.call = func(context.Context, host.CallRequest) (*host.Result, error) {
		return nil, fmt.Errorf("registry: %w", host.ErrUnknownTool)
	}
	a := New(h, Options{})
	defer a.Close()
	c := connect(t, a, legacy)
	for _, name := range []string{"never-was", "gone"} {
		t.Run(name, func(t *testing.T) {
			_, err := c.CallTool(testContext(t), &mcp.CallToolParams{Name: name})
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("call %s: err = %v, want JSON-RPC error %d", name, err, jsonrpc.CodeInvalidParams)
			}
		})
	}
}

func TestHostFailureIsProtocolError(t *testing.T) {
	h := &fakeHost{tools: []host.Tool{tool("t", `{"type":"object"}`)}}
	h.call = func(context.Context, host.CallRequest) (*host.Result, error) {
		return nil, errors.New("host closed")
	}
	a := New(h, Options{})
	defer a.Close()
	c := connect(t, a, legacy)
	_, err := c.CallTool(testContext(t), &mcp.CallToolParams{Name: "t"})
	if err == nil || !strings.Contains(err.Error(), "host closed") {
		t.Errorf("err = %v, want the host's error", err)
	}
}

func TestGuestLogLinesReachClient(t *testing.T) {
	h := &fakeHost{tools: []host.Tool{tool("chatty", `{"type":"object"}`)}}
	h.call = func(_ context.Context, req host.CallRequest) (*host.Result, error) {
		req.Log("plug", abi.LogDebug, "too fine")
		req.Log("plug", abi.LogWarning, "careful")
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("done")}}}, nil
	}
	a := New(h, Options{})
	defer a.Close()
	c := connect(t, a, legacy)
	ctx := testContext(t)
	if err := c.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "chatty"}); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-c.logs:
		if p.Level != "warning" || p.Data != "careful" || p.Logger != "plug" {
			t.Errorf("log = %+v, want warning \"careful\" from plug (the debug line is below the level)", p)
		}
	case <-ctx.Done():
		t.Fatal("no log notification")
	}
}

func TestChangesReachClient(t *testing.T) {
	for _, pv := range []string{legacy, ""} {
		t.Run("protocol="+cmp.Or(pv, "latest"), func(t *testing.T) {
			h := &fakeHost{tools: []host.Tool{tool("old", `{"type":"object"}`)}}
			a := New(h, Options{})
			defer a.Close()
			c := connect(t, a, pv)
			ctx := testContext(t)

			h.emit(host.Change{Added: []host.Tool{tool("new", `{"type":"object"}`)}, Removed: []string{"old"}})
			waitListChanged(ctx, t, c)
			if names := toolNames(ctx, t, c); !slices.Equal(names, []string{"new"}) {
				t.Errorf("tools after change = %v, want [new]", names)
			}

			h.emit(host.Change{Updated: []host.Tool{tool("new", `{"type":"object","properties":{"x":{}}}`)}})
			waitListChanged(ctx, t, c)
			list, err := c.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			assertJSON(t, "updated schema", list.Tools[0].InputSchema, `{"type":"object","properties":{"x":{}}}`)

			// A change of the views alone (a reconfigured policy) tells
			// the client too, and changes no definition.
			h.emit(host.Change{Views: true})
			waitListChanged(ctx, t, c)
			if names := toolNames(ctx, t, c); !slices.Equal(names, []string{"new"}) {
				t.Errorf("tools after a change of views = %v, want [new]", names)
			}
		})
	}
}

func TestServeEndsWhenClientHangsUp(t *testing.T) {
	a := New(&fakeHost{}, Options{})
	defer a.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go io.Copy(io.Discard, outR)
	done := make(chan error, 1)
	go func() { done <- a.Serve(testContext(t), inR, outW) }()
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	inW.Close() // stdin EOF
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after EOF = %v, want nil", err)
		}
	case <-testContext(t).Done():
		t.Fatal("Serve did not return after EOF")
	}
}

func waitListChanged(ctx context.Context, t *testing.T, c *client) {
	t.Helper()
	select {
	case <-c.listChanged:
	case <-ctx.Done():
		t.Fatal("no notifications/tools/list_changed")
	}
}

func toolNames(ctx context.Context, t *testing.T, c *client) []string {
	t.Helper()
	list, err := c.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertJSON compares got, marshaled, with the JSON text want, ignoring
// spacing and key order.
func assertJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(mustJSON(t, got)), &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want for %s: %v", what, err)
	}
	if mustJSON(t, g) != mustJSON(t, w) {
		t.Errorf("%s = %s\nwant %s", what, mustJSON(t, g), mustJSON(t, w))
	}
}
