package wasmcptest

import (
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/guest"
)

func init() {
	text := func(uri string, _ map[string]string) ([]abi.ResourceContents, error) {
		guest.Log(abi.LogInfo, "read "+uri)
		s := "text of " + uri
		return []abi.ResourceContents{{URI: uri, Text: &s}}, nil
	}
	if err := guest.RegisterResource(abi.Resource{URI: "w://a/b", Name: "ab"}, text); err != nil {
		panic(err)
	}
	match := func(uri string) (map[string]string, bool) {
		id, ok := strings.CutPrefix(uri, "w://n/")
		return map[string]string{"id": id}, ok
	}
	complete := func(value string, args map[string]string) ([]string, error) {
		return []string{value + "1", args["id"]}, nil
	}
	if err := guest.RegisterTemplate(abi.ResourceTemplate{URITemplate: "w://n/{id}{?v}", Name: "n"}, []string{"id", "v"}, match, text,
		map[string]guest.CompleteFunc{"v": complete}); err != nil {
		panic(err)
	}
	get := func(args map[string]string) ([]abi.PromptMessage, error) {
		return []abi.PromptMessage{{Role: "user", Content: abi.Text("hi " + args["who"])}}, nil
	}
	if err := guest.RegisterPrompt(abi.Prompt{Name: "w.greet", Arguments: []abi.PromptArgument{{Name: "who", Required: true}, {Name: "tone"}}},
		get, map[string]guest.CompleteFunc{"tone": complete}); err != nil {
		panic(err)
	}
}

func TestReadChecksLikeTheHost(t *testing.T) {
	res := Read(t, "w://a/b")
	if res.Error != nil || res.Text() != "text of w://a/b" || len(res.Logs) != 1 || res.Logs[0].Message != "read w://a/b" {
		t.Errorf("read: %+v", res)
	}
	if res := Read(t, "w://n/7"); res.Text() != "text of w://n/7" {
		t.Errorf("template: %+v", res)
	}
	if res := Read(t, "w://z"); res.Error == nil || res.Error.Code != abi.CodeResourceNotFound {
		t.Errorf("unknown URI: %+v", res)
	}
	// Refused before the guest runs: it logs nothing.
	for _, uri := range []string{"w://a/./b", "w://n/..", "w://n/%2E", "w://n/x%2F..%2Fy", "w:.."} {
		res := Read(t, uri)
		if res.Error == nil || res.Error.Code != abi.CodeInvalidParams || !strings.Contains(res.Error.Message, ". or .. path segment") || len(res.Logs) != 0 {
			t.Errorf("%s: %+v", uri, res)
		}
	}
	// A dot segment in the query is no path segment.
	if res := Read(t, "w://n/x?v=.."); res.Error != nil {
		t.Errorf("dots in the query: %+v", res)
	}
}

func TestGetPromptChecksLikeTheHost(t *testing.T) {
	if res := GetPrompt(t, "w.greet", map[string]string{"who": "you"}); res.Error != nil || res.Text() != "hi you" {
		t.Errorf("prompt: %+v", res)
	}
	for want, args := range map[string]map[string]string{
		`missing required argument "who"`: {"tone": "dry"},
		`unknown argument "mood"`:         {"who": "x", "mood": "y"},
	} {
		res := GetPrompt(t, "w.greet", args)
		if res.Error == nil || res.Error.Code != abi.CodeInvalidParams || !strings.Contains(res.Error.Message, want) {
			t.Errorf("%v: %+v, want %q", args, res, want)
		}
	}
	r := &recorder{TB: t}
	fatal(r, func() { GetPrompt(r, "w.unknown", nil) })
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], `unknown prompt "w.unknown"`) {
		t.Errorf("unknown prompt: failures %q", r.errors)
	}
}

func TestCompleteAsksTheGuestOnlyForItsArguments(t *testing.T) {
	for _, tc := range []struct {
		ref  abi.CompleteReference
		arg  string
		want string
	}{
		{PromptRef("w.greet"), "tone", "d1,n"},
		{PromptRef("w.greet"), "who", ""}, // no completion: the guest's empty answer
		{PromptRef("w.greet"), "mood", ""},
		{PromptRef("w.other"), "tone", ""},
		{TemplateRef("w://n/{id}{?v}"), "v", "d1,n"},
		{TemplateRef("w://n/{id}{?v}"), "x", ""},
		{TemplateRef("w://n/{id}"), "v", ""},
	} {
		res := Complete(t, tc.ref, tc.arg, "d", map[string]string{"id": "n"})
		if got := strings.Join(res.Values, ","); res.Error != nil || res.Values == nil || got != tc.want {
			t.Errorf("%+v %s: %+v, want %q", tc.ref, tc.arg, res, tc.want)
		}
	}
}

