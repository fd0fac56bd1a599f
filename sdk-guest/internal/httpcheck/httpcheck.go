//go:build !wasip1

// Package httpcheck holds the HTTP requests every guest SDK's test makes
// through the host, so that each SDK's one HTTP function is held to the
// same contract (ABI.md section 5): each SDK builds a module whose tool
// "request" takes {method, url, headers: [[name, value]], body: a string},
// makes that request with the SDK's function and returns
// {status, url, headers, body in base64} as structured content, or a tool
// error "status N: message". Run loads it in the host with a policy
// granting one httptest server on 127.0.0.1, and checks what crosses.
package httpcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/internal/egresstest"
)

// Request is the tool's arguments.
type Request struct {
	Method  string      `json:"method,omitempty"`
	URL     string      `json:"url"`
	Headers [][2]string `json:"headers,omitempty"`
	Body    *string     `json:"body,omitempty"`
}

// Response is the tool's structured content.
type Response struct {
	Status  int         `json:"status"`
	URL     string      `json:"url"`
	Headers [][2]string `json:"headers"`
	Body    []byte      `json:"body"`
}

// binary is a body of every byte value but those above 0x7f, which a JSON
// string argument cannot carry as they are: LF, NUL and the rest.
var binary = func() string {
	var b strings.Builder
	for i := range 0x80 {
		b.WriteByte(byte(i))
	}
	return "line one\nline two\x00\n" + b.String() + "\n"
}()

// allBytes is what the server's /bytes answers: every byte value.
var allBytes = func() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}()

