package mcpadapter

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/oauth"
)

// discoveryHost serves tools of a few descriptions; a call answers with the
// tool's name and its arguments, as structured content.
func discoveryHost() *fakeHost {
	h := &fakeHost{call: func(_ context.Context, req host.CallRequest) (*host.Result, error) {
		sc, _ := json.Marshal(map[string]any{"tool": req.Tool, "args": req.Arguments})
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("ran " + req.Tool)}, StructuredContent: sc}}, nil
	}}
	for name, desc := range map[string]string{
		"json_to_yaml": "Converts JSON to YAML.",
		"yaml_lint":    "Checks a YAML document.",
		"fetch":        "Fetches a web page and returns it as markdown.",
		"hash":         "Hashes text with SHA-256.",
	} {
		t := tool(name, `{"type":"object"}`)
		t.Description = desc
		h.tools = append(h.tools, t)
	}
	slices.SortFunc(h.tools, func(a, b host.Tool) int { return strings.Compare(a.Name, b.Name) })
	return h
}

func TestDiscovery(t *testing.T) {
	ctx := testContext(t)
	a := New(discoveryHost(), Options{Discovery: DiscoveryOnly})
	defer a.Close()
	c := connect(t, a, legacy)
	if names := toolNames(ctx, t, c); !slices.Equal(names, []string{abi.CallToolName, abi.SearchToolName}) {
		t.Fatalf("listed %v, want the discovery tools alone", names)
	}

	search := func(args map[string]any) (names []string, next string, total int) {
		t.Helper()
		res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: abi.SearchToolName, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("search %v: %+v, %v", args, res, err)
		}
		var out struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
			Total      int    `json:"total"`
			NextCursor string `json:"nextCursor"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		for _, tl := range out.Tools {
			if len(tl.InputSchema) == 0 {
				t.Errorf("tool %s without its inputSchema", tl.Name)
			}
			names = append(names, tl.Name)
		}
		return names, out.NextCursor, out.Total
	}
	if names, _, _ := search(map[string]any{"query": "convert json yaml"}); len(names) < 1 || names[0] != "json_to_yaml" {
		t.Errorf("best match %v, want json_to_yaml first", names)
	}
	// Regular expression syntax is words and punctuation.
	if names, _, _ := search(map[string]any{"query": "yaml.*(lint|[a-z]+)"}); len(names) == 0 || names[0] != "yaml_lint" {
		t.Errorf("metacharacters: %v", names)
	}
	if names, _, total := search(map[string]any{"query": strings.Repeat("zz ", 1<<19)}); len(names) != 0 || total != 0 {
		t.Errorf("a 1.5 MB query of no tool's words found %v", names)
	}
	// An empty query lists every tool, a page at a time.
	var all []string
	cursor := ""
	for range 10 {
		names, next, total := search(map[string]any{"limit": 3, "cursor": cursor})
		if total != 4 {
			t.Errorf("total %d", total)
		}
		all = append(all, names...)
		if cursor = next; cursor == "" {
			break
		}
	}
	if len(all) != 4 {
		t.Errorf("paged %v", all)
	}

	res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: abi.CallToolName,
		Arguments: map[string]any{"name": "hash", "arguments": map[string]any{"text": "x"}}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "ran hash") {
		t.Fatalf("dispatched: %+v, %v", res, err)
	}
	_, err = c.CallTool(ctx, &mcp.CallToolParams{Name: abi.CallToolName, Arguments: map[string]any{"name": "nope"}})
	if je, ok := errors.AsType[*jsonrpc.Error](err); !ok || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown tool through dispatch: %v, want -32602 as for a direct call", err)
	}
	res, err = c.CallTool(ctx, &mcp.CallToolParams{Name: abi.CallToolName, Arguments: map[string]any{"name": "hash", "extra": 1}})
	if err != nil || !res.IsError {
		t.Errorf("arguments of another shape: %+v, %v", res, err)
	}
	// The plugins' tools stay callable by name.
	if res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "fetch"}); err != nil || res.IsError {
		t.Errorf("direct call: %+v, %v", res, err)
	}
}

// A tool added by hot reload is found at once, whatever the client does
// with list_changed.
func TestDiscoveryFindsReloadedTool(t *testing.T) {
	ctx := testContext(t)
	h := discoveryHost()
	a := New(h, Options{Discovery: DiscoveryBeside})
	defer a.Close()
	c := connect(t, a, legacy)
	if names := toolNames(ctx, t, c); len(names) != 6 {
		t.Errorf("beside: listed %v", names)
	}
	nt := tool("weather", `{"type":"object"}`)
	nt.Description = "Tells the weather forecast."
	h.emit(host.Change{Added: []host.Tool{nt}})
	res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: abi.SearchToolName, Arguments: map[string]any{"query": "forecast"}})
	if err != nil || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"weather"`) {
		t.Errorf("search after reload: %+v, %v", res, err)
	}
}

