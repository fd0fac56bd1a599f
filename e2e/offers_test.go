package e2e

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What testdata/offers.wat offers besides the ones it lists in a loop, and
// how many of those.
const (
	offersMany      = 1010
	offersResources = 5 + offersMany // text, blob, empty, secret, the view
	offersPrompts   = 3 + offersMany // greet, refuse, secret_prompt
	// offersPolicy grants the origin the module requests, so that its view
	// keeps that one of the two CSP origins it asks for.
	offersPolicy = `{"plugins": {"offers": {"net": ["https://api.example.com"]}}}`
)

// offersServer serves testdata/offers.wat and hyper-mcp's published v2
// plugin, rstime (a prompt, a template, completion), with offersPolicy and
// extra serve flags.
func offersServer(t *testing.T, opts serverOptions, policy string) *server {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := servedCopy(t, wat("offers"), filepath.Join(root, "host", "testdata", "thirdparty", "rstime.wasm"))
	config := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(config, []byte(cmp.Or(policy, offersPolicy)), 0o600); err != nil {
		t.Fatal(err)
	}
	opts.args = append([]string{"--config", config}, opts.args...)
	return startServer(t, dir, opts)
}

// eras are the transports and protocol versions the go-sdk client tests
// run over.
var eras = []struct {
	protocol string
	http     bool
}{{legacyProtocol, false}, {"", false}, {legacyProtocol, true}, {"", true}}

func eraName(protocol string, http bool) string {
	transport := "stdio"
	if http {
		transport = "http"
	}
	return transport + "/protocol=" + cmp.Or(protocol, "latest")
}

// TestOffers drives every method of resources, prompts and completion with
// the go-sdk client, over stdio and Streamable HTTP, in both protocol eras:
// lists that need pages, reads of text, binary and empty contents, a
// template's match, an app view with its CSP held to the plugin's grants,
// prompts with their arguments checked, completion, the errors a client
// gets for each kind of mistake, and hyper-mcp's own plugin served
// unchanged beside.
func TestOffers(t *testing.T) {
	for _, era := range eras {
		t.Run(eraName(era.protocol, era.http), func(t *testing.T) {
			s := offersServer(t, serverOptions{protocol: era.protocol, http: era.http}, "")
			checkOffers(t, s)
		})
	}
}

