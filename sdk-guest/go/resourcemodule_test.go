package wasmcp_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
)

// TestWasmResources builds testdata/resguest and drives its exports of
// resources, prompts and completion through the ABI with wazero, as a host
// does: one wasmcp_alloc for the input, then the export, then the document
// read out of memory.
func TestWasmResources(t *testing.T) {
	g := newGuest(t, buildModule(t, "./testdata/resguest"))

	t.Run("exports", func(t *testing.T) {
		exports := map[string]string{}
		for name, def := range g.compiled.ExportedFunctions() {
			exports[name] = signature(def)
		}
		for name, sig := range map[string]string{
			abi.ExportRead:     "[i32 i32] -> [i64]",
			abi.ExportPrompt:   "[i32 i32 i32 i32] -> [i64]",
			abi.ExportComplete: "[i32 i32] -> [i64]",
		} {
			if exports[name] != sig {
				t.Errorf("export %s: %q, want %q", name, exports[name], sig)
			}
		}
	})

	t.Run("describe", func(t *testing.T) {
		var d abi.Describe
		if err := json.Unmarshal(g.read(t, g.call(t, abi.ExportDescribe)[0]), &d); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range d.Resources {
			got = append(got, r.URI)
		}
		for _, rt := range d.ResourceTemplates {
			got = append(got, rt.URITemplate)
		}
		for _, p := range d.Prompts {
			got = append(got, p.Name)
		}
		want := []string{"mem://readme", "mem://pixel", "mem://panic", "mem://notes/{id}", "mem://big/{n}", "review"}
		if !slices.Equal(got, want) || len(d.Tools) != 1 {
			t.Errorf("describe lists %v and %d tools, want %v and 1", got, len(d.Tools), want)
		}
	})

	t.Run("read", func(t *testing.T) {
		g.logs = nil
		r := g.readResource(t, "mem://readme")
		if r.Error != nil || len(r.Contents) != 1 || *r.Contents[0].Text != "# Readme\nhéllo" ||
			r.Contents[0].URI != "mem://readme" || r.Contents[0].MimeType != "text/markdown" {
			t.Errorf("text: %+v", r)
		}
		if len(g.logs) != 1 || g.logs[0] != "info: reading the readme" {
			t.Errorf("logs %q", g.logs)
		}
		r = g.readResource(t, "mem://pixel")
		if r.Error != nil || r.Contents[0].Blob == nil || r.Contents[0].MimeType != "image/gif" {
			t.Fatalf("blob: %+v", r)
		}
		if b, err := base64.StdEncoding.DecodeString(*r.Contents[0].Blob); err != nil || !bytes.Equal(b, []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")) {
			t.Errorf("blob decodes to %q, %v", b, err)
		}
	})

	t.Run("template", func(t *testing.T) {
		r := g.readResource(t, "mem://notes/beta")
		if r.Error != nil || *r.Contents[0].Text != "# Beta\nsecond" || r.Contents[0].URI != "mem://notes/beta" {
			t.Errorf("note: %+v", r)
		}
		// A large document, twice: the buffers are released and reused.
		for range 2 {
			r = g.readResource(t, "mem://big/3000000")
			if r.Error != nil || len(*r.Contents[0].Text) != 3000000 {
				t.Fatalf("big: %v", r.Error)
			}
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			uri  string
			code int
			msg  string
		}{
			{"mem://notes/gamma", abi.CodeResourceNotFound, `no note "gamma": resource not found`},
			{"mem://notes/..%2Freadme", abi.CodeResourceNotFound, "resource not found: mem://notes/..%2Freadme"},
			{"mem://other", abi.CodeResourceNotFound, "resource not found: mem://other"},
			{"mem://big/x", abi.CodeInvalidParams, `size "x": invalid arguments`},
			{"mem://panic", abi.CodeInternalError, "resource mem://panic panicked: on purpose"},
		} {
			r := g.readResource(t, tc.uri)
			if r.Error == nil || r.Error.Code != tc.code || r.Error.Message != tc.msg || r.Contents != nil {
				t.Errorf("%s: %+v, want %d %q", tc.uri, r, tc.code, tc.msg)
			}
		}
		// The instance survives the recovered panic.
		if r := g.readResource(t, "mem://readme"); r.Error != nil {
			t.Errorf("after the panic: %+v", r.Error)
		}
		// An input outside the region of wasmcp_alloc is refused.
		ptr := uint32(g.call(t, abi.ExportAlloc, 8)[0])
		doc := g.read(t, g.call(t, abi.ExportRead, uint64(ptr+1), 4)[0])
		if !strings.Contains(string(doc), `"code":-32603`) || !strings.Contains(string(doc), "not in the region wasmcp_alloc returned") {
			t.Errorf("input outside the region: %s", doc)
		}
	})

	t.Run("prompt", func(t *testing.T) {
		p := g.prompt(t, "review", `{"diff":"-a\n+b","focus":"style"}`)
		if p.Error != nil || p.Description != "Reviews a diff." || len(p.Messages) != 3 ||
			p.Messages[0].Content.Text != "Review this change:\n-a\n+b" ||
			p.Messages[1].Content.Resource == nil || *p.Messages[1].Content.Resource.Text != "# Readme" ||
			p.Messages[2].Role != "assistant" {
			t.Errorf("review: %+v", p)
		}
		if p := g.prompt(t, "review", `{"diff":""}`); p.Error != nil || len(p.Messages) != 2 {
			t.Errorf("without the optional argument: %+v", p)
		}
		for _, tc := range []struct{ name, args, msg string }{
			{"review", `{"diff":1}`, "invalid arguments for prompt review: json: cannot unmarshal number"},
			{"missing", `{}`, `unknown prompt "missing"`},
		} {
			p := g.prompt(t, tc.name, tc.args)
			if p.Error == nil || p.Error.Code != abi.CodeInvalidParams || !strings.HasPrefix(p.Error.Message, tc.msg) {
				t.Errorf("%s %s: %+v, want %q", tc.name, tc.args, p.Error, tc.msg)
			}
		}
	})

	t.Run("complete", func(t *testing.T) {
		for _, tc := range []struct{ req, want string }{
			{`{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"focus","value":"s"}}`, `{"values":["security","style","speed"]}`},
			{`{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"focus","value":"st"},"context":{"arguments":{"diff":"x"}}}`, `{"values":["style"]}`},
			{`{"ref":{"type":"ref/resource","uri":"mem://notes/{id}"},"argument":{"name":"id","value":"B"}}`, `{"values":["beta"]}`},
			{`{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"diff","value":""}}`, `{"values":[]}`},
			{`{"ref":{"type":"ref/resource","uri":"mem://big/{n}"},"argument":{"name":"n","value":""}}`, `{"values":[]}`},
			{`{"ref":`, `{"error":{"code":-32602,"message":"invalid arguments: completion request: unexpected end of JSON input"}}`},
		} {
			if got := string(g.read(t, g.input(t, abi.ExportComplete, tc.req))); got != tc.want {
				t.Errorf("%s:\ngot  %s\nwant %s", tc.req, got, tc.want)
			}
		}
	})
}

