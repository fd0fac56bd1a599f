package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// writeOfferModule assembles a module whose wasmcp_describe returns
// describe and whose wasmcp_read returns read, whatever the URI.
func writeOfferModule(t *testing.T, path, describe, read string) {
	t.Helper()
	lit := func(s string) string {
		var b strings.Builder
		for _, c := range []byte(s) {
			fmt.Fprintf(&b, `\%02x`, c)
		}
		return b.String()
	}
	readAt := 1024 + len(describe)
	wasm, err := wat2wasm([]byte(fmt.Sprintf(`(module
  (memory (export "memory") %d)
  (data (i32.const 1024) "%s")
  (data (i32.const %d) "%s")
  (data (i32.const 64) "{}")
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 512))
  (func (export "wasmcp_describe") (result i64) (i64.const %d))
  (func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64) (i64.const %d))
  (func (export "wasmcp_read") (param i32 i32) (result i64) (i64.const %d)))`,
		(readAt+len(read))/65536+1, lit(describe), readAt, lit(read),
		uint64(1024)<<32|uint64(len(describe)), uint64(64)<<32|2, uint64(readAt)<<32|uint64(len(read)))))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, wasm, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestOffersHostileServer serves guests whose offers misbehave beside
// offers.wasm, over stdio: modules refused at load say why in the log, and
// reads, prompts and completions that trap, loop, return nothing, return a
// region outside memory, a 50 MiB resource or an invalid document each get
// the client a JSON-RPC error that says so, while the server serves on.
func TestOffersHostileServer(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := servedCopy(t, wat("offers"), filepath.Join(root, "host", "testdata", "offers_hostile.wasm"))
	var many strings.Builder
	many.WriteString(`{"resources":[`)
	for i := range 100000 {
		if i > 0 {
			many.WriteString(",")
		}
		fmt.Fprintf(&many, `{"uri":"r:%d","name":"%d"}`, i, i)
	}
	many.WriteString("]}")
	writeOfferModule(t, filepath.Join(dir, "many.wasm"), many.String(), `{"contents":[{"uri":"r:0","text":""}]}`)
	writeOfferModule(t, filepath.Join(dir, "notype.wasm"), `{"resources":[{"uri":"ui://notype/view","name":"view","mimeType":"text/html"}]}`,
		`{"contents":[{"uri":"ui://notype/view","text":""}]}`)
	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(`{"plugins": {"offers_hostile": {"timeout": "1s"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, dir, serverOptions{protocol: legacyProtocol, args: []string{"--config", policy}})
	ctx := testContext(t)

	for _, want := range []string{"many.wasm: describe document: 100000 resources, more than the 1024 allowed",
		`notype.wasm: describe document: resource \"ui://notype/view\": a ui:// view must have the mimeType`} {
		if !strings.Contains(s.stderr.String(), want) {
			t.Errorf("the log does not say %s:\n%s", want, s.stderr)
		}
	}
	serving := func(t *testing.T) {
		t.Helper()
		if res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "offers://text"}); err != nil || res.Contents[0].Text != "plain text" {
			t.Errorf("read offers://text: %v, %v", res, err)
		}
		if res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "bad://good"}); err != nil || res.Contents[0].Text != "good" {
			t.Errorf("read bad://good: %v, %v", res, err)
		}
		if res := s.call(t, "show", `{}`); text(res) != "shown" {
			t.Errorf("show = %q", text(res))
		}
	}
	for _, tc := range []struct{ uri, want string }{
		{"bad://trap", "trapped: unreachable"},
		{"bad://loop", "timed out after 1s"},
		{"bad://zero", "wasmcp_read returned 0 instead of a document"},
		{"bad://outside", "outside memory"},
		{"bad://huge", "wasmcp_read returned 52428845 bytes, over the limit of 4 MiB"},
		{"bad://malformed", "returned a malformed read result"},
		{"bad://utf8", "not valid UTF-8"},
	} {
		t.Run("read/"+tc.uri, func(t *testing.T) {
			_, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
			wantRPCError(t, err, jsonrpc.CodeInternalError, tc.want)
			serving(t)
		})
	}
	for _, tc := range []struct{ name, want string }{
		{"trap", "trapped: unreachable"},
		{"norole", `role "system" is neither "user" nor "assistant"`},
		{"badcontent", "returned a malformed prompt result"},
		{"empty", "messages is empty"},
	} {
		t.Run("prompt/"+tc.name, func(t *testing.T) {
			_, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: tc.name})
			wantRPCError(t, err, jsonrpc.CodeInternalError, tc.want)
			serving(t)
		})
	}
	t.Run("complete/loop", func(t *testing.T) {
		_, err := s.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "loop"},
			Argument: mcp.CompleteParamsArgument{Name: "a"}})
		wantRPCError(t, err, jsonrpc.CodeInternalError, "timed out after 1s")
		serving(t)
	})
}

