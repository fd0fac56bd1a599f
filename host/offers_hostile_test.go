package host_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/policy"
)

// resourcesDoc is a describe document of n resources; pad lengthens each
// name.
func resourcesDoc(n int, pad string) []byte {
	var b strings.Builder
	b.WriteString(`{"resources":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"uri":"r:%d","name":"%s%d"}`, i, pad, i)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// TestOffersHostileAtLoad drops modules whose offers break the limits or
// the rules into a directory beside a good one: each is refused with a log
// line that names the problem, and the good one serves.
func TestOffersHostileAtLoad(t *testing.T) {
	compact, verbose := resourcesDoc(100000, ""), resourcesDoc(100000, strings.Repeat("n", 40))
	if len(compact) > abi.MaxDescribeSize || len(verbose) <= abi.MaxDescribeSize {
		t.Fatalf("documents of %d and %d bytes: want one under the describe cap and one over", len(compact), len(verbose))
	}
	all := map[string]string{abi.ExportRead: notesRead, abi.ExportPrompt: notesPrompt}
	many := func(member, item string, n int) []byte {
		items := make([]string, n)
		for i := range items {
			items[i] = fmt.Sprintf(item, i)
		}
		return []byte(`{"` + member + `":[` + strings.Join(items, ",") + `]}`)
	}
	args := make([]string, 65)
	for i := range args {
		args[i] = fmt.Sprintf(`{"name":"a%d"}`, i)
	}
	bad := map[string]struct {
		wasm []byte
		want string
	}{
		// Under the describe cap, the count refuses it; over, the cap does,
		// before the document is parsed. (The log quotes the messages'
		// quotes, so the wanted texts have none.)
		"resources100k":    {lyingGuest(t, compact, 0), "describe document: 100000 resources, more than the 1024 allowed"},
		"resources100kbig": {lyingGuest(t, verbose, 0), "wasmcp_describe returned 7277795 bytes, over the limit of 4 MiB"},
		"templates":        {lyingGuest(t, many("resourceTemplates", `{"uriTemplate":"t:{x%d}","name":"t"}`, 257), 0), "257 resource templates, more than the 256 allowed"},
		"prompts":          {lyingGuest(t, many("prompts", `{"name":"p%d"}`, 1025), 0), "1025 prompts, more than the 1024 allowed"},
		"arguments": {offerModule(t, []byte(`{"prompts":[{"name":"p","arguments":[`+strings.Join(args, ",")+`]}]}`), "x", all),
			"65 arguments, more than 64"},
		"schemeafter": {offerModule(t, []byte(`{"resourceTemplates":[{"uriTemplate":"x{s}://y","name":"t"}]}`), "x", all),
			"does not begin with a scheme and ':' before its first expression"},
		"fragment": {offerModule(t, []byte(`{"resources":[{"uri":"a://b#c","name":"b"}]}`), "x", all), "has a fragment"},
		"longuri": {offerModule(t, []byte(`{"resources":[{"uri":"a://`+strings.Repeat("b", abi.MaxURILen)+`","name":"b"}]}`), "x", all),
			"2052 bytes, more than 2048"},
		"notype": {offerModule(t, []byte(`{"resources":[{"uri":"ui://a/b","name":"b"}]}`), "x", all),
			"a ui:// view must have the mimeType"},
		"badtype": {offerModule(t, []byte(`{"resources":[{"uri":"a://b","name":"b","mimeType":"text"}]}`), "x", all),
			"is not a media type (type/subtype)"},
		"promptname": {offerModule(t, []byte(`{"prompts":[{"name":"a b"}]}`), "x", all), "name must be 1 to 128 characters"},
		"noexport":   {lyingGuest(t, []byte(`{"prompts":[{"name":"p"}]}`), 0), "missing export wasmcp_prompt"},
	}
	dir := t.TempDir()
	place(t, dir, "echo.wasm", hostileWasm(t, "echo"))
	for name, b := range bad {
		place(t, dir, name+".wasm", b.wasm)
	}
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t))
	if err := h.LoadDir(context.Background()); err != nil {
		t.Fatal(err)
	}
	for name, b := range bad {
		t.Run(name, func(t *testing.T) {
			l.wait(t, "plugin not loaded", name+".wasm", b.want)
		})
	}
	if len(h.ResourcesFor(nil))+len(h.PromptsFor(nil))+len(h.ResourceTemplatesFor(nil)) != 0 {
		t.Error("a refused module's offers are served")
	}
	if res, err := h.Call(context.Background(), host.CallRequest{Tool: "echo", Arguments: []byte(`{"a":1}`)}); err != nil || res.IsError {
		t.Errorf("echo after the hostile loads: %+v, %v", res, err)
	}
}

