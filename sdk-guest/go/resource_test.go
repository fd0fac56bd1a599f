package wasmcp

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/wasmcptest"
)

func init() {
	AddResource(Resource{URI: "r://text", Name: "text", MimeType: "text/plain"}, func() (string, error) {
		return "hello", nil
	})
	AddResource(Resource{URI: "r://blob", Name: "blob", MimeType: "image/gif"}, func() ([]byte, error) {
		return []byte("GIF89a"), nil
	})
	AddResource(Resource{URI: "r://items", Name: "items"}, func() ([]ResourceContents, error) {
		return []ResourceContents{{Text: ptr("first")}, BlobContents("r://items/2", "application/octet-stream", []byte{0xff})}, nil
	})
	AddResource(Resource{URI: "r://fails", Name: "fails"}, func() (string, error) {
		return "", errors.New("disk on fire")
	})
	AddResource(Resource{URI: "r://panics", Name: "panics"}, func() (string, error) {
		panic("on purpose")
	})
	AddResource(Resource{URI: "r://empty", Name: "empty"}, func() ([]ResourceContents, error) {
		return nil, nil
	})

	// A shorter prefix, registered first: matched after r://notes/{id}.
	AddResourceTemplate(ResourceTemplate{URITemplate: "r://{+path}", Name: "any"},
		func(uri string, vars map[string]string) (string, error) {
			return "path " + vars["path"], nil
		})
	notes := map[string]string{"1": "# One", "2": "# Two"}
	AddResourceTemplate(ResourceTemplate{URITemplate: "r://notes/{id}", Name: "note", MimeType: "text/markdown"},
		func(uri string, vars map[string]string) (string, error) {
			note, ok := notes[vars["id"]]
			if !ok {
				return "", fmt.Errorf("note %s: %w", vars["id"], ErrNotFound)
			}
			return note, nil
		}, Complete("id", Choices("1", "2")))
	AddResourceTemplate(ResourceTemplate{URITemplate: "r://files{/dir,name}{?v}", Name: "file"},
		func(uri string, vars map[string]string) (string, error) {
			if v, ok := vars["v"]; ok && v != "1" {
				return "", fmt.Errorf("version %q: %w", v, ErrInvalidParams)
			}
			return fmt.Sprintf("dir=%s name=%s", vars["dir"], vars["name"]), nil
		}, Complete("dir", func(typed string, args map[string]string) ([]string, error) {
			return []string{typed + "-a", typed + "-b", "name=" + args["name"]}, nil
		}))

	AddPrompt(Prompt{Name: "p.review", Description: "Reviews a diff.",
		Arguments: []PromptArgument{{Name: "diff", Required: true}, {Name: "focus"}}},
		func(args map[string]string) ([]PromptMessage, error) {
			msgs := []PromptMessage{UserMessage(Text("Review:\n" + args["diff"]))}
			if focus, ok := args["focus"]; ok {
				msgs = append(msgs, AssistantMessage(Text("Focusing on "+focus+".")))
			}
			return msgs, nil
		},
		Complete("focus", Choices("Security", "style", "speed")),
		Complete("diff", func(string, map[string]string) ([]string, error) { return nil, errors.New("no diffs") }))
	AddPrompt(Prompt{Name: "p.many"}, func(map[string]string) ([]PromptMessage, error) {
		return []PromptMessage{UserMessage(Text("x"))}, nil
	})
	AddPrompt(Prompt{Name: "p.bad"}, func(map[string]string) ([]PromptMessage, error) {
		return []PromptMessage{{Role: "system", Content: Text("x")}}, nil
	})
	AddPrompt(Prompt{Name: "p.numbers", Arguments: []PromptArgument{{Name: "n"}}},
		func(map[string]string) ([]PromptMessage, error) { return nil, nil },
		Complete("n", func(string, map[string]string) ([]string, error) {
			n := make([]string, 150)
			for i := range n {
				n[i] = fmt.Sprint(i)
			}
			return n, nil
		}))
}

