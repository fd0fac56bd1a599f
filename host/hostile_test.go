package host_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
	"github.com/wasmcp/wasmcp/host/policy"
)

// hostileWasm is the committed module of testdata/NAME.wat.
func hostileWasm(t testing.TB, name string) []byte {
	t.Helper()
	wasm, err := os.ReadFile(filepath.Join("testdata", name+".wasm"))
	if err != nil {
		t.Fatalf("%v (go generate builds it)", err)
	}
	return wasm
}

// lyingGuest is a module whose describe document is doc, or, when doc is
// nil, a region of size bytes (zeros).
func lyingGuest(t testing.TB, doc []byte, size int) []byte {
	t.Helper()
	if doc != nil {
		size = len(doc)
	}
	pages := (1024+size)/65536 + 1
	wat := fmt.Sprintf(`(module
  (memory (export "memory") %d)
  (data (i32.const 1024) "%s")
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 0))
  (func (export "wasmcp_describe") (result i64) (i64.const %d))
  (func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64) (i64.const 0)))`,
		pages, watString(doc), abi.Pack(1024, uint32(size)))
	wasm := sandboxtest.Wat2Wasm(t, []byte(wat))
	return wasm
}

// spinner is a plugin with one tool, loop, that never returns.
func spinner(t testing.TB) []byte {
	doc := `{"tools":[{"name":"loop","inputSchema":{"type":"object"}}]}`
	wat := fmt.Sprintf(`(module
  (memory (export "memory") 1)
  (data (i32.const 1024) "%s")
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 4096))
  (func (export "wasmcp_describe") (result i64) (i64.const %d))
  (func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64) (loop $forever (br $forever)) (i64.const 0)))`,
		watString([]byte(doc)), abi.Pack(1024, uint32(len(doc))))
	wasm := sandboxtest.Wat2Wasm(t, []byte(wat))
	return wasm
}

// toolsDoc is a describe document of n tools named by name(i).
func toolsDoc(n int, name func(int) string) []byte {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name":%q,"inputSchema":{"type":"object"}}`, name(i))
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// TestHostilePluginsAtLoad drops plugins that misbehave at load into a
// directory beside a good one: each is refused with a log line saying why,
// in bounded time, and the good one serves.
func TestHostilePluginsAtLoad(t *testing.T) {
	dir := t.TempDir()
	place(t, dir, "echo.wasm", hostileWasm(t, "echo"))
	bad := map[string]struct {
		wasm []byte
		want string
	}{
		"describeloop": {hostileWasm(t, "describeloop"), "timed out"},
		"importer":     {hostileWasm(t, "importer"), "echo.wasmcp_call"},
		"manytools":    {lyingGuest(t, toolsDoc(10000, func(i int) string { return fmt.Sprintf("t%d", i) }), 0), "10000 tools, more than the 1024 allowed"},
		"hugename":     {lyingGuest(t, toolsDoc(1, func(int) string { return strings.Repeat("n", 1<<20) }), 0), "name must be 1 to 128 characters"},
		"badutf8":      {lyingGuest(t, []byte("{\"tools\":[{\"name\":\"a\xff\xfe\",\"inputSchema\":{\"type\":\"object\"}}]}"), 0), "not valid UTF-8"},
		"hugedescribe": {lyingGuest(t, nil, abi.MaxDescribeSize+1), "over the limit"},
	}
	for name, b := range bad {
		place(t, dir, name+".wasm", b.wasm)
	}
	// A short deadline for the looping describe alone, so that it is
	// stopped soon; the others keep the generous default.
	pol, err := policy.Parse([]byte(`{"plugins": {"describeloop": {"timeout": "1s"}}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t).WithPolicy(pol))
	if err := h.LoadDir(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := toolNames(h.Tools()); !slices.Equal(got, []string{"echo"}) {
		t.Errorf("tools %q, want only echo", got)
	}
	for name, b := range bad {
		t.Run(name, func(t *testing.T) {
			l.wait(t, "plugin not loaded", name+".wasm", b.want)
		})
	}
	if res, err := h.Call(context.Background(), host.CallRequest{Tool: "echo", Arguments: []byte(`{"a":1}`)}); err != nil || res.IsError {
		t.Errorf("echo after the hostile loads: %+v, %v", res, err)
	}
}

// TestHostilePluginsAtCall calls each misbehaving tool and checks that it
// fails with a clear message and that the other tools keep working.
func TestHostilePluginsAtCall(t *testing.T) {
	dir := t.TempDir()
	place(t, dir, "echo.wasm", hostileWasm(t, "echo"))
	place(t, dir, "hostile.wasm", hostileWasm(t, "hostile"))
	place(t, dir, "spinner.wasm", spinner(t))
	// The host's deadline stays the default, far above what any healthy
	// call needs on a loaded machine; the policy shortens it for the
	// spinner alone, which also shows a per-plugin timeout at work.
	pol, err := policy.Parse([]byte(`{"plugins": {"spinner": {"timeout": "1s"}}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t).WithPolicy(pol))
	ctx := context.Background()
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	healthy := func(t *testing.T) {
		t.Helper()
		if got := call(t, h, "ok"); got != "ok" {
			t.Errorf("ok = %q", got)
		}
		if res, err := h.Call(ctx, host.CallRequest{Tool: "echo", Arguments: []byte(`{"a":1}`)}); err != nil || res.IsError {
			t.Errorf("echo: %+v, %v", res, err)
		}
	}

	for tool, want := range map[string]struct {
		text  string
		cause error
	}{
		"recurse": {"trap", sandbox.ErrTrap},
		"loop":    {"timed out after 1s", host.ErrTimeout},
	} {
		t.Run(tool, func(t *testing.T) {
			res, err := h.Call(ctx, host.CallRequest{Tool: tool})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(res.Content[0].Text, want.text) {
				t.Errorf("%s: %+v, want a tool error with %q", tool, res.Content, want.text)
			}
			if !errors.Is(res.Failure, want.cause) {
				t.Errorf("%s: Failure = %v, want %v", tool, res.Failure, want.cause)
			}
			healthy(t)
		})
	}

	// Log floods: the call answers, at most MaxLogLines lines reach the
	// call's log function and the logger, and the drop is said once.
	for _, tool := range []string{"flood", "huge"} {
		t.Run(tool, func(t *testing.T) {
			var mu sync.Mutex
			var lines, bytes int
			res, err := h.Call(ctx, host.CallRequest{Tool: tool, Log: func(_ string, _ abi.LogLevel, msg string) {
				mu.Lock()
				defer mu.Unlock()
				lines++
				bytes += len(msg)
			}})
			if err != nil || res.IsError || res.Content[0].Text != "flooded" {
				t.Fatalf("%s: %+v, %v", tool, res, err)
			}
			if lines > sandbox.MaxLogLines || bytes > sandbox.MaxLogBytes {
				t.Errorf("%s: %d lines, %d bytes passed on; limits %d, %d", tool, lines, bytes, sandbox.MaxLogLines, sandbox.MaxLogBytes)
			}
			l.wait(t, "guest log lines dropped", "tool="+tool)
			healthy(t)
		})
	}
	if n := strings.Count(l.String(), "guest log lines dropped"); n != 2 {
		t.Errorf("%d drop warnings, want one per flooding call", n)
	}

	// A slow call holds one instance, not the plugin: other calls of the
	// same plugin and of other plugins run meanwhile.
	done := make(chan *host.CallRequest)
	go func() {
		req := &host.CallRequest{Tool: "loop"}
		_, _ = h.Call(ctx, *req)
		done <- req
	}()
	healthy(t)
	<-done
}