func checkOffers(t *testing.T, s *server) {
	ctx := testContext(t)
	caps := s.InitializeResult().Capabilities
	if caps.Prompts == nil || !caps.Prompts.ListChanged || caps.Resources == nil || !caps.Resources.ListChanged || caps.Completions == nil {
		t.Errorf("capabilities %s: want prompts and resources with listChanged, and completions", mustJSON(t, caps))
	}
	if _, ok := caps.Extensions["io.modelcontextprotocol/ui"]; !ok {
		t.Errorf("capabilities %s: the MCP Apps extension is not declared", mustJSON(t, caps))
	}

	t.Run("lists", func(t *testing.T) {
		first, err := s.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(first.Resources) != 1000 || first.NextCursor == "" {
			t.Errorf("first page of resources: %d, next cursor %q; want 1000 and a cursor", len(first.Resources), first.NextCursor)
		}
		resources := map[string]*mcp.Resource{}
		for r, err := range s.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			if resources[r.URI] != nil {
				t.Errorf("%s listed twice", r.URI)
			}
			resources[r.URI] = r
		}
		if len(resources) != offersResources {
			t.Errorf("%d resources over every page, want %d", len(resources), offersResources)
		}
		if r := resources["offers://text"]; r == nil || r.Title != "Plain text" || r.MIMEType != "text/plain" || r.Size != 10 {
			t.Errorf("offers://text listed as %s", mustJSON(t, r))
		}
		view := resources["ui://offers/view"]
		if view == nil || view.MIMEType != "text/html;profile=mcp-app" {
			t.Fatalf("the view listed as %s", mustJSON(t, view))
		}
		if got := cspOf(t, view.Meta); !slices.Equal(got, []string{"https://api.example.com"}) {
			t.Errorf("the view's connectDomains %q, want only the granted origin", got)
		}

		var templates []string
		for tm, err := range s.ResourceTemplates(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			templates = append(templates, tm.URITemplate)
		}
		if !slices.Contains(templates, "offers://items/{id}") || !slices.ContainsFunc(templates, func(u string) bool {
			return strings.HasPrefix(u, "https://www.timezoneconverter.com/")
		}) {
			t.Errorf("templates %q, want offers' and rstime's", templates)
		}

		prompts := map[string]*mcp.Prompt{}
		pages := 0
		for cursor := ""; pages == 0 || cursor != ""; pages++ {
			res, err := s.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range res.Prompts {
				prompts[p.Name] = p
			}
			cursor = res.NextCursor
		}
		if len(prompts) != offersPrompts+1 || pages != 2 {
			t.Errorf("%d prompts in %d pages, want %d in 2", len(prompts), pages, offersPrompts+1)
		}
		greet := prompts["greet"]
		if greet == nil || len(greet.Arguments) != 2 || !greet.Arguments[0].Required || greet.Title != "Greet" {
			t.Errorf("greet listed as %s", mustJSON(t, greet))
		}
		if prompts["get_time_with_timezone"] == nil {
			t.Error("rstime's prompt is not listed")
		}

		tool := s.tools(t)["show"]
		if tool == nil || tool.Meta["ui"] == nil {
			t.Errorf("show listed as %s, want its _meta.ui", mustJSON(t, tool))
		}
	})

	t.Run("read", func(t *testing.T) {
		for _, tc := range []struct {
			uri, mime, text string
			blob            []byte
		}{
			{"offers://text", "text/plain", "plain text", nil},
			{"offers://blob", "application/octet-stream", "", []byte{0, 1, 2, 3}},
			{"offers://empty", "text/plain", "", nil},
			{"offers://items/42", "text/plain", "item 42", nil},
			{"offers://many/0999", "", "many", nil},
		} {
			res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
			if err != nil {
				t.Errorf("read %s: %v", tc.uri, err)
				continue
			}
			if len(res.Contents) != 1 {
				t.Errorf("read %s: %d contents", tc.uri, len(res.Contents))
				continue
			}
			c := res.Contents[0]
			if c.URI != tc.uri || c.MIMEType != tc.mime || c.Text != tc.text || !slices.Equal(c.Blob, tc.blob) {
				t.Errorf("read %s: %s", tc.uri, mustJSON(t, c))
			}
		}
		res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ui://offers/view"})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Contents[0]
		if c.MIMEType != "text/html;profile=mcp-app" || !strings.Contains(c.Text, "<p>view</p>") {
			t.Errorf("the view read as %s", mustJSON(t, c))
		}
		if got := cspOf(t, c.Meta); !slices.Equal(got, []string{"https://api.example.com"}) {
			t.Errorf("the view's contents carry connectDomains %q, want only the granted origin", got)
		}
	})

	t.Run("read errors", func(t *testing.T) {
		for _, tc := range []struct {
			uri  string
			code int64
			want string
		}{
			{"nope://x", -32002, "resource not found: nope://x"},
			{"offers://items/missing", -32002, "plugin offers: no such item"},
			{"offers://items/../text", jsonrpc.CodeInvalidParams, `"." or ".." path segment`},
			{"offers://items/%2E%2E", jsonrpc.CodeInvalidParams, `"." or ".." path segment`},
			{"offers://items/trap", jsonrpc.CodeInternalError, "trap"},
		} {
			_, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
			wantRPCError(t, err, tc.code, tc.want)
		}
		// The trap discarded its instance; the plugin serves on.
		if res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "offers://items/7"}); err != nil || res.Contents[0].Text != "item 7" {
			t.Errorf("read after a trap: %v, %v", res, err)
		}
	})

	t.Run("prompts", func(t *testing.T) {
		res, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada", "style": "warm"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Description != "A greeting" || len(res.Messages) != 2 {
			t.Fatalf("greet: %s", mustJSON(t, res))
		}
		first, ok := res.Messages[0].Content.(*mcp.TextContent)
		if !ok || res.Messages[0].Role != "user" || !strings.Contains(first.Text, "Greet") {
			t.Errorf("greet's first message: %s", mustJSON(t, res.Messages[0]))
		}
		// The guest echoes the arguments it got: the host's object of strings.
		if got := mustJSON(t, first.Meta["arguments"]); got != `{"name":"Ada","style":"warm"}` {
			t.Errorf("the guest got arguments %s", got)
		}
		embedded, ok := res.Messages[1].Content.(*mcp.EmbeddedResource)
		if !ok || res.Messages[1].Role != "assistant" || embedded.Resource.Text != "plain text" {
			t.Errorf("greet's second message: %s", mustJSON(t, res.Messages[1]))
		}
		for _, tc := range []struct {
			name string
			args map[string]string
			want string
		}{
			{"greet", nil, `argument "name" is required`},
			{"greet", map[string]string{"name": "Ada", "mood": "x"}, `the prompt has no argument "mood"`},
			{"refuse", nil, "plugin offers: the guest refuses"},
			{"no_such_prompt", nil, `unknown prompt "no_such_prompt"`},
		} {
			_, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: tc.name, Arguments: tc.args})
			wantRPCError(t, err, jsonrpc.CodeInvalidParams, tc.want)
		}
		rs, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "get_time_with_timezone", Arguments: map[string]string{"timezone": "Europe/Paris"}})
		if err != nil || !strings.Contains(mustJSON(t, rs.Messages), "Europe/Paris") {
			t.Errorf("rstime's prompt: %v, %v", rs, err)
		}
	})

	t.Run("completion", func(t *testing.T) {
		for _, tc := range []struct {
			ref  *mcp.CompleteReference
			arg  string
			want []string
		}{
			{&mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, "name", []string{"Ada", "Alan", "Grace"}},
			{&mcp.CompleteReference{Type: "ref/resource", URI: "offers://items/{id}"}, "id", []string{"Ada", "Alan", "Grace"}},
			// An argument the prompt does not have: none, without the guest.
			{&mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, "mood", []string{}},
			{&mcp.CompleteReference{Type: "ref/prompt", Name: "no_such_prompt"}, "x", []string{}},
		} {
			res, err := s.Complete(ctx, &mcp.CompleteParams{Ref: tc.ref, Argument: mcp.CompleteParamsArgument{Name: tc.arg}})
			if err != nil || !slices.Equal(res.Completion.Values, tc.want) {
				t.Errorf("complete %s %s: %v, %v; want %q", mustJSON(t, tc.ref), tc.arg, res, err, tc.want)
			}
		}
		res, err := s.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "get_time_with_timezone"},
			Argument: mcp.CompleteParamsArgument{Name: "timezone", Value: "Europe/Pa"}})
		if err != nil || !slices.Contains(res.Completion.Values, "Europe/Paris") {
			t.Errorf("rstime's completion: %v, %v", res, err)
		}
	})

	// Tools serve on beside.
	if res := s.call(t, "show", `{}`); text(res) != "shown" {
		t.Errorf("show = %q", text(res))
	}
}

