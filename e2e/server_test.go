package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wasmcp/wasmcp/internal/testenv"
)

// legacyProtocol is the protocol of the initialize handshake, which the
// TypeScript SDK, MCP Inspector and most clients in use speak. The Go SDK
// client defaults to the newer stateless protocol; tests that care say which.
const legacyProtocol = "2025-11-25"

// testContext bounds a test so that a hang fails it rather than the whole
// run; the bound is no statement about speed.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// server is a running "wasmcp serve" with a connected go-sdk client.
type server struct {
	*mcp.ClientSession
	dir string
	// toolsChanged receives one value per notifications/tools/list_changed;
	// promptsChanged and resourcesChanged, per prompts' and resources'.
	toolsChanged, promptsChanged, resourcesChanged chan struct{}
	// logs receives the notifications/message the server sends.
	logs   chan *mcp.LoggingMessageParams
	stderr *lockedBuffer
	// url is the MCP endpoint of a server started with http.
	url string
	// cmd is the server process.
	cmd *exec.Cmd
	// stop ends a server started with http by SIGTERM and waits for it to
	// exit cleanly.
	stop func()
}

// serverOptions describe one server of a test.
type serverOptions struct {
	protocol string   // "" for the client's default
	args     []string // extra serve flags
	// http serves over Streamable HTTP on a loopback port, with a bearer
	// token, instead of stdio.
	http bool
}

// startServer runs wasmcp serve on dir and connects a client to it. The
// server stops (and must exit cleanly) when the test ends; its log is shown
// if the test failed.
func startServer(t *testing.T, dir string, opts serverOptions) *server {
	t.Helper()
	s := &server{
		dir:              dir,
		toolsChanged:     make(chan struct{}, 64),
		promptsChanged:   make(chan struct{}, 64),
		resourcesChanged: make(chan struct{}, 64),
		logs:             make(chan *mcp.LoggingMessageParams, 64),
		stderr:           &lockedBuffer{},
	}
	// --wait-loaded: the tests list what the directory holds at once
	// (TestStartupAnswersAtOnce covers serving while modules load).
	args := append([]string{"serve", "--dir", dir, "--cache-dir", cacheDir, "--log-level", "debug", "--wait-loaded"}, opts.args...)
	cmd := exec.Command(binPath, args...)
	cmd.Stderr = s.stderr
	s.cmd = cmd
	client := mcp.NewClient(&mcp.Implementation{Name: "wasmcp-e2e", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { notify(s.toolsChanged) },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { notify(s.promptsChanged) },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { notify(s.resourcesChanged) },
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			select {
			case s.logs <- r.Params:
			default:
			}
		},
	})
	if opts.http {
		s.connectHTTP(t, client, cmd, opts.protocol)
		return s
	}
	cs, err := client.Connect(testContext(t), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: opts.protocol})
	if err != nil {
		t.Fatalf("connect to wasmcp serve: %v\nserver log:\n%s", err, s.stderr)
	}
	s.ClientSession = cs
	t.Cleanup(func() {
		// Closing stdin is the stdio transport's shutdown; the server must
		// exit 0 on its own, before the transport resorts to signals.
		if err := cs.Close(); err != nil {
			t.Errorf("server did not exit cleanly after stdin closed: %v", err)
		}
		if t.Failed() {
			t.Logf("server log:\n%s", s.stderr)
		}
	})
	return s
}

// servedCopy returns a new directory holding copies of the given modules,
// so that a test may add and remove files without touching the others.
func servedCopy(t *testing.T, modules ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, m := range modules {
		copyFile(t, m, filepath.Join(dir, filepath.Base(m)))
	}
	return dir
}

// bundled lists the bundled modules, optionally without some of them.
func bundled(t *testing.T, except ...string) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(pluginsDir, "*.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatalf("no modules in %s", pluginsDir)
	}
	return slices.DeleteFunc(all, func(p string) bool {
		return slices.Contains(except, strings.TrimSuffix(filepath.Base(p), ".wasm"))
	})
}

// wat returns the path of an assembled testdata guest.
func wat(name string) string { return filepath.Join(watDir, name+".wasm") }

// call calls a tool with arguments given as JSON text and fails the test on
// a protocol error.
func (s *server) call(t *testing.T, tool, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := s.callErr(t, tool, args)
	if err != nil {
		t.Fatalf("call %s(%s): %v", tool, args, err)
	}
	return res
}

func (s *server) callErr(t *testing.T, tool, args string) (*mcp.CallToolResult, error) {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool}
	if args != "" {
		p.Arguments = json.RawMessage(args)
	}
	return s.CallTool(testContext(t), p)
}

// tools returns the served tools by name.
func (s *server) tools(t *testing.T) map[string]*mcp.Tool {
	t.Helper()
	out := map[string]*mcp.Tool{}
	for tool, err := range s.Tools(testContext(t), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = tool
	}
	return out
}

// notify tells a test waiting on ch that a notification came.
func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default: // the test only needs to know that one came
	}
}

// waitToolsChanged waits for a list_changed notification.
func (s *server) waitToolsChanged(t *testing.T) {
	t.Helper()
	s.waitChanged(t, s.toolsChanged, "tools")
}

// waitChanged waits for a notification on ch, one of the server's
// list_changed channels, of the list named what.
func (s *server) waitChanged(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-testContext(t).Done():
		t.Fatalf("no notifications/%s/list_changed\nserver log:\n%s", what, s.stderr)
	}
}

// text is the concatenated text content of a result.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured decodes a result's structuredContent into v.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
}

// wantOK fails the test unless res is a successful result.
func wantOK(t *testing.T, res *mcp.CallToolResult) {
	t.Helper()
	if res.IsError {
		t.Fatalf("isError result: %s", text(res))
	}
	if len(res.Content) == 0 {
		t.Fatalf("result has no content")
	}
}

// wantToolError fails the test unless res is an isError result whose text
// contains every one of words.
func wantToolError(t *testing.T, res *mcp.CallToolResult, words ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want isError, got %s", mustJSON(t, res))
	}
	for _, w := range words {
		if !strings.Contains(text(res), w) {
			t.Errorf("error text %q does not mention %q", text(res), w)
		}
	}
}

// wantInvalidParams fails the test unless err is JSON-RPC error -32602.
func wantInvalidParams(t *testing.T, err error) {
	t.Helper()
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("err = %v, want JSON-RPC error %d", err, jsonrpc.CodeInvalidParams)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lockedBuffer collects a server's log while tests read it.
type lockedBuffer = testenv.Buffer

// removeFile deletes a served module.
func removeFile(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}
