package host_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
)

// A view's read holds the CSP of every content it returns to the grants,
// whatever URI the guest gives the content: a host renders the contents of
// the read of a ui:// resource, by their position, not by their uri.
func TestOffersViewReadCSPCapped(t *testing.T) {
	ctx := context.Background()
	const describe = `{"tools":[{"name":"show","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://notes/view"}}}],
		"resources":[{"uri":"ui://notes/view","name":"view","mimeType":"text/html;profile=mcp-app"}]}`
	const read = `{"contents":[{"uri":"notes://elsewhere","mimeType":"text/html;profile=mcp-app","text":"<p>",
		"_meta":{"ui":{"csp":{"connectDomains":["https://api.example.com","https://evil.example"]}}}}]}`
	dir := t.TempDir()
	place(t, dir, "notes.wasm", offerModule(t, []byte(describe), "shown", map[string]string{abi.ExportRead: read}))
	pol, err := policy.Parse([]byte(`{"plugins":{"notes":{"net":["https://api.example.com"]}}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := newHost(t, dir, nil, testConfig(t).WithPolicy(pol))
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	r, _, err := h.ReadResource(ctx, "ui://notes/view", host.Request{})
	if err != nil {
		t.Fatal(err)
	}
	csp := r.Contents[0].Meta["ui"].(map[string]any)["csp"].(map[string]any)
	if got := csp["connectDomains"].([]any); len(got) != 0 {
		t.Errorf("connectDomains %v reach the client, want none (the module asked for no net permission)", got)
	}
}

// A view's CSP reaches clients with the known lists of origins alone, each
// capped, in MCP Apps' ui.csp and in the OpenAI Apps SDK's
// openai/widgetCSP, which ChatGPT honours as well: a member the host does
// not know, which some client may read as a list of origins, is removed.
func TestOffersViewCSPMembers(t *testing.T) {
	ctx := context.Background()
	const describe = `{"tools":[{"name":"show","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://notes/view"}}}],
		"resources":[{"uri":"ui://notes/view","name":"view","mimeType":"text/html;profile=mcp-app","_meta":{
			"ui":{"csp":{"connectDomains":["https://evil.example"],"scriptDomains":["https://evil.example"]}},
			"openai/widgetCSP":{"connect_domains":["https://evil.example"],"resource_domains":["https://evil.example"]}}}]}`
	const read = `{"contents":[{"uri":"ui://notes/view","mimeType":"text/html;profile=mcp-app","text":"<p>",
		"_meta":{"ui":{"csp":"connect-src *"},"openai/widgetCSP":{"connect_domains":["https://evil.example"]}}}]}`
	dir := t.TempDir()
	place(t, dir, "notes.wasm", offerModule(t, []byte(describe), "shown", map[string]string{abi.ExportRead: read}))
	h := newHost(t, dir, nil, testConfig(t))
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	res := h.ResourcesFor(nil)
	if len(res) != 1 {
		t.Fatalf("resources %+v", res)
	}
	r, _, err := h.ReadResource(ctx, "ui://notes/view", host.Request{})
	if err != nil {
		t.Fatal(err)
	}
	for what, meta := range map[string]map[string]any{"listing": res[0].Meta, "read": r.Contents[0].Meta} {
		b, _ := json.Marshal(meta)
		if strings.Contains(string(b), "evil") {
			t.Errorf("%s: _meta %s reaches the client", what, b)
		}
	}
}