// hostileOffers serves testdata/offers_hostile.wat, with a short deadline,
// beside echo.
func hostileOffers(t *testing.T) (*host.Host, *logs) {
	t.Helper()
	dir := t.TempDir()
	place(t, dir, "echo.wasm", hostileWasm(t, "echo"))
	place(t, dir, "bad.wasm", hostileWasm(t, "offers_hostile"))
	pol, err := policy.Parse([]byte(`{"plugins": {"bad": {"timeout": "1s"}}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t).WithPolicy(pol))
	if err := h.LoadDir(context.Background()); err != nil {
		t.Fatal(err)
	}
	return h, l
}

// healthy checks that the hostile plugin and its neighbour serve on.
func healthy(t *testing.T, h *host.Host) {
	t.Helper()
	ctx := context.Background()
	if r, _, err := h.ReadResource(ctx, "bad://good", host.Request{}); err != nil || *r.Contents[0].Text != "good" {
		t.Errorf("read bad://good: %+v, %v", r, err)
	}
	if p, _, err := h.GetPrompt(ctx, "good", nil, host.Request{}); err != nil || p.Messages[0].Content.Text != "good" {
		t.Errorf("prompt good: %+v, %v", p, err)
	}
	if res, err := h.Call(ctx, host.CallRequest{Tool: "echo", Arguments: []byte(`{"a":1}`)}); err != nil || res.IsError {
		t.Errorf("echo: %+v, %v", res, err)
	}
}

// wantFailure checks a read's, a prompt's or a completion's error: code,
// message and, for the host's own failures, the sandbox's cause.
func wantFailure(t *testing.T, err error, code int, text string, cause error) {
	t.Helper()
	re, ok := errors.AsType[*host.RequestError](err)
	if !ok {
		t.Fatalf("error %v (%T), want a *host.RequestError", err, err)
	}
	if re.Code != code || !strings.Contains(re.Message, text) {
		t.Errorf("error %d %q, want %d with %q", re.Code, re.Message, code, text)
	}
	if cause != nil && !errors.Is(err, cause) {
		t.Errorf("error %v does not wrap %v", err, cause)
	}
}

// TestOffersHostileAtRead reads, gets and completes what misbehaves: each
// fails with a JSON-RPC error that says why, the instance that did it is
// discarded, and the plugin and its neighbour serve on.
func TestOffersHostileAtRead(t *testing.T) {
	h, _ := hostileOffers(t)
	ctx := context.Background()
	const internal, notFound = abi.CodeInternalError, abi.CodeResourceNotFound
	for _, tc := range []struct {
		uri   string
		code  int
		text  string
		cause error
	}{
		{"bad://trap", internal, "read bad://trap in plugin bad: trapped: unreachable", sandbox.ErrTrap},
		{"bad://loop", internal, "timed out after 1s", host.ErrTimeout},
		{"bad://zero", internal, "wasmcp_read returned 0 instead of a document", sandbox.ErrNoResult},
		{"bad://outside", internal, "outside memory", sandbox.ErrTrap},
		{"bad://huge", internal, "wasmcp_read returned 52428845 bytes, over the limit of 4 MiB", sandbox.ErrOutputTooLarge},
		{"bad://malformed", internal, "plugin bad returned a malformed read result", sandbox.ErrMalformed},
		{"bad://nocontents", internal, "contents is empty", sandbox.ErrMalformed},
		{"bad://dual", internal, "contents[0]: needs exactly one of text and blob", sandbox.ErrMalformed},
		{"bad://base64", internal, "contents[0]: blob is not standard base64", sandbox.ErrMalformed},
		{"bad://utf8", internal, "not valid UTF-8", sandbox.ErrMalformed},
		{"bad://code", internal, "plugin bad: custom", nil},
		{"bad://quiet", notFound, "plugin bad: read refused without a message", nil},
	} {
		t.Run("read/"+tc.uri, func(t *testing.T) {
			_, _, err := h.ReadResource(ctx, tc.uri, host.Request{})
			wantFailure(t, err, tc.code, tc.text, tc.cause)
			healthy(t, h)
		})
	}
	for _, tc := range []struct {
		name  string
		text  string
		cause error
	}{
		{"trap", "prompt trap in plugin bad: trapped: unreachable", sandbox.ErrTrap},
		{"loop", "timed out after 1s", host.ErrTimeout},
		{"zero", "wasmcp_prompt returned 0 instead of a document", sandbox.ErrNoResult},
		{"outside", "outside memory", sandbox.ErrTrap},
		{"norole", `messages[0]: role "system" is neither "user" nor "assistant"`, sandbox.ErrMalformed},
		{"badcontent", "messages[0]:", sandbox.ErrMalformed},
		{"empty", "messages is empty", sandbox.ErrMalformed},
	} {
		t.Run("prompt/"+tc.name, func(t *testing.T) {
			_, _, err := h.GetPrompt(ctx, tc.name, nil, host.Request{})
			wantFailure(t, err, internal, tc.text, tc.cause)
			healthy(t, h)
		})
	}
	complete := func(prompt string) (*abi.CompleteResult, error) {
		return h.Complete(ctx, abi.CompleteRequest{Ref: abi.CompleteReference{Type: abi.RefPrompt, Name: prompt},
			Argument: abi.CompleteArgument{Name: "a"}}, host.Request{})
	}
	for _, tc := range []struct {
		name  string
		text  string
		cause error
	}{
		{"trap", "trapped: unreachable", sandbox.ErrTrap},
		{"loop", "timed out after 1s", host.ErrTimeout},
		{"zero", "wasmcp_complete returned 0 instead of a document", sandbox.ErrNoResult},
		{"outside", "outside memory", sandbox.ErrTrap},
	} {
		t.Run("complete/"+tc.name, func(t *testing.T) {
			_, err := complete(tc.name)
			wantFailure(t, err, internal, tc.text, tc.cause)
			healthy(t, h)
		})
	}
	c, err := complete("many")
	if err != nil || len(c.Values) != abi.MaxCompletionValues || !c.HasMore {
		t.Errorf("150 values: %d values, hasMore %v, %v; want the first %d and hasMore", len(c.Values), c.HasMore, err, abi.MaxCompletionValues)
	}
}

// TestOffersHostileURIs: a URI that could name what lies outside a
// template's prefix is refused before any guest runs, however it is
// spelled; one of another scheme, or another case of the scheme, matches
// no template.
func TestOffersHostileURIs(t *testing.T) {
	h, _ := hostileOffers(t)
	ctx := context.Background()
	for _, uri := range []string{
		"bad://echo/../good", "bad://echo/a/./b", "bad://echo/%2e%2e/x", "bad://echo/.%2E/x", "bad://echo/..%2fx",
		"bad://echo/..%5Cx", `bad://echo/..\x`, "bad://echo/a/..", "bad://echo/" + strings.Repeat("a", abi.MaxURILen),
	} {
		_, _, err := h.ReadResource(ctx, uri, host.Request{})
		if re, ok := errors.AsType[*host.RequestError](err); !ok || re.Code != abi.CodeInvalidParams {
			t.Errorf("read %.60s: %v, want invalid params before the guest runs", uri, err)
		}
	}
	for _, uri := range []string{"other://echo/x", "BAD://echo/x", "bad:/echo/x", "file:///etc/passwd", ""} {
		if _, _, err := h.ReadResource(ctx, uri, host.Request{}); !errors.Is(err, host.ErrUnknownResource) {
			t.Errorf("read %q: %v, want not found", uri, err)
		}
	}
	// Dots that are not a segment are a name like any other.
	for _, uri := range []string{"bad://echo/a..b", "bad://echo/.well-known/x", "bad://echo/x?q=..."} {
		if r, _, err := h.ReadResource(ctx, uri, host.Request{}); err != nil || *r.Contents[0].Text != uri {
			t.Errorf("read %s: %+v, %v", uri, r, err)
		}
	}
}

// Reads racing across the plugin's instances, some of which trap: each
// read gets its own URI back, never another's.
func TestOffersRacingReads(t *testing.T) {
	h, _ := hostileOffers(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				if i%10 == 9 {
					_, _, _ = h.ReadResource(ctx, "bad://trap", host.Request{})
					continue
				}
				uri := fmt.Sprintf("bad://echo/%d/%d", g, i)
				r, _, err := h.ReadResource(ctx, uri, host.Request{})
				if err == nil && *r.Contents[0].Text != uri {
					err = fmt.Errorf("read %s got %s", uri, *r.Contents[0].Text)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	healthy(t, h)
}

// A view's read is held to the plugin's grants whatever URI its contents
// name: a guest cannot pass a CSP origin by naming its contents otherwise.
func TestOffersViewContentsCapped(t *testing.T) {
	h, l := hostileOffers(t)
	r, _, err := h.ReadResource(context.Background(), "ui://bad/view", host.Request{})
	if err != nil {
		t.Fatal(err)
	}
	csp := r.Contents[0].Meta["ui"].(map[string]any)["csp"].(map[string]any)
	if got := csp["connectDomains"].([]any); len(got) != 0 {
		t.Errorf("connectDomains %v reach the client; the plugin is granted no origin", got)
	}
	// The read logs it before it returns.
	if line, _ := l.lineWith("app view asks for origins the plugin is not granted", "https://evil.example"); line == "" {
		t.Errorf("no warning names the origin:\n%s", l)
	}
}

// Two plugins offering one ui:// view: the first keeps it. The second's
// tool that names the view does not show the first's: it is served
// without it until the first goes.
func TestOffersViewCollision(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	module := func(tool, text string) []byte {
		return offerModule(t, []byte(`{"tools":[{"name":"`+tool+`","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://shared/view"}}}],
			"resources":[{"uri":"ui://shared/view","name":"view","mimeType":"text/html;profile=mcp-app"}]}`), text,
			map[string]string{abi.ExportRead: `{"contents":[{"uri":"ui://shared/view","mimeType":"text/html;profile=mcp-app","text":"` + text + `"}]}`})
	}
	place(t, dir, "a.wasm", module("a_show", "a"))
	place(t, dir, "b.wasm", module("b_show", "b"))
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t))
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}

	if rs := h.ResourcesFor(nil); len(rs) != 1 || rs[0].Plugin != "a" {
		t.Fatalf("resources %+v, want a's view alone", rs)
	}
	if r, _, err := h.ReadResource(ctx, "ui://shared/view", host.Request{}); err != nil || *r.Contents[0].Text != "a" {
		t.Errorf("read the view: %+v, %v; want a's", r, err)
	}
	refused := slices.ContainsFunc(h.Refused(), func(r host.Refusal) bool {
		return strings.Contains(r.Tool, "ui://shared/view") && strings.HasSuffix(r.File, "b.wasm")
	})
	if !refused {
		t.Errorf("refusals %+v, want b's view", h.Refused())
	}
	view := func(tool string) any {
		i := slices.IndexFunc(h.ToolsFor(nil), func(t host.Tool) bool { return t.Name == tool })
		if i < 0 {
			t.Fatalf("%s is not served", tool)
		}
		return h.ToolsFor(nil)[i].Meta["ui"]
	}
	if v := view("b_show"); v != nil {
		t.Errorf("b_show is served naming a view plugin a serves: %v", v)
	}
	if view("a_show") == nil {
		t.Error("a_show lost its view")
	}
	if line, _ := l.lineWith("tool served without its app view", "tool=b_show", "b.wasm"); line == "" {
		t.Errorf("no warning names b_show:\n%s", l)
	}

	// When a goes, b serves the view, and b_show names it again: an
	// updated tool, which clients hear of.
	changes := subscribe(h)
	if err := h.UnloadFile(filepath.Join(dir, "a.wasm")); err != nil {
		t.Fatal(err)
	}
	c := changes.next(t)
	if !slices.ContainsFunc(c.Updated, func(t host.Tool) bool { return t.Name == "b_show" && t.Meta["ui"] != nil }) {
		t.Errorf("change %s, want b_show updated with its view", summary(c))
	}
	if r, _, err := h.ReadResource(ctx, "ui://shared/view", host.Request{}); err != nil || *r.Contents[0].Text != "b" {
		t.Errorf("read the view after a went: %+v, %v; want b's", r, err)
	}
}

