package host_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
)

const (
	notesDescribe = `{"tools":[{"name":"show","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://notes/view"}}}],
		"resources":[{"uri":"notes://readme","name":"readme","mimeType":"text/markdown"},
		             {"uri":"ui://notes/view","name":"view","mimeType":"text/html;profile=mcp-app",
		              "_meta":{"ui":{"csp":{"connectDomains":["https://api.example.com","https://evil.example"]}}}}],
		"resourceTemplates":[{"uriTemplate":"notes://{id}","name":"note"}],
		"prompts":[{"name":"review","arguments":[{"name":"diff","required":true},{"name":"style"}]}]}`
	notesRead     = `{"contents":[{"uri":"notes://readme","mimeType":"text/markdown","text":"# Notes"}]}`
	notesPrompt   = `{"description":"Review","messages":[{"role":"user","content":{"type":"text","text":"Review it"}}]}`
	notesComplete = `{"values":["alpha","beta"],"total":2}`
)

func notesModule(t testing.TB) []byte {
	return offerModule(t, []byte(notesDescribe), "shown", map[string]string{
		abi.ExportRead: notesRead, abi.ExportPrompt: notesPrompt, abi.ExportComplete: notesComplete,
	})
}

// A module's resources, templates and prompts are served: listed, read,
// got and completed in the sandbox, with a view's CSP held to the grants.
func TestOffers(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	place(t, dir, "notes.wasm", notesModule(t))
	pol, err := policy.Parse([]byte(`{"plugins":{"notes":{"net":["https://api.example.com"]}}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t).WithPolicy(pol))
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	l.wait(t, "app view asks for origins the plugin is not granted")

	res := h.ResourcesFor(nil)
	if len(res) != 2 || res[0].URI != "notes://readme" || res[1].URI != "ui://notes/view" {
		t.Fatalf("resources %+v", res)
	}
	csp := res[1].Meta["ui"].(map[string]any)["csp"].(map[string]any)
	if got := csp["connectDomains"].([]any); len(got) != 0 {
		// The module asked for no net permission: it is granted nothing.
		t.Errorf("connectDomains %v, want none granted", got)
	}
	if ts := h.ResourceTemplatesFor(nil); len(ts) != 1 || ts[0].URITemplate != "notes://{id}" {
		t.Errorf("templates %+v", ts)
	}
	if ps := h.PromptsFor(nil); len(ps) != 1 || ps[0].Name != "review" || ps[0].Plugin != "notes" {
		t.Errorf("prompts %+v", ps)
	}

	for _, uri := range []string{"notes://readme", "notes://42"} {
		r, mod, err := h.ReadResource(ctx, uri, host.Request{})
		if err != nil || mod.Plugin != "notes" || *r.Contents[0].Text != "# Notes" {
			t.Errorf("read %s: %+v, %+v, %v", uri, r, mod, err)
		}
	}
	for _, tc := range []struct {
		uri  string
		want error
		code int
	}{
		{"other://x", host.ErrUnknownResource, 0},
		{"notes://a/../b", nil, abi.CodeInvalidParams},
		{"notes://%2e%2e", nil, abi.CodeInvalidParams},
	} {
		t.Run("read/"+tc.uri, func(t *testing.T) {
			_, _, err := h.ReadResource(ctx, tc.uri, host.Request{})
			checkRequestError(t, err, tc.want, tc.code)
		})
	}

	p, _, err := h.GetPrompt(ctx, "review", []byte(`{"diff":"+x"}`), host.Request{})
	if err != nil || p.Messages[0].Content.Text != "Review it" {
		t.Errorf("prompt: %+v, %v", p, err)
	}
	for _, tc := range []struct {
		name, args string
		want       error
		code       int
	}{
		{"missing required", `{}`, nil, abi.CodeInvalidParams},
		{"unknown argument", `{"diff":"x","mood":"y"}`, nil, abi.CodeInvalidParams},
		{"not a string", `{"diff":1}`, nil, abi.CodeInvalidParams},
		{"not an object", `[1]`, nil, abi.CodeInvalidParams},
	} {
		t.Run("prompt/"+tc.name, func(t *testing.T) {
			_, _, err := h.GetPrompt(ctx, "review", []byte(tc.args), host.Request{})
			checkRequestError(t, err, tc.want, tc.code)
		})
	}
	if _, _, err := h.GetPrompt(ctx, "nope", nil, host.Request{}); !errors.Is(err, host.ErrUnknownPrompt) {
		t.Errorf("unknown prompt: %v", err)
	}

	c, err := h.Complete(ctx, abi.CompleteRequest{Ref: abi.CompleteReference{Type: abi.RefPrompt, Name: "review"},
		Argument: abi.CompleteArgument{Name: "style", Value: "a"}}, host.Request{})
	if err != nil || !slices.Equal(c.Values, []string{"alpha", "beta"}) {
		t.Errorf("complete: %+v, %v", c, err)
	}
	c, err = h.Complete(ctx, abi.CompleteRequest{Ref: abi.CompleteReference{Type: abi.RefPrompt, Name: "review"},
		Argument: abi.CompleteArgument{Name: "nope"}}, host.Request{})
	if err != nil || len(c.Values) != 0 {
		t.Errorf("complete of an argument the prompt lacks: %+v, %v", c, err)
	}
	c, err = h.Complete(ctx, abi.CompleteRequest{Ref: abi.CompleteReference{Type: abi.RefResource, URI: "notes://{id}"},
		Argument: abi.CompleteArgument{Name: "id"}}, host.Request{})
	if err != nil || len(c.Values) != 2 {
		t.Errorf("complete of a template variable: %+v, %v", c, err)
	}
}

func checkRequestError(t *testing.T, err error, want error, code int) {
	t.Helper()
	if want != nil {
		if !errors.Is(err, want) {
			t.Errorf("error %v, want %v", err, want)
		}
		return
	}
	re, ok := errors.AsType[*host.RequestError](err)
	if !ok || re.Code != code {
		t.Errorf("error %v, want a request error of code %d", err, code)
	}
}

// A module whose offers break the rules is refused at load, naming the
// problem; the others serve on.
func TestOffersRefused(t *testing.T) {
	all := map[string]string{abi.ExportRead: notesRead, abi.ExportPrompt: notesPrompt}
	for _, tc := range []struct {
		name, describe string
		offers         map[string]string
		want           string
	}{
		{"resources without read", `{"resources":[{"uri":"a://b","name":"b"}]}`, nil, "missing export wasmcp_read"},
		{"prompts without prompt", `{"prompts":[{"name":"p"}]}`, map[string]string{abi.ExportRead: notesRead}, "missing export wasmcp_prompt"},
		{"app without its type", `{"resources":[{"uri":"ui://a/b","name":"b","mimeType":"text/html"}]}`, all, "must have the mimeType"},
		{"view of another module", `{"tools":[{"name":"t","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://other/x"}}}]}`, all, "is not a resource of the module"},
		{"view not ui", `{"tools":[{"name":"t","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"https://x"}}}]}`, all, "is not a ui:// resource"},
		{"template of every uri", `{"resourceTemplates":[{"uriTemplate":"{+u}","name":"all"}]}`, all, "does not begin with a scheme"},
		{"bad template", `{"resourceTemplates":[{"uriTemplate":"a://{x","name":"x"}]}`, all, "not an RFC 6570 URI template"},
		{"explode", `{"resourceTemplates":[{"uriTemplate":"a://{/path*}","name":"x"}]}`, all, "explode modifier"},
		{"uri twice", `{"resources":[{"uri":"a://b","name":"b"},{"uri":"a://b","name":"c"}]}`, all, "defined twice"},
		{"prompt twice", `{"prompts":[{"name":"p"},{"name":"p"}]}`, all, "defined twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			place(t, dir, "bad.wasm", offerModule(t, []byte(tc.describe), "x", tc.offers))
			place(t, dir, "good.wasm", guest(t, guestSpec{Tools: []string{"fine"}, Answer: "ok"}))
			l := newLogs()
			h := newHost(t, dir, l, testConfig(t))
			_ = h.LoadDir(context.Background())
			l.wait(t, tc.want)
			if call(t, h, "fine") != "ok" {
				t.Error("the good module stopped serving")
			}
		})
	}
}

// Two plugins offering one URI or prompt: the first keeps it, as for tools;
// a URI no resource names goes to the template with the longest prefix.
func TestOffersOwners(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	read := func(text string) map[string]string {
		return map[string]string{
			abi.ExportRead:   `{"contents":[{"uri":"x://","text":"` + text + `"}]}`,
			abi.ExportPrompt: notesPrompt,
		}
	}
	place(t, dir, "a.wasm", offerModule(t, []byte(`{"resources":[{"uri":"x://same","name":"s"}],
		"resourceTemplates":[{"uriTemplate":"x://{+path}","name":"any"}],"prompts":[{"name":"p"}]}`), "a", read("a")))
	place(t, dir, "b.wasm", offerModule(t, []byte(`{"resources":[{"uri":"x://same","name":"s"}],
		"resourceTemplates":[{"uriTemplate":"x://docs/{+path}","name":"docs"}],"prompts":[{"name":"p"}]}`), "b", read("b")))
	h := newHost(t, dir, nil, testConfig(t))
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	for uri, want := range map[string]string{"x://same": "a", "x://docs/intro": "b", "x://other": "a"} {
		r, _, err := h.ReadResource(ctx, uri, host.Request{})
		if err != nil || *r.Contents[0].Text != want {
			t.Errorf("read %s: %+v, %v; want plugin %s's", uri, r, err, want)
		}
	}
	if ps := h.PromptsFor(nil); len(ps) != 1 || ps[0].Plugin != "a" {
		t.Errorf("prompts %+v, want a's alone", ps)
	}
	refused := false
	for _, r := range h.Refused() {
		refused = refused || strings.Contains(r.Tool, "x://same") && strings.HasSuffix(r.File, "b.wasm")
	}
	if !refused {
		t.Errorf("refusals %+v, want b's x://same", h.Refused())
	}
}

// hyper-mcp's own protocol v2 example, as its authors published it, serves
// its prompt, its resource template and its completions unchanged.
func TestHyperMCPv2Offers(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	wasm, err := os.ReadFile(filepath.Join("testdata", "thirdparty", "rstime.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	place(t, dir, "rstime.wasm", wasm)
	h := newHost(t, dir, nil, testConfig(t))
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	ps := h.PromptsFor(nil)
	if len(ps) != 1 || ps[0].Name != "get_time_with_timezone" || len(ps[0].Arguments) != 1 {
		t.Fatalf("prompts %+v", ps)
	}
	p, _, err := h.GetPrompt(ctx, "get_time_with_timezone", []byte(`{"timezone":"Europe/Paris"}`), host.Request{})
	if err != nil || !strings.Contains(p.Messages[0].Content.Text, "Europe/Paris") {
		t.Errorf("prompt: %+v, %v", p, err)
	}
	c, err := h.Complete(ctx, abi.CompleteRequest{Ref: abi.CompleteReference{Type: abi.RefPrompt, Name: "get_time_with_timezone"},
		Argument: abi.CompleteArgument{Name: "timezone", Value: "Europe/Pa"}}, host.Request{})
	if err != nil || !slices.Contains(c.Values, "Europe/Paris") {
		t.Errorf("complete: %+v, %v", c, err)
	}
	ts := h.ResourceTemplatesFor(nil)
	if len(ts) != 1 || !strings.HasPrefix(ts[0].URITemplate, "https://www.timezoneconverter.com/") {
		t.Fatalf("templates %+v", ts)
	}
	// Its read fetches the page: without a net grant the plugin is refused
	// the request, and the client reads why.
	_, _, err = h.ReadResource(ctx, "https://www.timezoneconverter.com/cgi-bin/zoneinfo?tz=Europe%2FParis", host.Request{})
	if re, ok := errors.AsType[*host.RequestError](err); !ok || re.Code != abi.CodeInternalError || !strings.Contains(re.Message, "net policy") {
		t.Errorf("read without a grant: %v", err)
	}
}
