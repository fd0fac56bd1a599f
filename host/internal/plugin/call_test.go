package plugin_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/plugin"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
)

// marshal is how a client sees a result: encoding/json of its abi.Result
// (a plugin.Result marshals as its abi.Result).
func marshal(t testing.TB, res any) string {
	t.Helper()
	out, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("marshal %+v: %v", res, err)
	}
	return string(out)
}

// errorJSON is the result a client sees for a failure explained by msg.
func errorJSON(msg string) string {
	text, _ := json.Marshal(msg)
	return `{"content":[{"type":"text","text":` + string(text) + `}],"isError":true}`
}

func TestCall(t *testing.T) {
	tests := []struct {
		name, tool, args, want string
	}{
		// Rule 2: structured content mirrored as text; rule 3: {} when absent.
		{"echo", "echo", `{"message":"hi"}`,
			`{"content":[{"type":"text","text":"{\"message\":\"hi\"}"}],"structuredContent":{"message":"hi"}}`},
		{"no arguments", "echo", ``, `{"content":[{"type":"text","text":"{}"}],"structuredContent":{}}`},
		{"null arguments", "echo", `null`, `{"content":[{"type":"text","text":"{}"}],"structuredContent":{}}`},
		{"spaced arguments", "echo", ` { "a" : [ 1, 2 ] } `,
			`{"content":[{"type":"text","text":"{\"a\":[1,2]}"}],"structuredContent":{"a":[1,2]}}`},
		{"output schema met", "typed", `{"n":1}`,
			`{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1}}`},
		{"output schema broken", "typed", `{"n":"one"}`, errorJSON(
			"tool typed in plugin tools returned structuredContent that does not match its outputSchema: at /n: got string, want number")},
		{"output schema unmet", "nostruct", `{}`, errorJSON(
			"tool nostruct in plugin tools has an outputSchema but returned no structuredContent")},
		// A tool error passes through without structuredContent, unless it
		// gave one that conforms: official clients validate it on errors too.
		{"tool error", "fail", `{}`, `{"content":[{"type":"text","text":"bad input"}],"isError":true}`},
		{"tool error structured", "keeps", `{}`,
			`{"content":[{"type":"text","text":"no luck"}],"structuredContent":{"n":7},"isError":true}`},
		{"tool error structured wrongly", "drops", `{}`, `{"content":[{"type":"text","text":"no luck"}],"isError":true}`},
		{"tool error without message", "quiet", `{}`,
			`{"content":[{"type":"text","text":"tool quiet failed without a message"}],"isError":true}`},
		{"tool error structured only", "whole", `{}`,
			`{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1},"isError":true}`},
		// Unknown fields are ignored, _meta is kept.
		{"forward compatible", "plain", `{}`,
			`{"content":[{"type":"text","text":"hello"}],"structuredContent":{},"_meta":{"k":"v"}}`},
		{"empty result", "void", `{}`, `{"content":[{"type":"text","text":""}],"structuredContent":{}}`},
		{"content kept", "image", `{}`,
			`{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"},` +
				`{"type":"resource","resource":{"uri":"file:///a.txt","text":"a"}}],"structuredContent":{"a":1}}`},
		{"malformed JSON", "malformed", `{}`, errorJSON(
			"plugin tools returned a malformed result: not valid JSON: unexpected end of JSON input")},
		{"invalid UTF-8", "utf8", `{}`, errorJSON("plugin tools returned a malformed result: not valid UTF-8")},
		{"invalid content", "block", `{}`, errorJSON(
			`plugin tools returned a malformed result: content[0]: content type "video" is not one of text, image, audio, resource_link, resource`)},
		{"invalid annotations", "xenial", `{}`, errorJSON(
			`plugin tools returned a malformed result: content[0]: text content: annotations.audience "alien" is neither "user" nor "assistant"`)},
		{"not an object", "array", `{}`, errorJSON("plugin tools returned a malformed result: not a JSON object")},
		{"array structured content", "collection", `{}`, errorJSON(
			"plugin tools returned a malformed result: structuredContent is not a JSON object")},
		{"no result", "zero", `{}`, errorJSON("tool zero in plugin tools: wasmcp_call returned 0 instead of a document")},
		{"valid arguments", "strict", `{"n":1}`, `{"content":[{"type":"text","text":"ok"}],"structuredContent":{}}`},
		{"wrong argument type", "strict", `{"n":"1"}`, errorJSON("invalid arguments for tool strict: at /n: got string, want integer")},
		{"missing argument", "strict", ``, errorJSON("invalid arguments for tool strict: at (root): missing property 'n'")},
		{"extra argument", "strict", `{"n":1,"m":2}`, errorJSON(
			"invalid arguments for tool strict: at (root): additional properties 'm' not allowed")},
		{"arguments not an object", "strict", `[1]`, errorJSON("invalid arguments for tool strict: at (root): got array, want object")},
		{"arguments not JSON", "strict", `{"n":`, errorJSON("invalid arguments for tool strict: not valid JSON: unexpected EOF")},
		// The schema validator would see the last "n", the guest might read
		// the first: neither reaches the guest.
		{"duplicate argument", "strict", `{"n":"1","n":1}`, errorJSON(`invalid arguments for tool strict: duplicate key "n" at (root)`)},
		{"nested duplicate argument", "echo", `{"a":[{"b":1,"b":2}]}`, errorJSON(`invalid arguments for tool echo: duplicate key "b" at /a/0`)},
		{"arguments not UTF-8", "strict", "{\"n\":\"\xff\"}", errorJSON("invalid arguments for tool strict: not valid UTF-8")},
		{"arguments too large", "echo", `{"s":"` + strings.Repeat("x", 100) + `"}`, errorJSON(
			"invalid arguments for tool echo: 108 bytes, over the limit of 100 bytes")},
	}
	// The host's cause of each result it made an error. The other cases are
	// the tool's own results, its tool error included: no Failure.
	failures := map[string]error{
		"output schema broken":      plugin.ErrOutputSchema,
		"output schema unmet":       plugin.ErrOutputSchema,
		"malformed JSON":            sandbox.ErrMalformed,
		"invalid UTF-8":             sandbox.ErrMalformed,
		"invalid content":           sandbox.ErrMalformed,
		"invalid annotations":       sandbox.ErrMalformed,
		"not an object":             sandbox.ErrMalformed,
		"array structured content":  sandbox.ErrMalformed,
		"no result":                 sandbox.ErrNoResult,
		"wrong argument type":       plugin.ErrInvalidArguments,
		"missing argument":          plugin.ErrInvalidArguments,
		"extra argument":            plugin.ErrInvalidArguments,
		"arguments not an object":   plugin.ErrInvalidArguments,
		"arguments not JSON":        plugin.ErrInvalidArguments,
		"duplicate argument":        plugin.ErrInvalidArguments,
		"nested duplicate argument": plugin.ErrInvalidArguments,
		"arguments not UTF-8":       plugin.ErrInvalidArguments,
		"arguments too large":       plugin.ErrInvalidArguments,
	}
	opts := testOptions()
	opts.MaxInput = 100
	p := load(t, "tools", opts)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := p.Call(testContext(t), tt.tool, json.RawMessage(tt.args), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := marshal(t, res); got != tt.want {
				t.Errorf("result = %s\nwant     %s", got, tt.want)
			}
			if want := failures[tt.name]; want == nil && res.Failure != nil || !errors.Is(res.Failure, want) {
				t.Errorf("Failure = %v, want %v", res.Failure, want)
			}
		})
	}
}