// cspOf returns the connectDomains of a view's _meta.ui.csp.
func cspOf(t *testing.T, meta mcp.Meta) []string {
	t.Helper()
	var m struct {
		UI struct {
			CSP struct {
				ConnectDomains []string `json:"connectDomains"`
			} `json:"csp"`
		} `json:"ui"`
	}
	if err := json.Unmarshal([]byte(mustJSON(t, meta)), &m); err != nil {
		t.Fatal(err)
	}
	return m.UI.CSP.ConnectDomains
}

// wantRPCError fails the test unless err is a JSON-RPC error of code whose
// message holds want.
func wantRPCError(t *testing.T, err error, code int64, want string) {
	t.Helper()
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != code || !strings.Contains(rpcErr.Message, want) {
		t.Errorf("err = %v, want JSON-RPC error %d with %q", err, code, want)
	}
}

// TestOffersHotReload drops offers.wasm into a served directory and takes
// it away again: the prompts and resources lists' list_changed reach a
// 2025-11-25 session and a 2026-07-28 subscriptions/listen stream, over
// stdio and Streamable HTTP, and the lists follow.
func TestOffersHotReload(t *testing.T) {
	for _, era := range eras {
		t.Run(eraName(era.protocol, era.http), func(t *testing.T) {
			s := startServer(t, servedCopy(t, wat("hello")), serverOptions{protocol: era.protocol, http: era.http})
			count := func() (prompts, resources int) {
				for _, err := range s.Prompts(testContext(t), nil) {
					if err != nil {
						t.Fatal(err)
					}
					prompts++
				}
				for _, err := range s.Resources(testContext(t), nil) {
					if err != nil {
						t.Fatal(err)
					}
					resources++
				}
				return prompts, resources
			}
			if p, r := count(); p+r != 0 {
				t.Fatalf("%d prompts and %d resources before the module came", p, r)
			}
			added := filepath.Join(s.dir, "offers.wasm")
			copyFile(t, wat("offers"), added)
			s.waitChanged(t, s.promptsChanged, "prompts")
			s.waitChanged(t, s.resourcesChanged, "resources")
			if p, r := count(); p != offersPrompts || r != offersResources {
				t.Errorf("after the module came: %d prompts, %d resources; want %d, %d", p, r, offersPrompts, offersResources)
			}
			if res, err := s.ReadResource(testContext(t), &mcp.ReadResourceParams{URI: "offers://text"}); err != nil || res.Contents[0].Text != "plain text" {
				t.Errorf("read after the module came: %v, %v", res, err)
			}

			removeFile(t, added)
			s.waitChanged(t, s.promptsChanged, "prompts")
			s.waitChanged(t, s.resourcesChanged, "resources")
			if p, r := count(); p+r != 0 {
				t.Errorf("%d prompts and %d resources after the module went", p, r)
			}
			_, err := s.ReadResource(testContext(t), &mcp.ReadResourceParams{URI: "offers://text"})
			wantRPCError(t, err, -32002, "resource not found")
			if res := s.call(t, "hello", `{}`); res.IsError {
				t.Errorf("hello: %s", text(res))
			}
		})
	}
}

