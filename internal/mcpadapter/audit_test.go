package mcpadapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/limits"
)

// auditLog collects JSON audit lines.
type auditLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *auditLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// lines decodes every line logged so far.
func (l *auditLog) lines(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// last returns the latest audit line.
func (l *auditLog) last(t *testing.T) map[string]any {
	t.Helper()
	lines := l.lines(t)
	if len(lines) == 0 {
		t.Fatal("no audit line")
	}
	return lines[len(lines)-1]
}

func auditedAdapter(t *testing.T, h Host, opts Options) (*Adapter, *auditLog) {
	t.Helper()
	log := &auditLog{}
	opts.Audit = slog.New(slog.NewJSONHandler(log, nil)).With("component", "audit")
	a := New(h, opts)
	t.Cleanup(a.Close)
	return a, log
}

func TestAuditLineFields(t *testing.T) {
	h := &fakeHost{tools: []host.Tool{tool("echo", `{"type":"object"}`)}}
	h.call = func(context.Context, host.CallRequest) (*host.Result, error) {
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("hello")}, StructuredContent: json.RawMessage(`{"n":1}`)}}, nil
	}
	for _, logArgs := range []bool{false, true} {
		checkAuditLine(t, h, logArgs)
	}
}

func checkAuditLine(t *testing.T, h Host, logArgs bool) {
	t.Helper()
	a, log := auditedAdapter(t, h, Options{LogArgs: logArgs})
	c := connect(t, a, legacy)
	args := `{"secret":"hunter2"}`
	if _, err := c.CallTool(testContext(t), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(args)}); err != nil {
		t.Fatal(err)
	}
	// Written before the answer was sent.
	line := log.last(t)
	want := map[string]any{
		"level": "INFO", "msg": "tool call", "session": "", "tool": "echo", "plugin": "plug", "sha256": "0000",
		"outcome": "ok", "bytes_in": float64(len(args)), "bytes_out": float64(len("hello") + len(`{"n":1}`)),
		"component": "audit",
	}
	for k, v := range want {
		if line[k] != v {
			t.Errorf("logArgs=%v: %s = %v (%T), want %v", logArgs, k, line[k], line[k], v)
		}
	}
	if _, ok := line["time"]; !ok {
		t.Errorf("logArgs=%v: no time in %v", logArgs, line)
	}
	if d, ok := line["duration_ms"].(float64); !ok || d < 0 {
		t.Errorf("logArgs=%v: duration_ms = %v", logArgs, line["duration_ms"])
	}
	if got, ok := line["args"]; ok != logArgs || (logArgs && got != args) {
		t.Errorf("logArgs=%v: args = %v (present %v)", logArgs, got, ok)
	}
}

func TestAuditOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name, outcome string
		result        *host.Result
		err           error
	}{
		{"ok", "ok", &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("fine")}}}, nil},
		{"invalid arguments", "tool_error", failed("invalid arguments for tool t: at /a: got string, want number", host.ErrInvalidArguments), nil},
		{"timeout", "timeout", failed("tool t in plugin plug: timed out after 1s", fmt.Errorf("timed out after 1s: %w", host.ErrTimeout)), nil},
		{"memory", "memory", failed("tool t in plugin plug: exceeded memory limit of 2MiB", fmt.Errorf("%w", host.ErrMemory)), nil},
		{"canceled", "canceled", failed("tool t in plugin plug: canceled: context canceled", fmt.Errorf("%w", host.ErrCanceled)), nil},
		{"trap", "tool_error", failed("tool t in plugin plug: trapped: unreachable", errors.New("trap")), nil},
		// A guest that writes the host's wording itself is still its own
		// tool error: the outcome comes from the host's cause, not the text.
		{"forged timeout", "tool_error", failed("tool t in plugin plug: timed out after 1s", nil), nil},
		{"forged memory", "tool_error", failed("tool t in plugin plug: exceeded memory limit of 2MiB", nil), nil},
		{"protocol error", "protocol_error", nil, errors.New("host closed")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &fakeHost{tools: []host.Tool{tool("t", `{"type":"object"}`)}}
			h.call = func(context.Context, host.CallRequest) (*host.Result, error) { return tc.result, tc.err }
			a, log := auditedAdapter(t, h, Options{})
			c := connect(t, a, legacy)
			c.CallTool(testContext(t), &mcp.CallToolParams{Name: "t"})
			if got := log.last(t)["outcome"]; got != tc.outcome {
				t.Errorf("outcome = %v, want %s", got, tc.outcome)
			}
		})
	}
}