// Run checks the module's requests: module is a .wasm file whose name
// (without .wasm) is the plugin name the policy uses.
func Run(t *testing.T, module string) {
	var hits atomic.Int64 // requests the allowed server handled
	allowed := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/get":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Add("X-Multi", "a")
			w.Header().Add("X-Multi", "b")
			fmt.Fprintf(w, "hello %s from %s", r.URL.RawQuery, r.Header.Get("X-Guest"))
		case "/echo":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("X-Method", r.Method)
			w.Header().Set("X-Length", fmt.Sprint(r.ContentLength))
			w.Write(body)
		case "/bytes":
			w.Write(allBytes)
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		default:
			http.NotFound(w, r)
		}
	})
	refused := egresstest.NewServer(t, false, func(http.ResponseWriter, *http.Request) {})
	plugin := strings.TrimSuffix(filepath.Base(module), ".wasm")
	h := load(t, module, plugin, allowed.Origin)
	call := func(t *testing.T, req Request) (res *host.Result) {
		t.Helper()
		args, _ := json.Marshal(req)
		res, err := h.Call(t.Context(), host.CallRequest{Tool: "request", Arguments: args})
		if err != nil {
			t.Fatalf("call request: %v", err)
		}
		return res
	}
	ok := func(t *testing.T, req Request) Response {
		t.Helper()
		res := call(t, req)
		var r Response
		if res.IsError || json.Unmarshal(res.StructuredContent, &r) != nil {
			t.Fatalf("request %+v: %+v", req, res.Content)
		}
		return r
	}
	refusedWith := func(t *testing.T, req Request, want ...string) {
		t.Helper()
		res := call(t, req)
		if !res.IsError || len(res.Content) == 0 {
			t.Fatalf("request %+v: no tool error: %s", req, res.StructuredContent)
		}
		for _, w := range want {
			if !strings.Contains(res.Content[0].Text, w) {
				t.Errorf("request %+v: error %q lacks %q", req, res.Content[0].Text, w)
			}
		}
	}
	str := func(s string) *string { return &s }

	t.Run("GET", func(t *testing.T) {
		r := ok(t, Request{URL: allowed.URL + "/get?q=1", Headers: [][2]string{{"X-Guest", "sdk"}}})
		if r.Status != 200 || r.URL != allowed.URL+"/get?q=1" || string(r.Body) != "hello q=1 from sdk" {
			t.Errorf("got %d %s %q", r.Status, r.URL, r.Body)
		}
		// Sorted by name, a name repeated per value, in the server's order.
		var names []string
		for _, hv := range r.Headers {
			names = append(names, hv[0]+": "+hv[1])
		}
		if !slices.Contains(names, "Content-Type: text/plain; charset=utf-8") ||
			!strings.Contains(strings.Join(names, "|"), "X-Multi: a|X-Multi: b") ||
			!slices.IsSortedFunc(r.Headers, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) }) {
			t.Errorf("headers %q", names)
		}
	})
	t.Run("POST binary", func(t *testing.T) {
		r := ok(t, Request{Method: "POST", URL: allowed.URL + "/echo", Body: str(binary),
			Headers: [][2]string{{"Content-Type", "application/octet-stream"}}})
		if r.Status != 200 || string(r.Body) != binary || header(r, "X-Method") != "POST" ||
			header(r, "X-Length") != fmt.Sprint(len(binary)) {
			t.Errorf("got %d %q %q, want the %d bytes sent", r.Status, r.Headers, r.Body, len(binary))
		}
	})
	t.Run("binary response", func(t *testing.T) {
		if r := ok(t, Request{URL: allowed.URL + "/bytes"}); string(r.Body) != string(allBytes) {
			t.Errorf("got %q", r.Body)
		}
	})
	t.Run("empty body", func(t *testing.T) {
		r := ok(t, Request{Method: "POST", URL: allowed.URL + "/echo", Body: str("")})
		if r.Status != 200 || len(r.Body) != 0 || header(r, "X-Method") != "POST" || header(r, "X-Length") != "0" {
			t.Errorf("POST with an empty body: %d %q %q", r.Status, r.Headers, r.Body)
		}
		if r := ok(t, Request{URL: allowed.URL + "/empty"}); r.Status != 204 || len(r.Body) != 0 || r.Body == nil {
			t.Errorf("204: %d %q", r.Status, r.Body)
		}
	})
	t.Run("denied", func(t *testing.T) {
		refusedWith(t, Request{URL: refused.URL + "/"}, "status 5: ", refused.Origin+" is not in plugin "+plugin+"'s net policy")
		if n := refused.Conns(); n != 0 {
			t.Errorf("the refused server counted %d connections", n)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		before := hits.Load()
		refusedWith(t, Request{URL: allowed.URL + "/get", Headers: [][2]string{{"Host", "example.org"}}}, "status 3: ", "Host")
		refusedWith(t, Request{Method: "GET /", URL: allowed.URL + "/get"}, "status 3: ")
		refusedWith(t, Request{URL: "ftp://127.0.0.1/"}, "status 3: ")
		if n := hits.Load() - before; n != 0 {
			t.Errorf("the server handled %d invalid requests", n)
		}
	})
}

// Imports lists the functions the module at path imports from the wasmcp
// module, sorted: a module that makes no request must not import
// http_request, so that it loads in a host older than the import.
func Imports(t *testing.T, path string) []string {
	t.Helper()
	wasm, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	m, err := r.CompileModule(ctx, wasm)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range m.ImportedFunctions() {
		if module, name, _ := f.Import(); module == abi.ImportModule {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

func header(r Response, name string) string {
	for _, h := range r.Headers {
		if strings.EqualFold(h[0], name) {
			return h[1]
		}
	}
	return ""
}

// load serves module as plugin with a policy granting origin.
func load(t *testing.T, module, plugin, origin string) *host.Host {
	t.Helper()
	p, err := policy.Parse([]byte(`{"plugins":{"`+plugin+`":{"net":["`+origin+`"]}}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// The host's warnings are shown when the test fails: logging to t
	// directly could outlive it.
	var logs lockedBuffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("host log:\n%s", logs.String())
		}
	})
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx := context.Background()
	h, err := host.New(ctx, host.NewConfig().WithCacheDir(t.TempDir()).WithPolicy(p).WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(ctx) })
	if err := h.LoadFile(ctx, module); err != nil {
		t.Fatal(err)
	}
	return h
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