// A view's CSP origins reach clients only within what the policy grants
// the plugin: WebSocket origins are held to their HTTP counterparts, a
// wildcard only when the grant covers it, and a member that is not a list
// is dropped whole; each is named in a warning.
func TestOffersViewCSP(t *testing.T) {
	describe := `{"permissions":{"net":["*"]},"resources":[{"uri":"ui://v/view","name":"view","mimeType":"text/html;profile=mcp-app",
		"_meta":{"ui":{"csp":{"connectDomains":["https://api.example.com","wss://api.example.com","https://evil.example","*",42,
		"https://*.example.com","https://cdn.example.org:8443"],"resourceDomains":"https://api.example.com",
		"frameDomains":["https://docs.example.org"],"baseUriDomains":[]}}}}]}`
	dir := t.TempDir()
	place(t, dir, "v.wasm", offerModule(t, []byte(describe), "x", map[string]string{abi.ExportRead: notesRead}))
	pol, err := policy.Parse([]byte(`{"plugins":{"v":{"net":["https://api.example.com","https://*.example.org"]}}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t).WithPolicy(pol))
	if err := h.LoadDir(context.Background()); err != nil {
		t.Fatal(err)
	}
	rs := h.ResourcesFor(nil)
	if len(rs) != 1 {
		t.Fatalf("resources %+v", rs)
	}
	csp := rs[0].Meta["ui"].(map[string]any)["csp"].(map[string]any)
	want := map[string]string{
		"connectDomains":  "[https://api.example.com wss://api.example.com]",
		"resourceDomains": "<nil>",
		"frameDomains":    "[https://docs.example.org]",
		"baseUriDomains":  "[]",
	}
	for key, w := range want {
		if got := fmt.Sprint(csp[key]); got != w {
			t.Errorf("%s: %s, want %s", key, got, w)
		}
	}
	line := l.wait(t, "app view asks for origins the plugin is not granted")
	for _, dropped := range []string{"https://evil.example", "42", "https://*.example.com", "https://cdn.example.org:8443", "resourceDomains (not a list)"} {
		if !strings.Contains(line, dropped) {
			t.Errorf("the warning does not name %s: %s", dropped, line)
		}
	}
}