func TestCallTimeout(t *testing.T) {
	opts := testOptions()
	opts.Sandbox.Limits.Timeout = time.Second // enough to load on a busy machine
	p := load(t, "tools", opts)
	res, err := p.Call(testContext(t), "loop", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := errorJSON("tool loop in plugin tools: timed out after 1s"); marshal(t, res) != want {
		t.Errorf("result = %s, want %s", marshal(t, res), want)
	}
	if !errors.Is(res.Failure, sandbox.ErrTimeout) {
		t.Errorf("Failure = %v, want sandbox.ErrTimeout", res.Failure)
	}
}

func TestCallLog(t *testing.T) {
	p := load(t, "tools", testOptions())
	var lines []string
	_, err := p.Call(testContext(t), "echo", nil, logHooks(func(l abi.LogLevel, msg string) {
		lines = append(lines, l.String()+" "+msg)
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0] != "info echo called" {
		t.Errorf("log lines = %q", lines)
	}
}

func TestCallUnknownTool(t *testing.T) {
	p := load(t, "tools", testOptions())
	_, err := p.Call(testContext(t), "nope", nil, nil)
	if !errors.Is(err, plugin.ErrUnknownTool) || err.Error() != `plugin tools: unknown tool "nope"` {
		t.Errorf("err = %v, want ErrUnknownTool", err)
	}
}

func TestCallCanceled(t *testing.T) {
	p := load(t, "tools", testOptions())
	ctx, cancel := context.WithCancel(testContext(t))
	res, err := p.Call(ctx, "loop", nil, logHooks(func(abi.LogLevel, string) { cancel() }))
	if err != nil {
		t.Fatal(err)
	}
	if want := errorJSON("tool loop in plugin tools: canceled: context canceled"); marshal(t, res) != want {
		t.Errorf("result = %s, want %s", marshal(t, res), want)
	}
	if !errors.Is(res.Failure, sandbox.ErrCanceled) {
		t.Errorf("Failure = %v, want sandbox.ErrCanceled", res.Failure)
	}
}

func TestConcurrentCalls(t *testing.T) {
	p := load(t, "tools", testOptions())
	const goroutines, calls = 8, 25
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range calls {
				args := fmt.Sprintf(`{"goroutine":%d,"call":%d}`, g, i)
				res, err := p.Call(context.Background(), "echo", json.RawMessage(args), nil)
				if err != nil || string(res.StructuredContent) != args || res.Content[0].Text != args {
					t.Errorf("echo %s = %+v, %v", args, res, err)
				}
			}
		})
	}
	wg.Wait()
}

