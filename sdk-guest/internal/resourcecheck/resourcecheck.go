//go:build !wasip1

// Package resourcecheck holds the reads, prompts and completions every guest
// SDK's test sends through the exports of ABI.md section 2 (wasmcp_read,
// wasmcp_prompt, wasmcp_complete), so that each SDK's resources, templates
// and prompts are held to the same contract. Each SDK builds a module that
// defines, in its own idiom:
//
//   - resource text://greeting (name greeting, title Greeting, text/plain):
//     the fixed text "Hello, resources!";
//   - resource blob://bytes (name bytes, application/octet-stream, size 4):
//     the bytes 00 ff 10 80;
//   - resource text://fails (name fails): error -32603 "fails on purpose";
//   - template file:///{+path} (name files, text/plain): the text
//     "file PATH", or, for the path "missing", error -32002 "no file
//     missing"; it completes path with those of a.txt, b.txt and notes/c.md
//     that start with the value typed;
//   - template notes://{id}{?lang} (name notes): "note ID in LANG", LANG
//     "en" when the URI has none;
//   - prompt review ("Reviews a diff."; arguments diff, "The diff to
//     review.", required, and focus): description "Review a diff", a user
//     text "Review this change:", a user resource {uri diff://current,
//     mimeType text/x-diff, text DIFF} and, with a focus, an assistant text
//     "I will focus on FOCUS."; it completes focus with the first two of
//     security, style and speed that start with the value typed, and the
//     total of those that do;
//   - prompt fails: error -32602 "fails on purpose".
//
// Run calls the exports directly, in a wazero runtime, as the host does
// (one wasmcp_alloc per call, the input written there), so that the SDKs
// are checked against the ABI itself, and checks every document against
// package abi's rules and the answers above.
package resourcecheck

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmcp/wasmcp/abi"
)

// Guest is one instance of a module, called as the host calls it.
type Guest struct {
	mod api.Module
	log strings.Builder
}