// TestWasmToolsOnly drives the exports of resources and prompts of a module
// that defines none, which has them all the same: they answer as the host
// would for a module without them.
func TestWasmToolsOnly(t *testing.T) {
	g := newGuest(t, buildModule(t, "./testdata/guest"))
	for _, tc := range []struct {
		export string
		input  []string
		want   string
	}{
		{abi.ExportRead, []string{"mem://x"}, `{"error":{"code":-32002,"message":"resource not found: mem://x"}}`},
		{abi.ExportPrompt, []string{"p", "{}"}, `{"error":{"code":-32602,"message":"unknown prompt \"p\""}}`},
		{abi.ExportComplete, []string{`{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""}}`}, `{"values":[]}`},
	} {
		if got := string(g.read(t, g.input(t, tc.export, tc.input...))); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.export, got, tc.want)
		}
	}
}

// input performs one call of export as ABI.md §3 says: one alloc for all
// the parts, written one after the other, then the export with each part's
// pointer and length. It returns the packed region of the document.
func (g *guestModule) input(t testing.TB, export string, parts ...string) uint64 {
	t.Helper()
	all := strings.Join(parts, "")
	ptr := uint32(g.call(t, abi.ExportAlloc, uint64(len(all)))[0])
	if ptr == 0 || !g.mod.Memory().WriteString(ptr, all) {
		t.Fatalf("alloc returned %d", ptr)
	}
	var params []uint64
	for _, p := range parts {
		params = append(params, uint64(ptr), uint64(len(p)))
		ptr += uint32(len(p))
	}
	return g.call(t, export, params...)[0]
}

func (g *guestModule) readResource(t testing.TB, uri string) abi.ReadResult {
	t.Helper()
	var r abi.ReadResult
	decodeDoc(t, g.read(t, g.input(t, abi.ExportRead, uri)), &r)
	return r
}

func (g *guestModule) prompt(t testing.TB, name, args string) abi.PromptResult {
	t.Helper()
	var p abi.PromptResult
	decodeDoc(t, g.read(t, g.input(t, abi.ExportPrompt, name, args)), &p)
	return p
}

func decodeDoc(t testing.TB, doc []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(doc, v); err != nil {
		t.Fatalf("document %.200s: %v", doc, err)
	}
}
