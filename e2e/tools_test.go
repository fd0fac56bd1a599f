package e2e

import (
	"bytes"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolCase is one call of a bundled tool and what a client must get back.
type toolCase struct {
	tool  string
	args  string
	check func(t *testing.T, res *mcp.CallToolResult)
}

// wantText checks for a successful result whose text is exactly want.
func wantText(want string) func(*testing.T, *mcp.CallToolResult) {
	return func(t *testing.T, res *mcp.CallToolResult) {
		wantOK(t, res)
		if got := text(res); got != want {
			t.Errorf("text = %q, want %q", got, want)
		}
	}
}

// wantStructured checks for a successful result whose structuredContent
// holds want (a JSON object; fields of the result not in want are not
// compared).
func wantStructured(want string) func(*testing.T, *mcp.CallToolResult) {
	return func(t *testing.T, res *mcp.CallToolResult) {
		wantOK(t, res)
		var got, exp map[string]any
		structured(t, res, &got)
		if err := json.Unmarshal([]byte(want), &exp); err != nil {
			t.Fatalf("bad want: %v", err)
		}
		for k, v := range exp {
			if mustJSON(t, got[k]) != mustJSON(t, v) {
				t.Errorf("structuredContent.%s = %s, want %s", k, mustJSON(t, got[k]), mustJSON(t, v))
			}
		}
	}
}

// wantMirrored is wantStructured for a tool that returns no content of its
// own: the host mirrors structuredContent as the one text block.
func wantMirrored(want string) func(*testing.T, *mcp.CallToolResult) {
	return func(t *testing.T, res *mcp.CallToolResult) {
		wantStructured(want)(t, res)
		var got, mirrored any
		structured(t, res, &got)
		if len(res.Content) != 1 || json.Unmarshal([]byte(text(res)), &mirrored) != nil || mustJSON(t, mirrored) != mustJSON(t, got) {
			t.Errorf("content %s does not mirror structuredContent %s", mustJSON(t, res.Content), mustJSON(t, got))
		}
	}
}

// exampleCases call the tools of the example modules, which every guest
// language implements alike (examples/go/everything, examples/c, ...): those
// of the MCP "everything" reference server.
var exampleCases = []toolCase{
	{"echo", `{"message":"hi"}`, wantText("Echo: hi")},
	{"get-sum", `{"a":7,"b":5}`, wantText("The sum of 7 and 5 is 12.")},
	{"get-structured-content", `{"location":"Chicago"}`,
		wantMirrored(`{"temperature":18,"conditions":"Windy","humidity":55}`)},
	{"get-tiny-image", `{}`, func(t *testing.T, res *mcp.CallToolResult) {
		wantOK(t, res)
		if len(res.Content) != 3 {
			t.Fatalf("content = %s, want text, image, text", mustJSON(t, res.Content))
		}
		img, ok := res.Content[1].(*mcp.ImageContent)
		if !ok || img.MIMEType != "image/png" || !bytes.HasPrefix(img.Data, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("content[1] = %s, want a PNG image", mustJSON(t, res.Content[1]))
		}
	}},
	{"get-resource-links", `{"count":2}`, func(t *testing.T, res *mcp.CallToolResult) {
		wantOK(t, res)
		var uris []string
		for _, c := range res.Content {
			if l, ok := c.(*mcp.ResourceLink); ok {
				uris = append(uris, l.URI)
			}
		}
		if want := []string{"test://static/resource/1", "test://static/resource/2"}; !slices.Equal(uris, want) {
			t.Errorf("resource links %v, want %v", uris, want)
		}
	}},
	{"get-error", `{"message":"why"}`, func(t *testing.T, res *mcp.CallToolResult) {
		wantToolError(t, res, "get-error: why")
	}},
}

// pluginCases call every tool of the first-party plugins.
var pluginCases = []toolCase{
	// plugins/jq
	{"jq", `{"filter":"[.items[] | select(.price > 10) | .name]","input":{"items":[{"name":"a","price":5},{"name":"b","price":20}]}}`,
		wantStructured(`{"results":[["b"]],"truncated":false}`)},
	// Its answer to the model; the view it names runs in e2e/ts/app.test.mjs.
	{"jq_playground", `{"filter":".a","input_text":"{\"a\":1}"}`,
		wantText("The jq playground is open for the user with this filter and input. " +
			"They can edit both and see the results as they type; the results come from the jq tool.")},

	// plugins/hash, with published test vectors (FIPS 180-2 for "abc", the
	// widely quoted HMAC-SHA256 of "The quick brown fox...").
	{"hash", `{"text":"abc"}`,
		wantStructured(`{"algorithm":"sha256","digest":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad","bytes":3}`)},
	{"hmac", `{"text":"The quick brown fox jumps over the lazy dog","key":"key"}`,
		wantStructured(`{"algorithm":"sha256","mac":"f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"}`)},
	{"encode", `{"text":"a b/c","encoding":"url"}`, wantStructured(`{"encoded":"a+b%2Fc","bytes":5}`)},
	{"decode", `{"data":"68656c6c6f","encoding":"hex"}`, wantStructured(`{"utf8":true,"text":"hello","bytes":5}`)},

	// plugins/fetch, served here without a policy, so that it may reach
	// nothing (TestFetchWithTheGoClient serves it with one).
	{"fetch", `{"url":"http://127.0.0.1:9/"}`, func(t *testing.T, res *mcp.CallToolResult) {
		wantToolError(t, res, "http://127.0.0.1:9 is not in plugin fetch's net policy")
	}},

	// plugins/text
	{"regex_match", `{"pattern":"(\\d+)","text":"abc 123 def 45","all":true}`, func(t *testing.T, res *mcp.CallToolResult) {
		wantOK(t, res)
		var out struct {
			Matched bool
			Matches []struct{ Text string }
		}
		structured(t, res, &out)
		if !out.Matched || len(out.Matches) != 2 || out.Matches[0].Text != "123" || out.Matches[1].Text != "45" {
			t.Errorf("structuredContent = %s, want matches 123 and 45", mustJSON(t, res.StructuredContent))
		}
	}},
	{"regex_replace", `{"pattern":"o","text":"foo","replacement":"0"}`,
		wantStructured(`{"text":"f00","replacements":2}`)},
	{"text_stats", `{"text":"hello world\n"}`,
		wantStructured(`{"bytes":12,"characters":12,"lines":1,"words":2,"ends_with_newline":true}`)},
	{"unified_diff", `{"a":"x\ny\n","b":"x\nz\n"}`, func(t *testing.T, res *mcp.CallToolResult) {
		wantStructured(`{"identical":false,"hunks":1,"added":1,"removed":1}`)(t, res)
		var out struct{ Diff string }
		structured(t, res, &out)
		if !strings.Contains(out.Diff, "\n-y\n+z\n") {
			t.Errorf("diff = %q, want -y then +z", out.Diff)
		}
	}},
}

// TestBundledTools serves every bundled module and calls every tool
// through a real client, over the initialize handshake of today's clients.
// The example modules of the different guest languages define the same
// tools; the first by plugin name serves each, as the host's collision rule
// says, and TestExamplesInEveryLanguage covers the others.
func TestBundledTools(t *testing.T) {
	s := startServer(t, servedCopy(t, bundled(t)...), serverOptions{protocol: legacyProtocol})

	t.Run("initialize", func(t *testing.T) {
		res := s.InitializeResult()
		if res.ServerInfo.Name != "wasmcp" {
			t.Errorf("serverInfo = %+v", res.ServerInfo)
		}
		if res.Capabilities.Tools == nil || !res.Capabilities.Tools.ListChanged {
			t.Errorf("capabilities.tools = %+v, want listChanged", res.Capabilities.Tools)
		}
	})

	served := s.tools(t)
	t.Run("list", func(t *testing.T) {
		// Every bundled tool is served with the definition its module
		// declares, schemas as the guest wrote them.
		declared := declaredTools(t)
		if got, want := slices.Sorted(maps.Keys(served)), slices.Sorted(maps.Keys(declared)); !slices.Equal(got, want) {
			t.Fatalf("tools/list = %v, modules declare %v", got, want)
		}
		for name, d := range declared {
			t.Run(name, func(t *testing.T) {
				tool := served[name]
				if !sameJSON(t, tool.InputSchema, d.InputSchema) {
					t.Errorf("%s: inputSchema %s, module declares %s", name, mustJSON(t, tool.InputSchema), d.InputSchema)
				}
				if !sameJSON(t, tool.OutputSchema, d.OutputSchema) {
					t.Errorf("%s: outputSchema %s, module declares %s", name, mustJSON(t, tool.OutputSchema), d.OutputSchema)
				}
				if tool.Description != d.Description {
					t.Errorf("%s: description %q, module declares %q", name, tool.Description, d.Description)
				}
			})
		}
	})

	covered := map[string]bool{}
	for _, tc := range slices.Concat(exampleCases, goExampleCases, pluginCases) {
		covered[tc.tool] = true
		t.Run("call/"+tc.tool, func(t *testing.T) { s.check(t, tc) })
	}
	for name := range served {
		if !covered[name] {
			t.Errorf("bundled tool %s has no case in exampleCases or pluginCases", name)
		}
	}

	t.Run("wrong-typed argument", func(t *testing.T) {
		// Not a protocol error: the model reads the validator's message.
		res := s.call(t, "get-sum", `{"a":"seven","b":5}`)
		wantToolError(t, res, "/a", "number")
	})
	t.Run("missing required argument", func(t *testing.T) {
		wantToolError(t, s.call(t, "jq", `{"input":1}`), "filter")
	})
	t.Run("unknown tool", func(t *testing.T) {
		_, err := s.callErr(t, "no-such-tool", `{}`)
		wantInvalidParams(t, err)
	})
	t.Run("guest log lines reach the client", func(t *testing.T) {
		ctx := testContext(t)
		if err := s.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatal(err)
		}
		s.call(t, "echo", `{"message":"logged"}`)
		for {
			select {
			case p := <-s.logs:
				if p.Data == "echo: logged" {
					if p.Level != "debug" || p.Logger != "everything" {
						t.Errorf("log = %+v, want level debug from everything", p)
					}
					return
				}
			case <-ctx.Done():
				t.Fatal("no notifications/message with the guest's log line")
			}
		}
	})
}