// failed is an isError result with msg and the host's cause failure (nil:
// the guest's own tool error).
func failed(msg string, failure error) *host.Result {
	return &host.Result{
		Result:  abi.Result{Content: []abi.Content{abi.Text(msg)}, IsError: true},
		Failure: failure,
	}
}

func TestRateLimitIsToolError(t *testing.T) {
	h := echoHost("t")
	a, log := auditedAdapter(t, h, Options{Limits: limits.Config{Session: limits.Rate{PerSecond: 1}}})
	c := connect(t, a, legacy)
	ctx := testContext(t)
	if res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "t"}); err != nil || res.IsError {
		t.Fatalf("first call: %v, %v", res, err)
	}
	res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "t"})
	if err != nil {
		t.Fatalf("a rate-limited call came as a protocol error: %v", err)
	}
	want := "rate limit exceeded for this session: 1 calls/s (calling tool t); retry after"
	if !res.IsError || !strings.Contains(textOf(res), want) {
		t.Errorf("result %s, want an isError saying %q", mustJSON(t, res), want)
	}
	if got := log.last(t)["outcome"]; got != "rate_limited" {
		t.Errorf("outcome = %v, want rate_limited", got)
	}
}

func TestConcurrencyCapIsToolError(t *testing.T) {
	h := &fakeHost{tools: []host.Tool{tool("slow", `{"type":"object"}`), tool("quick", `{"type":"object"}`)}}
	started, finish := make(chan struct{}), make(chan struct{})
	h.call = func(_ context.Context, req host.CallRequest) (*host.Result, error) {
		if req.Tool == "slow" {
			close(started)
			<-finish
		}
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("done")}}}, nil
	}
	a, log := auditedAdapter(t, h, Options{Limits: limits.Config{Plugin: limits.Queue{Concurrency: 1}}})
	c := connect(t, a, legacy)
	ctx := testContext(t)
	slow := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "slow"})
		slow <- err
	}()
	<-started
	// Both tools are in plugin "plug", which runs one call at a time and
	// queues none.
	res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "quick"})
	if err != nil || !res.IsError || !strings.Contains(textOf(res), "plugin plug is busy") {
		t.Errorf("call while busy = %v, %v; want an isError naming the busy plugin", res, err)
	}
	if got := log.last(t)["outcome"]; got != "busy" {
		t.Errorf("outcome = %v, want busy", got)
	}
	close(finish)
	if err := <-slow; err != nil {
		t.Fatal(err)
	}
	if res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "quick"}); err != nil || res.IsError {
		t.Errorf("call after the slow one ended: %v, %v", res, err)
	}
}

// TestAuditSessionIsHTTPSession checks that a stateful HTTP session's audit
// lines carry its Mcp-Session-Id.
func TestAuditSessionIsHTTPSession(t *testing.T) {
	a, log := auditedAdapter(t, echoHost("t"), Options{})
	c := dialHTTP(t, serveHTTP(t, a, HTTPOptions{}), legacy)
	if _, err := c.CallTool(testContext(t), &mcp.CallToolParams{Name: "t"}); err != nil {
		t.Fatal(err)
	}
	if got := log.last(t)["session"]; got == "" || got != c.ID() {
		t.Errorf("session = %v, want the client's %q", got, c.ID())
	}
}

func TestAuditArgsCut(t *testing.T) {
	args := json.RawMessage(`"` + strings.Repeat("é", maxAuditArgs) + `"`)
	attrs := auditArgs(args)
	if len(attrs) != 2 || attrs[1].Key != "args_truncated" {
		t.Fatalf("attrs = %v, want args and args_truncated", attrs)
	}
	s := attrs[0].Value.String()
	if len(s) > maxAuditArgs || !strings.HasPrefix(string(args), s) || !json.Valid([]byte(`"`+s[1:]+`"`)) {
		t.Errorf("cut args: %d bytes, not a rune-aligned prefix", len(s))
	}
}
