package abi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
)

func TestValidateResource(t *testing.T) {
	for _, tc := range []struct {
		name, doc, err string
	}{
		{"plain", `{"uri":"notes://1","name":"one","mimeType":"text/markdown; charset=utf-8","size":3}`, ""},
		{"file", `{"uri":"file:///data/a.txt","name":"a"}`, ""},
		{"app", `{"uri":"ui://jq/playground","name":"p","mimeType":"text/html;profile=mcp-app"}`, ""},
		{"no uri", `{"name":"x"}`, "uri is missing"},
		{"relative", `{"uri":"notes/1","name":"x"}`, "not an absolute URI"},
		{"bad scheme", `{"uri":"1notes:x","name":"x"}`, "not an absolute URI"},
		{"space", `{"uri":"notes://a b","name":"x"}`, "space"},
		{"fragment", `{"uri":"notes://a#b","name":"x"}`, "fragment"},
		{"long", `{"uri":"notes://` + strings.Repeat("a", abi.MaxURILen) + `","name":"x"}`, "more than"},
		{"no name", `{"uri":"notes://1"}`, "name is missing"},
		{"bad mime", `{"uri":"notes://1","name":"x","mimeType":"text"}`, "not a media type"},
		{"negative size", `{"uri":"notes://1","name":"x","size":-1}`, "negative"},
		{"app without its type", `{"uri":"ui://x/y","name":"x","mimeType":"text/html"}`, "must have the mimeType"},
		{"bad annotation", `{"uri":"notes://1","name":"x","annotations":{"priority":2}}`, "priority"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r abi.Resource
			if err := json.Unmarshal([]byte(tc.doc), &r); err != nil {
				t.Fatal(err)
			}
			checkErr(t, abi.ValidateResource(&r), tc.err)
		})
	}
}

func TestValidateResourceTemplate(t *testing.T) {
	for _, tc := range []struct {
		name, template, err string
	}{
		{"path", "file:///data/{+path}", ""},
		{"opaque", "notes:{id}", ""},
		{"all uris", "{+uri}", "does not begin with a scheme"},
		{"scheme in a variable", "{scheme}://x", "does not begin with a scheme"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkErr(t, abi.ValidateResourceTemplate(&abi.ResourceTemplate{URITemplate: tc.template, Name: "t"}), tc.err)
		})
	}
}

func TestValidatePrompt(t *testing.T) {
	many := make([]abi.PromptArgument, abi.MaxPromptArguments+1)
	for i := range many {
		many[i].Name = strings.Repeat("a", i+1)
	}
	for _, tc := range []struct {
		name string
		p    abi.Prompt
		err  string
	}{
		{"ok", abi.Prompt{Name: "review", Arguments: []abi.PromptArgument{{Name: "diff", Required: true}}}, ""},
		{"no name", abi.Prompt{}, "name is missing"},
		{"bad name", abi.Prompt{Name: "a b"}, "characters"},
		{"twice", abi.Prompt{Name: "p", Arguments: []abi.PromptArgument{{Name: "x"}, {Name: "x"}}}, "twice"},
		{"unnamed argument", abi.Prompt{Name: "p", Arguments: []abi.PromptArgument{{}}}, "name must be"},
		{"too many", abi.Prompt{Name: "p", Arguments: many}, "more than"},
	} {
		t.Run(tc.name, func(t *testing.T) { checkErr(t, abi.ValidatePrompt(&tc.p), tc.err) })
	}
}

func TestValidateReadAndPromptResults(t *testing.T) {
	for _, tc := range []struct {
		name, doc, err string
	}{
		{"text", `{"contents":[{"uri":"notes://1","text":""}]}`, ""},
		{"blob", `{"contents":[{"uri":"notes://1","blob":"aGk="}]}`, ""},
		{"empty", `{"contents":[]}`, "contents is empty"},
		{"both", `{"contents":[{"uri":"notes://1","text":"a","blob":"aGk="}]}`, "exactly one"},
		{"bad base64", `{"contents":[{"uri":"notes://1","blob":"***"}]}`, "base64"},
		{"no uri", `{"contents":[{"text":"a"}]}`, "uri is missing"},
	} {
		t.Run("read/"+tc.name, func(t *testing.T) {
			var r abi.ReadResult
			if err := json.Unmarshal([]byte(tc.doc), &r); err != nil {
				t.Fatal(err)
			}
			checkErr(t, r.Validate(), tc.err)
		})
	}
	for _, tc := range []struct {
		name, doc, err string
	}{
		{"text", `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}`, ""},
		{"empty", `{"messages":[]}`, "messages is empty"},
		{"role", `{"messages":[{"role":"system","content":{"type":"text","text":"hi"}}]}`, "role"},
		{"content", `{"messages":[{"role":"user","content":{"type":"image"}}]}`, "needs data"},
	} {
		t.Run("prompt/"+tc.name, func(t *testing.T) {
			var r abi.PromptResult
			if err := json.Unmarshal([]byte(tc.doc), &r); err != nil {
				t.Fatal(err)
			}
			checkErr(t, r.Validate(), tc.err)
		})
	}
}

func TestGuestErrorCode(t *testing.T) {
	for code, want := range map[int]int{0: abi.CodeInternalError, -32002: -32002, -32602: -32602, -32601: abi.CodeInternalError, 42: abi.CodeInternalError} {
		if got := (&abi.GuestError{Code: code}).JSONRPCCode(); got != want {
			t.Errorf("code %d is sent as %d, want %d", code, got, want)
		}
	}
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("refused: %v", err)
	case want != "" && err == nil:
		t.Errorf("accepted, want an error with %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Errorf("error %q, want %q in it", err, want)
	}
}