// Instantiate loads the module at path, runs _initialize and checks the
// ABI version.
func Instantiate(t *testing.T, path string) *Guest {
	t.Helper()
	wasm, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	t.Cleanup(func() { r.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	g := &Guest{}
	_, err = r.NewHostModuleBuilder(abi.ImportModule).NewFunctionBuilder().
		WithFunc(func(_ context.Context, m api.Module, level, ptr, n uint32) {
			msg, _ := m.Memory().Read(ptr, n)
			g.log.WriteString(abi.LogLevel(level).String() + ": " + string(msg) + "\n")
		}).Export(abi.ImportLog).Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g.mod, err = r.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithStartFunctions("_initialize"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() && g.log.Len() > 0 {
			t.Logf("guest log:\n%s", g.log.String())
		}
	})
	if v := g.call(t, abi.ExportVersion); uint32(v) != abi.Version {
		t.Fatalf("%s returned %d", abi.ExportVersion, v)
	}
	return g
}

func (g *Guest) call(t *testing.T, name string, params ...uint64) uint64 {
	t.Helper()
	f := g.mod.ExportedFunction(name)
	if f == nil {
		t.Fatalf("the module does not export %s", name)
	}
	res, err := f.Call(context.Background(), params...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res) != 1 {
		t.Fatalf("%s returned %d values", name, len(res))
	}
	return res[0]
}

// document reads the region a packed return names, which must be JSON.
func (g *Guest) document(t *testing.T, export string, packed uint64) []byte {
	t.Helper()
	ptr, n := abi.Unpack(packed)
	b, ok := g.mod.Memory().Read(ptr, n)
	if !ok || packed == 0 || !json.Valid(b) {
		t.Fatalf("%s returned %#x: not a JSON document in memory: %q", export, packed, b)
	}
	return append([]byte(nil), b...)
}

// Export calls export with the inputs written, one after the other, in the
// region of one wasmcp_alloc, each input passed as a pointer and a length,
// and returns the document it returns.
func (g *Guest) Export(t *testing.T, export string, inputs ...string) []byte {
	t.Helper()
	whole := strings.Join(inputs, "")
	ptr := uint32(g.call(t, abi.ExportAlloc, uint64(len(whole))))
	if ptr == 0 || !g.mod.Memory().WriteString(ptr, whole) {
		t.Fatalf("%s(%d) returned %#x", abi.ExportAlloc, len(whole), ptr)
	}
	var params []uint64
	for _, in := range inputs {
		params = append(params, uint64(ptr), uint64(len(in)))
		ptr += uint32(len(in))
	}
	return g.document(t, export, g.call(t, export, params...))
}

// Describe returns the module's Describe document.
func (g *Guest) Describe(t *testing.T) abi.Describe {
	t.Helper()
	var d abi.Describe
	if err := json.Unmarshal(g.document(t, abi.ExportDescribe, g.call(t, abi.ExportDescribe)), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func ptr[T any](v T) *T { return &v }

func text(uri, mime, s string) abi.ResourceContents {
	return abi.ResourceContents{URI: uri, MimeType: mime, Text: &s}
}

// Run checks the module at path.
func Run(t *testing.T, path string) {
	g := Instantiate(t, path)
	t.Run("describe", func(t *testing.T) { checkDescribe(t, g.Describe(t)) })
	// Twice, in the same instance: nothing a call leaves behind changes the
	// next.
	for _, round := range []string{"first", "again"} {
		t.Run(round, func(t *testing.T) {
			t.Run("read", func(t *testing.T) { checkReads(t, g) })
			t.Run("prompt", func(t *testing.T) { checkPrompts(t, g) })
			t.Run("complete", func(t *testing.T) { checkCompletions(t, g) })
		})
	}
	t.Run("outside the region", func(t *testing.T) {
		// An input the host did not put in the region of wasmcp_alloc
		// (ABI.md §3) is an error, not a trap.
		g.call(t, abi.ExportAlloc, 4)
		for _, c := range []struct {
			export string
			params []uint64
		}{
			{abi.ExportRead, []uint64{8, 4}},
			{abi.ExportPrompt, []uint64{8, 4, 12, 2}},
			{abi.ExportComplete, []uint64{8, 4}},
		} {
			checkError(t, c.export, g.document(t, c.export, g.call(t, c.export, c.params...)), abi.CodeInternalError, "")
		}
	})
}

func checkDescribe(t *testing.T, d abi.Describe) {
	want := abi.Describe{
		Resources: []abi.Resource{
			{URI: "text://greeting", Name: "greeting", Title: "Greeting", MimeType: "text/plain"},
			{URI: "blob://bytes", Name: "bytes", MimeType: "application/octet-stream", Size: ptr[int64](4)},
			{URI: "text://fails", Name: "fails"},
		},
		ResourceTemplates: []abi.ResourceTemplate{
			{URITemplate: "file:///{+path}", Name: "files", MimeType: "text/plain"},
			{URITemplate: "notes://{id}{?lang}", Name: "notes"},
		},
		Prompts: []abi.Prompt{
			{Name: "review", Description: "Reviews a diff.", Arguments: []abi.PromptArgument{
				{Name: "diff", Description: "The diff to review.", Required: true},
				{Name: "focus"},
			}},
			{Name: "fails"},
		},
	}
	for i := range d.Resources {
		if err := abi.ValidateResource(&d.Resources[i]); err != nil {
			t.Errorf("resources[%d]: %v", i, err)
		}
	}
	for i := range d.ResourceTemplates {
		if err := abi.ValidateResourceTemplate(&d.ResourceTemplates[i]); err != nil {
			t.Errorf("resourceTemplates[%d]: %v", i, err)
		}
	}
	for i := range d.Prompts {
		if err := abi.ValidatePrompt(&d.Prompts[i]); err != nil {
			t.Errorf("prompts[%d]: %v", i, err)
		}
	}
	d.Tools, d.Permissions = nil, nil
	if !reflect.DeepEqual(d, want) {
		got, _ := json.Marshal(d)
		w, _ := json.Marshal(want)
		t.Errorf("describe\n got  %s\n want %s", got, w)
	}
}

// checkError checks that doc is an error document with code and, unless
// empty, message.
func checkError(t *testing.T, what string, doc []byte, code int, message string) {
	t.Helper()
	var e struct {
		Error *abi.GuestError `json:"error"`
	}
	if err := json.Unmarshal(doc, &e); err != nil || e.Error == nil {
		t.Errorf("%s: %s, want an error %d", what, doc, code)
		return
	}
	if e.Error.Code != code || (message != "" && e.Error.Message != message) || e.Error.Message == "" {
		t.Errorf("%s: error %d %q, want %d %q", what, e.Error.Code, e.Error.Message, code, message)
	}
}

func checkReads(t *testing.T, g *Guest) {
	for _, c := range []struct {
		uri  string
		want []abi.ResourceContents
	}{
		{"text://greeting", []abi.ResourceContents{text("text://greeting", "text/plain", "Hello, resources!")}},
		{"blob://bytes", []abi.ResourceContents{{URI: "blob://bytes", MimeType: "application/octet-stream", Blob: ptr("AP8QgA==")}}},
		{"file:///docs/readme.md", []abi.ResourceContents{text("file:///docs/readme.md", "text/plain", "file docs/readme.md")}},
		{"file:///a%20b/c%C3%A9.txt", []abi.ResourceContents{text("file:///a%20b/c%C3%A9.txt", "text/plain", "file a b/cé.txt")}},
		{"notes://42", []abi.ResourceContents{text("notes://42", "", "note 42 in en")}},
		{"notes://42?lang=fr", []abi.ResourceContents{text("notes://42?lang=fr", "", "note 42 in fr")}},
	} {
		doc := g.Export(t, abi.ExportRead, c.uri)
		var r abi.ReadResult
		if err := json.Unmarshal(doc, &r); err != nil || r.Error != nil {
			t.Errorf("read %s: %s", c.uri, doc)
			continue
		}
		if err := r.Validate(); err != nil {
			t.Errorf("read %s: %s: %v", c.uri, doc, err)
		}
		if !reflect.DeepEqual(r.Contents, c.want) {
			t.Errorf("read %s: %s", c.uri, doc)
		}
	}
	for _, c := range []struct {
		uri, message string
		code         int
	}{
		{"text://fails", "fails on purpose", abi.CodeInternalError},
		{"file:///missing", "no file missing", abi.CodeResourceNotFound},
		{"unknown://x", "", abi.CodeResourceNotFound},
		{"notes://a/b", "", abi.CodeResourceNotFound}, // {id} takes no '/'
		{"notes://42?lang=fr&x=1", "", abi.CodeResourceNotFound},
	} {
		checkError(t, "read "+c.uri, g.Export(t, abi.ExportRead, c.uri), c.code, c.message)
	}
}

func checkPrompts(t *testing.T, g *Guest) {
	review := []abi.PromptMessage{
		{Role: "user", Content: abi.Content{Type: "text", Text: "Review this change:"}},
		{Role: "user", Content: abi.Content{Type: "resource", Resource: ptr(text("diff://current", "text/x-diff", "-a\n+b"))}},
	}
	for _, c := range []struct {
		args string
		want []abi.PromptMessage
	}{
		{`{"diff":"-a\n+b"}`, review},
		{`{"diff":"-a\n+b","focus":"style"}`, append(review[:2:2],
			abi.PromptMessage{Role: "assistant", Content: abi.Content{Type: "text", Text: "I will focus on style."}})},
	} {
		doc := g.Export(t, abi.ExportPrompt, "review", c.args)
		var r abi.PromptResult
		if err := json.Unmarshal(doc, &r); err != nil || r.Error != nil {
			t.Errorf("prompt review %s: %s", c.args, doc)
			continue
		}
		if err := r.Validate(); err != nil {
			t.Errorf("prompt review %s: %s: %v", c.args, doc, err)
		}
		if r.Description != "Review a diff" || !reflect.DeepEqual(r.Messages, c.want) {
			t.Errorf("prompt review %s: %s", c.args, doc)
		}
	}
	for _, c := range []struct {
		name, args, message string
	}{
		{"review", `{}`, ""},            // a required argument missing
		{"review", `{"focus":"x"}`, ""}, // the same
		{"missing", `{}`, ""},
		{"fails", `{}`, "fails on purpose"},
	} {
		checkError(t, "prompt "+c.name+" "+c.args, g.Export(t, abi.ExportPrompt, c.name, c.args), abi.CodeInvalidParams, c.message)
	}
}

func checkCompletions(t *testing.T, g *Guest) {
	for _, c := range []struct {
		req  string
		want abi.CompleteResult
	}{
		{`{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"focus","value":"s"},"context":{"arguments":{"diff":"x"}}}`,
			abi.CompleteResult{Values: []string{"security", "style"}, Total: ptr(3), HasMore: true}},
		{`{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"focus","value":"sp"}}`,
			abi.CompleteResult{Values: []string{"speed"}, Total: ptr(1)}},
		{`{"ref":{"type":"ref/resource","uri":"file:///{+path}"},"argument":{"name":"path","value":"n"}}`,
			abi.CompleteResult{Values: []string{"notes/c.md"}}},
		{`{"ref":{"type":"ref/resource","uri":"file:///{+path}"},"argument":{"name":"path","value":""}}`,
			abi.CompleteResult{Values: []string{"a.txt", "b.txt", "notes/c.md"}}},
		// Nothing to complete: a prompt or template without completion,
		// an unknown prompt or argument.
		{`{"ref":{"type":"ref/resource","uri":"notes://{id}{?lang}"},"argument":{"name":"id","value":""}}`,
			abi.CompleteResult{Values: []string{}}},
		{`{"ref":{"type":"ref/prompt","name":"missing"},"argument":{"name":"focus","value":""}}`,
			abi.CompleteResult{Values: []string{}}},
		{`{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"tone","value":""}}`,
			abi.CompleteResult{Values: []string{}}},
	} {
		doc := g.Export(t, abi.ExportComplete, c.req)
		var r abi.CompleteResult
		if err := json.Unmarshal(doc, &r); err != nil || r.Values == nil || !reflect.DeepEqual(r, c.want) {
			t.Errorf("complete %s: %s", c.req, doc)
		}
	}
}