// TestOffersHugeRead raises the output cap over a 50 MiB resource: the host
// takes the document, and the server refuses to send more than a client
// reads in one message, naming the size, and serves on.
func TestOffersHugeRead(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, servedCopy(t, filepath.Join(root, "host", "testdata", "offers_hostile.wasm")),
		serverOptions{protocol: legacyProtocol, args: []string{"--max-output", "64MiB"}})
	ctx := testContext(t)
	_, err = s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "bad://huge"})
	wantRPCError(t, err, jsonrpc.CodeInternalError, "bytes as sent to the client, over the")
	if res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "bad://good"}); err != nil || res.Contents[0].Text != "good" {
		t.Errorf("read after the huge one: %v, %v", res, err)
	}
}

// TestOffersViewTakenOver drops a module that offers ui://offers/view, the
// view offers.wasm serves, with a tool naming it: offers keeps its view,
// and the newcomer's tool is served without it, over Streamable HTTP to a
// 2025-11-25 session. Several sessions read at once meanwhile, each
// getting its own resource.
func TestOffersViewTakenOver(t *testing.T) {
	s := startServer(t, servedCopy(t, wat("offers")), serverOptions{protocol: legacyProtocol, http: true})
	ctx := testContext(t)
	staged := filepath.Join(t.TempDir(), "copycat.wasm")
	writeOfferModule(t, staged, `{"tools":[{"name":"copy_show","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://offers/view"}}}],
		"resources":[{"uri":"ui://offers/view","name":"view","mimeType":"text/html;profile=mcp-app"}]}`,
		`{"contents":[{"uri":"ui://offers/view","mimeType":"text/html;profile=mcp-app","text":"<p>copycat</p>"}]}`)
	copyFile(t, staged, filepath.Join(s.dir, "copycat.wasm"))
	s.waitToolsChanged(t)

	var wg sync.WaitGroup
	for g := range 4 {
		cs := dial(t, s.url, legacyProtocol)
		wg.Go(func() {
			for i := range 25 {
				uri := fmt.Sprintf("offers://items/%d-%d", g, i)
				res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				if err != nil || res.Contents[0].Text != fmt.Sprintf("item %d-%d", g, i) {
					t.Errorf("read %s: %v, %v", uri, res, err)
					return
				}
			}
		})
	}
	wg.Wait()

	res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ui://offers/view"})
	if err != nil || !strings.Contains(res.Contents[0].Text, "<p>view</p>") {
		t.Errorf("read the view: %v, %v; want offers'", res, err)
	}
	tools := s.tools(t)
	if tools["copy_show"] == nil || tools["copy_show"].Meta["ui"] != nil {
		t.Errorf("copy_show listed as %s, want it without a view", mustJSON(t, tools["copy_show"]))
	}
	if tools["show"] == nil || tools["show"].Meta["ui"] == nil {
		t.Errorf("show listed as %s, want it with its view", mustJSON(t, tools["show"]))
	}
	for deadline := time.Now().Add(time.Minute); !strings.Contains(s.stderr.String(), "tool served without its app view"); {
		if time.Now().After(deadline) {
			t.Fatalf("no warning about copy_show's view:\n%s", s.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
