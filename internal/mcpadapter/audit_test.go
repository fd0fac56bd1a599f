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
		t.Run(fmt.Sprintf("logArgs=%v", logArgs), func(t *testing.T) { checkAuditLine(t, h, logArgs) })
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

// A call the host's admission refused is a tool error with the host's
// words, and its audit line names the limit and the session, which the host
// got as the caller.
func TestAdmissionRefusalsAreToolErrors(t *testing.T) {
	for _, tc := range []struct {
		name, outcome string
		failure       error
		msg           string
	}{
		{"rate", "rate_limited", host.ErrRateLimited, "rate limit exceeded for this session: 1 calls/s (calling tool t); retry after 1s"},
		{"busy", "busy", host.ErrBusy, "plugin plug is busy: tool t not queued, 1 call runs and 0 calls wait already; retry later"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := echoHost("t")
			var caller string
			h.call = func(_ context.Context, req host.CallRequest) (*host.Result, error) {
				caller = req.Caller
				return failed(tc.msg, tc.failure), nil
			}
			a, log := auditedAdapter(t, h, Options{})
			c := dialHTTP(t, serveHTTP(t, a, HTTPOptions{}), legacy)
			res, err := c.CallTool(testContext(t), &mcp.CallToolParams{Name: "t"})
			if err != nil {
				t.Fatalf("a refused call came as a protocol error: %v", err)
			}
			if !res.IsError || textOf(res) != tc.msg {
				t.Errorf("result %s, want an isError saying %q", mustJSON(t, res), tc.msg)
			}
			line := log.last(t)
			if line["outcome"] != tc.outcome || line["plugin"] != "plug" {
				t.Errorf("audit line %v, want outcome %s and plugin plug", line, tc.outcome)
			}
			if caller == "" || line["session"] != caller {
				t.Errorf("caller %q, audit session %v: want the HTTP session as the caller", caller, line["session"])
			}
		})
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
