package wasmcptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/guest"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/uritemplate"
)

// ReadResult is a read's document as the module returned it, with the lines
// the guest logged during the read. Error is set when the read was refused,
// by the guest or, as the host would, before the guest ran.
type ReadResult struct {
	abi.ReadResult
	Logs []Log
}

// Text returns the text of the text items, joined by newlines.
func (r *ReadResult) Text() string {
	var texts []string
	for _, c := range r.Contents {
		if c.Text != nil {
			texts = append(texts, *c.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// PromptResult is a prompt's document as the module returned it, with the
// lines the guest logged. Error is set when the prompt was refused.
type PromptResult struct {
	abi.PromptResult
	Logs []Log
}

// Text returns the text of the messages' text blocks, joined by newlines.
func (r *PromptResult) Text() string {
	var texts []string
	for _, m := range r.Messages {
		if m.Content.Type == abi.ContentText {
			texts = append(texts, m.Content.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// CompleteResult is a completion's document as the module returned it, with
// the lines the guest logged. Error is set when the completion was refused.
type CompleteResult struct {
	abi.CompleteResult
	Logs []Log
}

// Resources returns every registered resource, and fails t if the host
// would refuse the definitions.
func Resources(t testing.TB) []abi.Resource {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	return describe(t).Resources
}

// ResourceTemplates returns every registered resource template, and fails
// t if the host would refuse the definitions.
func ResourceTemplates(t testing.TB) []abi.ResourceTemplate {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	return describe(t).ResourceTemplates
}

// Prompts returns every registered prompt, and fails t if the host would
// refuse the definitions.
func Prompts(t testing.TB) []abi.Prompt {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	return describe(t).Prompts
}

// Read reads uri as a client's resources/read does. A URI with a "." or
// ".." path segment, plain or percent-encoded, is refused with invalid
// params (-32602) without the guest running, as the host refuses it. A
// document the host would refuse fails t.
func Read(t testing.TB, uri string) *ReadResult {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	describe(t)
	res := &ReadResult{}
	if hasDotSegment(uri) {
		res.Error = &abi.GuestError{Code: abi.CodeInvalidParams, Message: fmt.Sprintf("resource %s: the URI has a . or .. path segment", uri)}
		return res
	}
	var doc []byte
	doc, res.Logs = capture(func() []byte { return guest.Read(uri) })
	decodeDocument(t, "resource "+uri, doc, &res.ReadResult)
	if res.Error == nil {
		if err := res.Validate(); err != nil {
			t.Errorf("resource %s: the host would refuse the document %s: %v", uri, doc, err)
		}
	}
	return res
}

// GetPrompt gets the named prompt with args as a client's prompts/get does.
// A missing required argument, or one the prompt does not define, is
// refused with invalid params (-32602) without the guest running, as the
// host refuses it. An unknown prompt, and a document the host would refuse,
// fail t.
func GetPrompt(t testing.TB, name string, args map[string]string) *PromptResult {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	d := describe(t)
	i := slices.IndexFunc(d.Prompts, func(p abi.Prompt) bool { return p.Name == name })
	if i < 0 {
		t.Fatalf("unknown prompt %q", name)
	}
	res := &PromptResult{}
	if err := checkPromptArgs(&d.Prompts[i], args); err != nil {
		res.Error = &abi.GuestError{Code: abi.CodeInvalidParams, Message: fmt.Sprintf("prompt %s: %v", name, err)}
		return res
	}
	raw, err := json.Marshal(args)
	if err != nil || args == nil {
		raw = []byte("{}")
	}
	var doc []byte
	doc, res.Logs = capture(func() []byte { return guest.GetPrompt(name, raw) })
	decodeDocument(t, "prompt "+name, doc, &res.PromptResult)
	if res.Error == nil {
		if err := res.Validate(); err != nil {
			t.Errorf("prompt %s: the host would refuse the document %s: %v", name, doc, err)
		}
	}
	return res
}

func checkPromptArgs(p *abi.Prompt, args map[string]string) error {
	for _, a := range p.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return fmt.Errorf("missing required argument %q", a.Name)
		}
	}
	for name := range args {
		if !slices.ContainsFunc(p.Arguments, func(a abi.PromptArgument) bool { return a.Name == name }) {
			return fmt.Errorf("unknown argument %q", name)
		}
	}
	return nil
}

// PromptRef names a prompt for Complete.
func PromptRef(name string) abi.CompleteReference {
	return abi.CompleteReference{Type: abi.RefPrompt, Name: name}
}

// TemplateRef names a resource template, by its URI template, for
// Complete.
func TemplateRef(uriTemplate string) abi.CompleteReference {
	return abi.CompleteReference{Type: abi.RefResource, URI: uriTemplate}
}

// Complete asks for completions of the argument arg (of a prompt, or a
// variable of a template) of which the user typed value, with the
// arguments already chosen in context, as a client's completion/complete
// does. As the host does, it answers without the guest running when ref is
// not a prompt or template of the module or arg not one of its arguments:
// no values. A document the host would refuse fails t.
func Complete(t testing.TB, ref abi.CompleteReference, arg, value string, context map[string]string) *CompleteResult {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if !completable(t, describe(t), ref, arg) {
		return &CompleteResult{CompleteResult: abi.CompleteResult{Values: []string{}}}
	}
	req := abi.CompleteRequest{Ref: ref, Argument: abi.CompleteArgument{Name: arg, Value: value}}
	if context != nil {
		req.Context = &abi.CompleteContext{Arguments: context}
	}
	raw, err := json.Marshal(req)
	if err != nil {
		t.Fatalf("encode the completion request: %v", err)
	}
	res := &CompleteResult{}
	var doc []byte
	doc, res.Logs = capture(func() []byte { return guest.Complete(raw) })
	decodeDocument(t, "completion of "+arg, doc, &res.CompleteResult)
	if res.Error == nil && res.Values == nil {
		t.Errorf("completion of %s: the host would refuse the document %s: values is missing", arg, doc)
	}
	return res
}

// completable reports whether the host would ask the guest to complete arg
// of ref.
func completable(t testing.TB, d *abi.Describe, ref abi.CompleteReference, arg string) bool {
	t.Helper()
	switch ref.Type {
	case abi.RefPrompt:
		for _, p := range d.Prompts {
			if p.Name == ref.Name {
				return slices.ContainsFunc(p.Arguments, func(a abi.PromptArgument) bool { return a.Name == arg })
			}
		}
	case abi.RefResource:
		for _, rt := range d.ResourceTemplates {
			if rt.URITemplate == ref.URI {
				tmpl, err := uritemplate.Parse(rt.URITemplate)
				if err != nil {
					t.Fatalf("resource template %q: %v", rt.URITemplate, err)
				}
				return slices.Contains(tmpl.Names(), arg)
			}
		}
	}
	return false
}

// decodeDocument decodes a document of the guest into v, failing t when it
// is not JSON of v's shape.
func decodeDocument(t testing.TB, what string, doc []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(doc, v); err != nil {
		t.Fatalf("%s: the host would refuse the document %s: %v", what, doc, err)
	}
}

// hasDotSegment reports whether the path of uri has a "." or ".."
// segment, plain or percent-encoded.
func hasDotSegment(uri string) bool {
	_, rest, _ := strings.Cut(uri, ":")
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	if p, err := url.PathUnescape(rest); err == nil {
		rest = p
	}
	for seg := range strings.SplitSeq(rest, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

var checked []byte // the Describe document describe checked last

// describe returns the module's Describe document, failing t where the host
// would refuse its resources, templates or prompts.
func describe(t testing.TB) *abi.Describe {
	t.Helper()
	doc, err := guest.Describe()
	if err != nil {
		t.Fatalf("describe: %v", err)
	}
	var d abi.Describe
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatalf("describe document %s: %v", doc, err)
	}
	if !bytes.Equal(doc, checked) {
		checkDefinitions(t, &d)
		checked = doc
	}
	return &d
}

// checkDefinitions fails t where the host would refuse d's resources,
// templates and prompts, or a tool's view.
func checkDefinitions(t testing.TB, d *abi.Describe) {
	t.Helper()
	uris := map[string]bool{}
	for i := range d.Resources {
		r := &d.Resources[i]
		if err := abi.ValidateResource(r); err != nil {
			t.Fatalf("resource %q: %v", r.URI, err)
		}
		uris[r.URI] = true
	}
	for i := range d.ResourceTemplates {
		rt := &d.ResourceTemplates[i]
		if err := abi.ValidateResourceTemplate(rt); err != nil {
			t.Fatalf("resource template %q: %v", rt.URITemplate, err)
		}
	}
	for i := range d.Prompts {
		if err := abi.ValidatePrompt(&d.Prompts[i]); err != nil {
			t.Fatalf("prompt %q: %v", d.Prompts[i].Name, err)
		}
	}
	for _, tool := range d.Tools {
		if view, ok := toolView(tool.Meta); ok && (!abi.IsApp(view) || !uris[view]) {
			t.Fatalf("tool %s: its view %q is not a %s:// resource of the module", tool.Name, view, abi.AppScheme)
		}
	}
}

// toolView returns the view a tool's _meta names: ui.resourceUri, or the
// older "ui/resourceUri".
func toolView(meta map[string]any) (string, bool) {
	if ui, ok := meta["ui"].(map[string]any); ok {
		if v, ok := ui["resourceUri"].(string); ok {
			return v, true
		}
	}
	v, ok := meta["ui/resourceUri"].(string)
	return v, ok
}