// TestOffersViews serves over stdio with views for the local principal: a
// resource, a prompt and a template the views deny are neither listed nor
// served to it, as if they did not exist; an app view denied by name stays
// visible while the tool that names it is, and goes with the tool. Reads
// and prompts write audit lines.
func TestOffersViews(t *testing.T) {
	for _, tc := range []struct {
		name     string
		deny     string
		viewSeen bool
	}{
		{"tool seen", `"offers/secret", "offers/secret_prompt", "offers/item", "offers/view"`, true},
		{"tool hidden", `"offers/secret", "offers/secret_prompt", "offers/item", "offers/view", "offers/show"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			policy := fmt.Sprintf(`{"local": {"subject": "me"}, "views": [{"name": "mine", "match": {"subjects": ["me"]},
				"allow": ["offers"], "deny": [%s]}]}`, tc.deny)
			s := offersServer(t, serverOptions{protocol: legacyProtocol, args: []string{"--log-format", "json"}}, policy)
			ctx := testContext(t)
			uris := map[string]bool{}
			for r, err := range s.Resources(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				uris[r.URI] = true
			}
			if uris["offers://secret"] || !uris["offers://text"] || uris["ui://offers/view"] != tc.viewSeen {
				t.Errorf("listed offers://secret %v, offers://text %v, the view %v; want false, true, %v",
					uris["offers://secret"], uris["offers://text"], uris["ui://offers/view"], tc.viewSeen)
			}
			_, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "offers://secret"})
			wantRPCError(t, err, -32002, "resource not found")
			_, err = s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ui://offers/view"})
			if tc.viewSeen && err != nil {
				t.Errorf("read the view: %v", err)
			} else if !tc.viewSeen {
				wantRPCError(t, err, -32002, "resource not found")
			}
			// The denied template: its URIs are not found, and it is not listed.
			_, err = s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "offers://items/1"})
			wantRPCError(t, err, -32002, "resource not found")
			for tm, err := range s.ResourceTemplates(ctx, nil) {
				if err != nil || tm.URITemplate == "offers://items/{id}" {
					t.Errorf("template listed: %v, %v", tm, err)
				}
			}
			// rstime is in no view's allow: none of it is seen.
			for p, err := range s.Prompts(ctx, nil) {
				if err != nil || p.Name == "secret_prompt" || p.Name == "get_time_with_timezone" {
					t.Errorf("prompt listed: %v, %v", p, err)
				}
			}
			_, err = s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "secret_prompt"})
			wantRPCError(t, err, jsonrpc.CodeInvalidParams, "unknown prompt")
			res, err := s.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "offers://items/{id}"},
				Argument: mcp.CompleteParamsArgument{Name: "id"}})
			if err != nil || len(res.Completion.Values) != 0 {
				t.Errorf("completion of a hidden template: %v, %v", res, err)
			}
			if _, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}}); err != nil {
				t.Errorf("greet: %v", err)
			}
			if _, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "offers://text"}); err != nil {
				t.Errorf("read offers://text: %v", err)
			}
			wantAudit(t, s, map[string]string{
				"resources/read offers://text":   "ok",
				"resources/read offers://secret": "protocol_error",
				"prompts/get greet":              "ok",
			})
		})
	}
}

// wantAudit waits for the audit lines of a JSON-logging server, by method
// and target, with the outcome given, the local principal's subject, and
// for a served one its plugin.
func wantAudit(t *testing.T, s *server, want map[string]string) {
	t.Helper()
	ctx := testContext(t)
	for {
		got := map[string]map[string]any{}
		for line := range strings.SplitSeq(s.stderr.String(), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) == nil && rec["component"] == "audit" {
				got[fmt.Sprint(rec["method"], " ", rec["target"])] = rec
			}
		}
		missing := ""
		for key, outcome := range want {
			rec, ok := got[key]
			if !ok {
				missing = key
				continue
			}
			if rec["outcome"] != outcome || rec["subject"] != "me" || outcome == "ok" && rec["plugin"] != "offers" {
				t.Errorf("audit line %s: %v; want outcome %s, subject me and plugin offers", key, rec, outcome)
			}
		}
		if missing == "" {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no audit line for %s:\n%s", missing, s.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