// Close waits for the call in flight, which completes normally, while new
// calls are refused.
func TestCloseDrains(t *testing.T) {
	p := load(t, "tools", testOptions())
	ctx := testContext(t)
	entered, release := make(chan struct{}), make(chan struct{})
	var res *plugin.Result
	var callErr error
	called := make(chan struct{})
	go func() {
		defer close(called)
		// The guest logs, and stays in the call until release.
		res, callErr = p.Call(ctx, "echo", json.RawMessage(`{"in":"flight"}`), logHooks(func(abi.LogLevel, string) {
			close(entered)
			<-release
		}))
	}()
	<-entered

	closed := make(chan error, 1)
	go func() { closed <- p.Close(ctx) }()
	for {
		_, err := p.Call(ctx, "void", nil, nil)
		if errors.Is(err, plugin.ErrClosed) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		runtime.Gosched()
	}
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) with a call in flight", err)
	default:
	}

	close(release)
	<-called
	if callErr != nil || string(res.StructuredContent) != `{"in":"flight"}` {
		t.Errorf("call in flight = %+v, %v", res, callErr)
	}
	if err := <-closed; err != nil {
		t.Errorf("Close = %v", err)
	}
	if _, err := p.Call(ctx, "echo", nil, nil); !errors.Is(err, plugin.ErrClosed) {
		t.Errorf("Call after Close: err = %v, want ErrClosed", err)
	}
	if err := p.Close(ctx); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// When Close gives up waiting, the module is closed under the running call,
// which ends with ErrClosed so that a caller can retry elsewhere.
func TestCloseGivesUp(t *testing.T) {
	p := load(t, "tools", testOptions()) // a 30s deadline: Close must stop the loop
	entered := make(chan struct{})
	callErr := make(chan error, 1)
	go func() {
		_, err := p.Call(testContext(t), "loop", nil, logHooks(func(abi.LogLevel, string) { close(entered) }))
		callErr <- err
	}()
	<-entered

	ctx, cancel := context.WithCancel(testContext(t))
	cancel()
	if err := p.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Close = %v, want it to wrap context.Canceled", err)
	}
	if err := <-callErr; !errors.Is(err, plugin.ErrClosed) {
		t.Errorf("call in flight: err = %v, want ErrClosed", err)
	}
}

func BenchmarkCall(b *testing.B) {
	p := load(b, "tools", testOptions())
	ctx := context.Background()
	args := json.RawMessage(`{"message":"hi"}`)
	b.ReportAllocs()
	for b.Loop() {
		res, err := p.Call(ctx, "echo", args, nil)
		if err != nil || res.IsError {
			b.Fatal(res, err)
		}
	}
}

// logHooks are call hooks with only a log function.
func logHooks(log sandbox.LogFunc) *sandbox.CallHooks { return &sandbox.CallHooks{Log: log} }

// A call's hooks reach the guest: its progress report and its sampling
// request, whose reply (a Result document) the guest returns as its result.
func TestCallHooks(t *testing.T) {
	p := load(t, "client", testOptions())
	var progress []string
	var sent string
	hooks := &sandbox.CallHooks{
		Progress: func(p, total float64, msg string) {
			progress = append(progress, fmt.Sprintf("%v %v %s", p, total, msg))
		},
		Sample: func(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
			sent = string(params)
			return json.RawMessage(`{"content":[{"type":"text","text":"from the client"}]}`), nil
		},
	}
	res, err := p.Call(testContext(t), "ask", json.RawMessage(`{"messages":[]}`), hooks)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := marshal(t, res), `{"content":[{"type":"text","text":"from the client"}],"structuredContent":{}}`; got != want {
		t.Errorf("result %s, want %s", got, want)
	}
	if sent != `{"messages":[]}` || len(progress) != 1 || progress[0] != "1 2 half" {
		t.Errorf("sample params %q, progress %q", sent, progress)
	}
}