// A query's words match the words of a tool's name, title and description
// (or their beginnings: "fetch" finds "fetches"), not any run of letters
// inside them: the "in" of "weather in a city" is not the "in" of "links".
func TestDiscoverySearchMatchesWords(t *testing.T) {
	ctx := testContext(t)
	h := &fakeHost{}
	for name, desc := range map[string]string{
		"get-resource-links":     "Returns links to example resources.",
		"get-structured-content": "Returns the current weather for a city as structured content.",
		"fetchPage":              "Fetches a web page as markdown.",
		"list_files":             "Lists the files of a directory.",
	} {
		tl := tool(name, `{"type":"object"}`)
		tl.Description = desc
		h.tools = append(h.tools, tl)
	}
	slices.SortFunc(h.tools, func(a, b host.Tool) int { return strings.Compare(a.Name, b.Name) })
	a := New(h, Options{Discovery: DiscoveryOnly})
	defer a.Close()
	c := connect(t, a, legacy)
	for _, tc := range []struct {
		query string
		want  []string // the tools found, best first
	}{
		// Ties keep the order of names.
		{"weather in a city", []string{"get-structured-content", "fetchPage", "list_files"}},
		{"fetch a page", []string{"fetchPage", "get-structured-content", "list_files"}}, // a camelCase name is words
		{"files in a folder", []string{"list_files", "fetchPage", "get-structured-content"}},
		{"ink", nil},
	} {
		res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: abi.SearchToolName, Arguments: map[string]any{"query": tc.query}})
		if err != nil || res.IsError {
			t.Fatalf("search %q: %+v, %v", tc.query, res, err)
		}
		var out struct{ Tools []struct{ Name string } }
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tl := range out.Tools {
			got = append(got, tl.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("search %q found %v, want %v", tc.query, got, tc.want)
		}
	}
}

// scopedHost is discoveryHost whose tool hash needs the scope tools:write.
type scopedHost struct{ *fakeHost }

func (scopedHost) MissingScopes(p *host.Principal, tool string) []string {
	if tool == "hash" && !slices.Contains(p.Scopes, "tools:write") {
		return []string{"tools:write"}
	}
	return nil
}

// A call through wasmcp_call_tool of a tool whose view requires a scope
// the token lacks is refused over HTTP as the direct call is: 403 with a
// step-up challenge, so that the client can ask for the scope, rather
// than a tool error the model cannot act on.
func TestDiscoveryCallStepsUp(t *testing.T) {
	a := New(scopedHost{discoveryHost()}, Options{Discovery: DiscoveryOnly})
	defer a.Close()
	h := a.HTTPHandler(HTTPOptions{OAuth: &OAuth{ResourceMetadataURL: "http://127.0.0.1/.well-known/oauth-protected-resource/mcp"}})
	p := &oauth.Principal{Issuer: "http://127.0.0.1:1", Subject: "alice", ClientID: "app", Scopes: []string{"tools:read"}}
	for how, params := range map[string]string{
		"directly":              `{"name":"hash","arguments":{"text":"x"}}`,
		"through the call tool": `{"name":"` + abi.CallToolName + `","arguments":{"name":"hash","arguments":{"text":"x"}}}`,
	} {
		req := httptest.NewRequestWithContext(oauth.WithPrincipal(testContext(t), p), http.MethodPost, "http://127.0.0.1/mcp",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+params+`}`))
		req.Header.Set("Authorization", "Bearer verified-in-front")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		challenge := rec.Header().Get("WWW-Authenticate")
		if rec.Code != http.StatusForbidden || !strings.Contains(challenge, `error="insufficient_scope"`) ||
			!strings.Contains(challenge, "tool hash needs the scope tools:write") {
			t.Errorf("hash called %s without tools:write: %d %q %q, want 403 and a step-up challenge", how, rec.Code, challenge, rec.Body.String())
		}
	}
}
