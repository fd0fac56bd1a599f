package host_test

import (
	"bytes"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/internal/egresstest"
)

// attackHost serves testdata/extism_attack.wasm, whose tools abuse the
// kernel and the host functions, with an 8 MiB memory and the timeout.
func attackHost(t *testing.T, timeout string) *host.Host {
	t.Helper()
	p, err := policy.Parse([]byte(`{"plugins":{"extism_attack":{"memory":"8MiB","timeout":"`+timeout+`"}}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := newHost(t, "", newLogs(), testConfig(t).WithPolicy(p))
	if err := h.LoadFile(t.Context(), filepath.Join("testdata", "extism_attack.wasm")); err != nil {
		t.Fatal(err)
	}
	return h
}

// A guest that makes the host work hard in a few instructions (megabytes
// allocated by one alloc) is stopped at its deadline too, not only at its
// next yield.
func TestExtismDeadlineInHostWork(t *testing.T) {
	h := attackHost(t, "300ms")
	for _, tool := range []string{"allocloop", "hostloop"} {
		t.Run(tool, func(t *testing.T) {
			res := callTool(t, h, tool, "", nil)
			if !res.IsError || !errors.Is(res.Failure, host.ErrTimeout) {
				t.Errorf("%s: %+v (failure %v), want a timeout", tool, res.Content, res.Failure)
			}
		})
	}
}

// Text that is not UTF-8, in an output or an error message, reaches the
// client as valid UTF-8.
func TestExtismInvalidUTF8(t *testing.T) {
	h := attackHost(t, "1m")
	for _, tool := range []string{"error8", "utf8"} {
		t.Run(tool, func(t *testing.T) {
			res := callTool(t, h, tool, "", nil)
			if len(res.Content) == 0 || !utf8.ValidString(res.Content[0].Text) {
				t.Errorf("%s: %+v", tool, res.Content)
			}
		})
	}
}

// The output stays what output_set named after its block is freed (twice)
// and another block takes its place; reset mid-call drops the input; a
// pooled instance shows nothing of its previous call.
func TestExtismKernelReuse(t *testing.T) {
	h := attackHost(t, "1m")
	if got := text(t, callTool(t, h, "outfree", "", nil)); got != "ok" {
		t.Errorf("outfree: %q", got)
	}
	if got := text(t, callTool(t, h, "reset", "", nil)); got != "input gone" {
		t.Errorf("reset: %q", got)
	}
	for _, before := range []string{"error8", "outfree", "utf8", "logflood"} {
		t.Run("after "+before, func(t *testing.T) {
			callTool(t, h, before, "", nil)
			if got := text(t, callTool(t, h, "prev", "", nil)); got != "clean" {
				t.Errorf("after %s: %q", before, got)
			}
		})
	}
}

// http_request under attack: a server that never answers is cut at the
// deadline, a response body over the memory limit is ErrMemory, and a
// redirect to an origin outside the policy makes no connection to it.
func TestExtismHTTPAbuse(t *testing.T) {
	slow := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	big := egresstest.NewServer(t, false, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(bytes.Repeat([]byte("x"), 3<<20))
	})
	refused := egresstest.NewServer(t, false, hello)
	redirect := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, refused.URL+"/z", http.StatusFound)
	})
	cases := []struct {
		name    string
		server  *egresstest.Server
		timeout string
		is      error
		want    string
	}{
		{"silent", slow, "300ms", host.ErrTimeout, "timed out after 300ms"},
		{"big", big, "1m", host.ErrMemory, "exceeded memory limit of 2 MiB: extism:host/env.http_request(3145728)"},
		{"redirect", redirect, "1m", nil, refused.Origin + " is not in plugin extism's net policy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, _ := extismHost(t, `{"memory":"2MiB","timeout":"`+c.timeout+`","net":["`+c.server.Origin+`"],"config":{"url":"`+c.server.URL+`/x"}}`)
			res := callTool(t, h, "fetch", "", nil)
			if !res.IsError || (c.is != nil && !errors.Is(res.Failure, c.is)) || !strings.Contains(res.Content[0].Text, c.want) {
				t.Errorf("%s: %+v (failure %v), want %q", c.server.URL, res.Content, res.Failure, c.want)
			}
		})
	}
	if n := refused.Conns(); n != 0 {
		t.Errorf("the refused server counted %d connections", n)
	}
}

// Host functions called from _start, outside any call, work but for
// http_request, which is refused: the plugin fails to load with the
// reason.
func TestExtismHostFunctionsInStart(t *testing.T) {
	h := newHost(t, "", newLogs(), testConfig(t))
	err := h.LoadFile(t.Context(), filepath.Join("testdata", "extism_startnet.wasm"))
	if err == nil || !strings.Contains(err.Error(), "http_request GET http://127.0.0.1:9/: denied: no request is allowed outside a tool call") {
		t.Fatalf("load: %v", err)
	}
}

// Forty instances of one plugin setting and reading its variables at once
// share the store without a data race (go test -race) and all answer. (The
// tool counts in one character, which the 45th call makes a backslash.)
func TestExtismConcurrentVars(t *testing.T) {
	h, _ := extismHost(t, `{}`)
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			res, err := h.Call(t.Context(), host.CallRequest{Tool: "vars"})
			if err != nil || res.IsError || !strings.HasPrefix(res.Content[0].Text, "count=") {
				t.Errorf("vars: %v %+v", err, res)
			}
		})
	}
	wg.Wait()
}

// The kernel at its limits: an allocation whose cost would wrap, a million
// tiny blocks, a load at the last offset, a flood of log lines.
func TestExtismKernelLimits(t *testing.T) {
	h := attackHost(t, "1m")
	cases := []struct {
		tool string
		is   error
		want string
	}{
		{"giant", host.ErrMemory, "exceeded memory limit of 8 MiB: extism:host/env.alloc(18446744073709551615)"},
		{"many", host.ErrMemory, "exceeded memory limit of 8 MiB: extism:host/env.alloc(1)"},
		{"xload", nil, "extism:host/env.load_u64: [18446744073709551615, 18446744073709551615+8) is outside the kernel memory in use"},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			res := callTool(t, h, c.tool, "", nil)
			if !res.IsError || res.Failure == nil || (c.is != nil && !errors.Is(res.Failure, c.is)) ||
				!strings.Contains(res.Content[0].Text, c.want) {
				t.Errorf("%s: %+v (failure %v), want %q", c.tool, res.Content, res.Failure, c.want)
			}
		})
	}
	var lines int
	res := callTool(t, h, "logflood", "", func(abi.LogLevel, string) { lines++ })
	if text(t, res) != "ok" || lines != sandbox.MaxLogLines {
		t.Errorf("logflood: %d lines reached the client, want %d", lines, sandbox.MaxLogLines)
	}
}