// TestResourceDefinitions lists this file's definitions (the examples add
// their own).
func TestResourceDefinitions(t *testing.T) {
	var uris []string
	for _, r := range wasmcptest.Resources(t) {
		if strings.HasPrefix(r.URI, "r:") {
			uris = append(uris, r.URI)
		}
	}
	if want := []string{"r://text", "r://blob", "r://items", "r://fails", "r://panics", "r://empty"}; !slices.Equal(uris, want) {
		t.Errorf("resources %v, want %v", uris, want)
	}
	var templates []string
	for _, rt := range wasmcptest.ResourceTemplates(t) {
		if strings.HasPrefix(rt.URITemplate, "r:") {
			templates = append(templates, rt.URITemplate)
		}
	}
	// Listed in registration order, whatever the order of matching.
	if want := []string{"r://{+path}", "r://notes/{id}", "r://files{/dir,name}{?v}"}; !slices.Equal(templates, want) {
		t.Errorf("templates %v, want %v", templates, want)
	}
	var prompts []string
	for _, p := range wasmcptest.Prompts(t) {
		if strings.HasPrefix(p.Name, "p.") {
			prompts = append(prompts, p.Name)
		}
	}
	if want := []string{"p.review", "p.many", "p.bad", "p.numbers"}; !slices.Equal(prompts, want) {
		t.Errorf("prompts %v, want %v", prompts, want)
	}
}

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		uri, want string // want: the items as uri mimeType text|blob, or the error as code: message
	}{
		{"r://text", "r://text text/plain hello"},
		{"r://blob", "r://blob image/gif blob:R0lGODlh"},
		{"r://items", "r://items  first; r://items/2 application/octet-stream blob:/w=="},
		{"r://notes/2", "r://notes/2 text/markdown # Two"},
		{"r://notes/3", "-32002: note 3: resource not found"},
		{"r://notes/a%2Fb", "-32002: note a/b: resource not found"},
		{"r://notes/1/x", "r://notes/1/x  path notes/1/x"}, // not an id: the next template
		{"r://files/d/n", "r://files/d/n  dir=d name=n"},
		{"r://files/d/n?v=1", "r://files/d/n?v=1  dir=d name=n"},
		{"r://files/d/n?v=2", `-32602: version "2": invalid arguments`},
		{"r://fails", "-32603: disk on fire"},
		{"r://panics", "-32603: resource r://panics panicked: on purpose"},
		{"r://empty", "-32603: resource r://empty: read returned an invalid document: contents is empty"},
		{"other://x", "-32002: resource not found: other://x"},
		{"r://a/../text", "-32602: resource r://a/../text: the URI has a . or .. path segment"},
		{"r://a/%2e%2E/text", "-32602: resource r://a/%2e%2E/text: the URI has a . or .. path segment"},
	} {
		t.Run(tc.uri, func(t *testing.T) {
			if got := readString(wasmcptest.Read(t, tc.uri)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func readString(r *wasmcptest.ReadResult) string {
	if r.Error != nil {
		return fmt.Sprintf("%d: %s", r.Error.Code, r.Error.Message)
	}
	var items []string
	for _, c := range r.Contents {
		value := "blob:" + deref(c.Blob)
		if c.Text != nil {
			value = *c.Text
		}
		items = append(items, c.URI+" "+c.MimeType+" "+value)
	}
	return strings.Join(items, "; ")
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestGetPrompt(t *testing.T) {
	res := wasmcptest.GetPrompt(t, "p.review", map[string]string{"diff": "-a\n+b", "focus": "style"})
	if res.Error != nil || res.Description != "Reviews a diff." || res.Text() != "Review:\n-a\n+b\nFocusing on style." ||
		res.Messages[1].Role != "assistant" {
		t.Errorf("review: %+v", res)
	}
	for _, tc := range []struct {
		name string
		args map[string]string
		want string
	}{
		{"p.review", nil, `-32602: prompt p.review: missing required argument "diff"`},
		{"p.review", map[string]string{"diff": "", "tone": "x"}, `-32602: prompt p.review: unknown argument "tone"`},
		{"p.bad", nil, `-32603: prompt p.bad returned an invalid document: messages[0]: role "system" is neither "user" nor "assistant"`},
		{"p.numbers", nil, "-32603: prompt p.numbers returned an invalid document: messages is empty"},
	} {
		res := wasmcptest.GetPrompt(t, tc.name, tc.args)
		if res.Error == nil || fmt.Sprintf("%d: %s", res.Error.Code, res.Error.Message) != tc.want {
			t.Errorf("%s %v: %+v, want %s", tc.name, tc.args, res, tc.want)
		}
	}
}

func TestComplete(t *testing.T) {
	for _, tc := range []struct {
		ref        abi.CompleteReference
		arg, value string
		context    map[string]string
		want       string // values, or the error as code: message
	}{
		{wasmcptest.PromptRef("p.review"), "focus", "s", nil, "Security,style,speed"},
		{wasmcptest.PromptRef("p.review"), "focus", "SP", nil, "speed"},
		{wasmcptest.PromptRef("p.review"), "focus", "x", nil, ""},
		{wasmcptest.PromptRef("p.review"), "diff", "", nil, "-32603: no diffs"},
		{wasmcptest.PromptRef("p.review"), "tone", "", nil, ""}, // not an argument
		{wasmcptest.PromptRef("p.many"), "x", "", nil, ""},      // not an argument
		{wasmcptest.PromptRef("p.none"), "focus", "", nil, ""},  // not a prompt
		{wasmcptest.TemplateRef("r://notes/{id}"), "id", "", nil, "1,2"},
		{wasmcptest.TemplateRef("r://{+path}"), "path", "", nil, ""}, // no completion
		{wasmcptest.TemplateRef("r://files{/dir,name}{?v}"), "dir", "x", map[string]string{"name": "n"}, "x-a,x-b,name=n"},
		{abi.CompleteReference{Type: "ref/other", Name: "p.review"}, "focus", "", nil, ""},
	} {
		res := wasmcptest.Complete(t, tc.ref, tc.arg, tc.value, tc.context)
		got := strings.Join(res.Values, ",")
		if res.Error != nil {
			got = fmt.Sprintf("%d: %s", res.Error.Code, res.Error.Message)
		}
		if got != tc.want || res.Error == nil && res.Values == nil {
			t.Errorf("%+v %s %q: %q (%+v), want %q", tc.ref, tc.arg, tc.value, got, res, tc.want)
		}
	}
	res := wasmcptest.Complete(t, wasmcptest.PromptRef("p.numbers"), "n", "", nil)
	if len(res.Values) != abi.MaxCompletionValues || res.Values[99] != "99" || !res.HasMore || res.Total == nil || *res.Total != 150 {
		t.Errorf("150 values: %d values, hasMore %v, total %v", len(res.Values), res.HasMore, res.Total)
	}
}

func TestAddResourceRefuses(t *testing.T) {
	text := func() (string, error) { return "", nil }
	read := func(string, map[string]string) (string, error) { return "", nil }
	get := func(map[string]string) ([]PromptMessage, error) { return nil, nil }
	complete := func(string, map[string]string) ([]string, error) { return nil, nil }
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"relative uri", addResource(Resource{URI: "text", Name: "x"}, text), "not an absolute URI"},
		{"duplicate uri", addResource(Resource{URI: "r://text", Name: "x"}, text), "registered twice"},
		{"nil read", addResource[string](Resource{URI: "r://nil", Name: "x"}, nil), "nil read function"},
		{"no name", addResource(Resource{URI: "r://noname"}, text), "name is missing"},
		{"app mime", addResource(Resource{URI: "ui://x/y", Name: "x"}, text), "must have the mimeType"},
		{"template without scheme", addResourceTemplate(ResourceTemplate{URITemplate: "{+uri}", Name: "x"}, read, nil), "does not begin with a scheme"},
		{"template explode", addResourceTemplate(ResourceTemplate{URITemplate: "r://{/path*}", Name: "x"}, read, nil), "explode modifier"},
		{"template syntax", addResourceTemplate(ResourceTemplate{URITemplate: "r://{id", Name: "x"}, read, nil), "not closed"},
		{"template twice", addResourceTemplate(ResourceTemplate{URITemplate: "r://notes/{id}", Name: "x"}, read, nil), "registered twice"},
		{"template completion", addResourceTemplate(ResourceTemplate{URITemplate: "r://c/{id}", Name: "x"}, read,
			[]Completion{Complete("name", complete)}), `a completion for "name", which is not one of its variables ["id"]`},
		{"two completions", addResourceTemplate(ResourceTemplate{URITemplate: "r://c/{id}", Name: "x"}, read,
			[]Completion{Complete("id", complete), Complete("id", complete)}), `two completers for "id"`},
		{"nil completer", addPrompt(Prompt{Name: "p.nilc", Arguments: []PromptArgument{{Name: "a"}}}, get,
			[]Completion{Complete("a", nil)}), `nil completer for "a"`},
		{"prompt name", addPrompt(Prompt{Name: "p q"}, get, nil), "name must be"},
		{"prompt twice", addPrompt(Prompt{Name: "p.review"}, get, nil), "registered twice"},
		{"prompt nil get", addPrompt(Prompt{Name: "p.nil"}, nil, nil), "nil get function"},
		{"prompt completion", addPrompt(Prompt{Name: "p.c"}, get, []Completion{Complete("a", complete)}), `a completion for "a", which is not one of its arguments`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
				t.Errorf("%v, want %q", tc.err, tc.want)
			}
		})
	}
}