// TestDocumentsTheHostRefuses stands in for the guest's dispatchers to hand
// wasmcptest documents the SDK never writes.
func TestDocumentsTheHostRefuses(t *testing.T) {
	saved := [3]any{guest.Read, guest.GetPrompt, guest.Complete}
	defer func() {
		guest.Read = saved[0].(func(string) []byte)
		guest.GetPrompt = saved[1].(func(string, []byte) []byte)
		guest.Complete = saved[2].(func([]byte) []byte)
	}()
	for _, tc := range []struct {
		name, doc string
		run       func(testing.TB)
		want      string
	}{
		{"read empty", `{"contents":[]}`, func(t testing.TB) { Read(t, "w://a/b") }, "contents is empty"},
		{"read blob", `{"contents":[{"uri":"w://a/b","blob":"%%"}]}`, func(t testing.TB) { Read(t, "w://a/b") }, "not standard base64"},
		{"read text and blob", `{"contents":[{"uri":"w://a/b","text":"","blob":""}]}`, func(t testing.TB) { Read(t, "w://a/b") }, "exactly one of text and blob"},
		{"read not JSON", `{"contents":`, func(t testing.TB) { Read(t, "w://a/b") }, "would refuse the document"},
		{"prompt role", `{"messages":[{"role":"system","content":{"type":"text","text":""}}]}`,
			func(t testing.TB) { GetPrompt(t, "w.greet", map[string]string{"who": "x"}) }, `role "system"`},
		{"prompt block", `{"messages":[{"role":"user","content":{"type":"image"}}]}`,
			func(t testing.TB) { GetPrompt(t, "w.greet", map[string]string{"who": "x"}) }, "needs data and mimeType"},
		{"completion without values", `{"hasMore":true}`,
			func(t testing.TB) { Complete(t, PromptRef("w.greet"), "tone", "", nil) }, "values is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := []byte(tc.doc)
			guest.Read = func(string) []byte { return doc }
			guest.GetPrompt = func(string, []byte) []byte { return doc }
			guest.Complete = func([]byte) []byte { return doc }
			r := &recorder{TB: t}
			fatal(r, func() { tc.run(r) })
			if len(r.errors) != 1 || !strings.Contains(r.errors[0], tc.want) {
				t.Errorf("failures %q, want one containing %q", r.errors, tc.want)
			}
		})
	}
}

func TestCheckDefinitions(t *testing.T) {
	view := func(uri string) map[string]any { return map[string]any{"ui": map[string]any{"resourceUri": uri}} }
	app := abi.Resource{URI: "ui://w/app", Name: "app", MimeType: abi.AppMimeType}
	for _, tc := range []struct {
		name string
		d    abi.Describe
		want string // "" for none
	}{
		{"view", abi.Describe{Tools: []abi.Tool{{Name: "t", Meta: view("ui://w/app")}}, Resources: []abi.Resource{app}}, ""},
		{"older view key", abi.Describe{Tools: []abi.Tool{{Name: "t", Meta: map[string]any{"ui/resourceUri": "ui://w/app"}}},
			Resources: []abi.Resource{app}}, ""},
		{"view not listed", abi.Describe{Tools: []abi.Tool{{Name: "t", Meta: view("ui://w/other")}}, Resources: []abi.Resource{app}},
			`tool t: its view "ui://w/other" is not a ui:// resource of the module`},
		{"view not ui", abi.Describe{Tools: []abi.Tool{{Name: "t", Meta: view("w://a/b")}},
			Resources: []abi.Resource{{URI: "w://a/b", Name: "ab"}}}, "is not a ui:// resource"},
		{"app type", abi.Describe{Resources: []abi.Resource{{URI: "ui://w/x", Name: "x"}}}, "must have the mimeType"},
		{"template", abi.Describe{ResourceTemplates: []abi.ResourceTemplate{{URITemplate: "{+x}", Name: "x"}}}, "does not begin with a scheme"},
		{"prompt", abi.Describe{Prompts: []abi.Prompt{{Name: "a b"}}}, "name must be"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			fatal(r, func() { checkDefinitions(r, &tc.d) })
			if tc.want == "" && len(r.errors) > 0 || tc.want != "" && (len(r.errors) != 1 || !strings.Contains(r.errors[0], tc.want)) {
				t.Errorf("failures %q, want %q", r.errors, tc.want)
			}
		})
	}
}