// TestExamplesInEveryLanguage serves each example module on its own, so
// that every guest language's SDK is seen end to end by a client.
func TestExamplesInEveryLanguage(t *testing.T) {
	langs, err := filepath.Glob(filepath.Join(examplesDir, "examples-*.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if examplesDir == pluginsDir {
		langs = nil // bundled already lists them
	}
	n := 0
	for _, m := range slices.Concat(bundled(t), langs) {
		if _, ok := moduleTools(t, m)["echo"]; !ok {
			continue // a plugin, not an example
		}
		n++
		t.Run(strings.TrimSuffix(filepath.Base(m), ".wasm"), func(t *testing.T) {
			s := startServer(t, servedCopy(t, m), serverOptions{protocol: legacyProtocol})
			for _, tc := range exampleCases {
				t.Run(tc.tool, func(t *testing.T) { s.check(t, tc) })
			}
			t.Run("wrong-typed argument", func(t *testing.T) {
				wantToolError(t, s.call(t, "get-sum", `{"a":"seven","b":5}`), "/a")
			})
		})
	}
	if n == 0 {
		t.Fatal("no example module (one defining echo) among the bundled modules")
	}
}

// check runs one case.
func (s *server) check(t *testing.T, tc toolCase) {
	t.Helper()
	res := s.call(t, tc.tool, tc.args)
	tc.check(t, res)
	if res.StructuredContent == nil && !res.IsError {
		t.Error("structuredContent absent; want it on every successful result ({} when none)")
	}
}

// declaredTools are the definitions the bundled modules serve: for a name
// several modules define, the first module's in plugin name order, which is
// the one the host serves when no earlier claim says otherwise.
func declaredTools(t *testing.T) map[string]declared {
	t.Helper()
	out := map[string]declared{}
	for _, m := range bundled(t) { // sorted by file name
		for name, d := range moduleTools(t, m) {
			if _, ok := out[name]; !ok {
				out[name] = d
			}
		}
	}
	return out
}

// moduleTools are a module's definitions as "wasmcp inspect --json"
// reports them.
func moduleTools(t *testing.T, module string) map[string]declared {
	t.Helper()
	code, stdout, stderr := wasmcp(t, "inspect", "--json", "--cache-dir", cacheDir, module)
	if code != 0 {
		t.Fatalf("inspect %s: exit %d\n%s%s", module, code, stdout, stderr)
	}
	var r struct{ Tools []declared }
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("inspect %s: %v", module, err)
	}
	out := map[string]declared{}
	for _, d := range r.Tools {
		out[d.Name] = d
	}
	return out
}

type declared struct {
	Name         string
	Description  string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
}

// sameJSON reports whether got (as a client decoded it) and want (raw JSON,
// possibly empty for none) are the same JSON value.
func sameJSON(t *testing.T, got any, want json.RawMessage) bool {
	t.Helper()
	if len(want) == 0 {
		return got == nil
	}
	var w any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	return mustJSON(t, got) == mustJSON(t, w)
}
