package sandbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
)

type progressReport struct {
	progress, total float64
	msg             string
}

func TestProgress(t *testing.T) {
	m := compile(t, "client", sandbox.Options{})
	var got []progressReport
	hooks := &sandbox.CallHooks{Progress: func(p, total float64, msg string) {
		got = append(got, progressReport{p, total, msg})
	}}
	out, err := sandbox.CallOutput(testContext(t), m, "progress", []byte(`{}`), hooks)
	if err != nil || string(out) != "done" {
		t.Fatalf("Call = %q, %v", out, err)
	}
	// The repeated 1 and the NaN are dropped; a negative total is unknown.
	want := []progressReport{{1, 3, "step one"}, {2, -1, ""}, {3, 3, "done"}}
	if !slices.Equal(got, want) {
		t.Errorf("progress reports %v, want %v", got, want)
	}

	// Without a Progress hook the reports go nowhere and the call succeeds.
	if out, err := sandbox.CallOutput(testContext(t), m, "progress", []byte(`{}`), &sandbox.CallHooks{}); err != nil || string(out) != "done" {
		t.Fatalf("Call without hook = %q, %v", out, err)
	}
}

func TestCancelledImport(t *testing.T) {
	m := compile(t, "client", sandbox.Options{})
	var got []float64
	hooks := &sandbox.CallHooks{Progress: func(p, _ float64, _ string) { got = append(got, p) }}
	out, err := sandbox.CallOutput(testContext(t), m, "cancelled", []byte(`{}`), hooks)
	if err != nil || string(out) != "0" || !slices.Equal(got, []float64{1, 2}) {
		t.Fatalf("uncancelled call = %q, %v, progress %v; want \"0\", nil, [1 2]", out, err, got)
	}

	// Cancel from inside the call: the guest either sees cancelled() = 1
	// (progress 3) or is stopped before it asks; it never carries on as if
	// nothing happened, and the call fails with ErrCanceled.
	got = nil
	ctx, cancel := context.WithCancel(testContext(t))
	hooks.Progress = func(p, _ float64, _ string) {
		got = append(got, p)
		cancel()
	}
	_, err = sandbox.CallOutput(ctx, m, "cancelled", []byte(`{}`), hooks)
	if !errors.Is(err, sandbox.ErrCanceled) {
		t.Fatalf("err = %v, want ErrCanceled", err)
	}
	if !slices.Equal(got, []float64{1}) && !slices.Equal(got, []float64{1, 3}) {
		t.Errorf("progress %v, want [1] or [1 3]", got)
	}
}

// ask calls tool of the client guest and splits its output: the status of
// its request and the reply bytes it read.
func ask(t *testing.T, m *sandbox.Module, ctx context.Context, tool string, args []byte, hooks *sandbox.CallHooks) (abi.ReplyStatus, string) {
	t.Helper()
	out, err := sandbox.CallOutput(ctx, m, tool, args, hooks)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("empty output")
	}
	return abi.ReplyStatus(out[0] - '0'), string(out[1:])
}

func TestSampleAndElicit(t *testing.T) {
	m := compile(t, "client", sandbox.Options{})
	var sent []string
	hooks := &sandbox.CallHooks{
		Sample: func(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
			sent = append(sent, "sample "+string(params))
			return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"4"},"model":"m"}`), nil
		},
		Elicit: func(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
			sent = append(sent, "elicit "+string(params))
			return json.RawMessage(`{"action":"decline"}`), nil
		},
	}
	ctx := testContext(t)
	req := `{"messages":[],"maxTokens":5}`
	status, body := ask(t, m, ctx, "sample", []byte(req), hooks)
	if status != abi.StatusOK || !strings.Contains(body, `"text":"4"`) {
		t.Errorf("sample = %v %q", status, body)
	}
	status, body = ask(t, m, ctx, "elicit", []byte(`{"message":"ok?"}`), hooks)
	if status != abi.StatusOK || body != `{"action":"decline"}` {
		t.Errorf("elicit = %v %q", status, body)
	}
	if want := []string{"sample " + req, `elicit {"message":"ok?"}`}; !slices.Equal(sent, want) {
		t.Errorf("sent %q, want %q", sent, want)
	}

	// A short read_reply copies a prefix and says how much.
	status, body = ask(t, m, ctx, "read3", []byte(req), hooks)
	if status != abi.StatusOK || body != `{"r` {
		t.Errorf("read3 = %v %q, want ok and 3 bytes", status, body)
	}
	// The reply of an earlier call is gone: read_reply copies nothing.
	status, _ = ask(t, m, ctx, "noreply", nil, hooks)
	if status != 0 {
		t.Errorf("read_reply with no reply copied %d bytes", status)
	}
}

func TestSampleStatuses(t *testing.T) {
	failing := func(err error) sandbox.RequestFunc {
		return func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, err }
	}
	big := func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`"` + strings.Repeat("x", 2000) + `"`), nil
	}
	tests := []struct {
		name  string
		hooks *sandbox.CallHooks
		args  string
		want  abi.ReplyStatus
		text  string
	}{
		{"no hooks", nil, `{}`, abi.StatusUnsupported, "sampling is not available"},
		{"no sample hook", &sandbox.CallHooks{}, `{}`, abi.StatusUnsupported, "sampling is not available"},
		{"client without capability", &sandbox.CallHooks{Sample: failing(fmt.Errorf("no sampling capability: %w", sandbox.ErrNotSupported))},
			`{}`, abi.StatusUnsupported, "no sampling capability"},
		{"client error", &sandbox.CallHooks{Sample: failing(errors.New("user rejected sampling"))},
			`{}`, abi.StatusFailed, "sampling request failed: user rejected sampling"},
		{"not an object", &sandbox.CallHooks{Sample: failing(errors.New("must not be sent"))},
			`[1]`, abi.StatusInvalid, "not a JSON object"},
		{"not JSON", &sandbox.CallHooks{Sample: failing(errors.New("must not be sent"))},
			`{"a":`, abi.StatusInvalid, "not a JSON object"},
		{"reply over the output cap", &sandbox.CallHooks{Sample: big}, `{}`, abi.StatusFailed, "over the limit of 1 KiB"},
	}
	m := compile(t, "client", sandbox.Options{Limits: sandbox.Limits{MaxOutput: 1024}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := ask(t, m, testContext(t), "sample", []byte(tt.args), tt.hooks)
			if status != tt.want || !strings.Contains(body, tt.text) {
				t.Errorf("got %v %q, want %v containing %q", status, body, tt.want, tt.text)
			}
		})
	}
}

// The client timeout ends a request the client does not answer, and the
// guest goes on.
func TestSampleClientTimeout(t *testing.T) {
	m := compile(t, "client", sandbox.Options{Limits: sandbox.Limits{ClientTimeout: time.Millisecond}})
	hooks := &sandbox.CallHooks{Sample: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	status, body := ask(t, m, testContext(t), "sample", []byte(`{}`), hooks)
	if status != abi.StatusTimeout || !strings.Contains(body, "client timeout of 1ms") {
		t.Errorf("got %v %q, want timeout", status, body)
	}
}

// A guest that asks its client in a loop is stopped at the request past
// MaxClientRequests, with an error that says so; the client was asked no
// more.
func TestSampleFlood(t *testing.T) {
	m := compile(t, "client", sandbox.Options{})
	asked := 0
	hooks := &sandbox.CallHooks{Sample: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		asked++
		return json.RawMessage(`{}`), nil
	}}
	_, err := sandbox.CallOutput(testContext(t), m, "flood", []byte(`{}`), hooks)
	if !errors.Is(err, sandbox.ErrHostFunction) || !strings.Contains(err.Error(), "the call already made 1000 requests of its client") {
		t.Errorf("err = %v, want ErrHostFunction saying why", err)
	}
	if asked != sandbox.MaxClientRequests {
		t.Errorf("the client was asked %d times, want %d", asked, sandbox.MaxClientRequests)
	}
}

// Waiting for the client does not count against the call's deadline: a
// sample answered after several deadlines' worth of time still completes.
func TestSamplePausesDeadline(t *testing.T) {
	const timeout = 200 * time.Millisecond
	m := compile(t, "client", sandbox.Options{Limits: sandbox.Limits{Timeout: timeout}})
	hooks := &sandbox.CallHooks{Sample: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		select {
		case <-time.After(5 * timeout):
			return json.RawMessage(`{}`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}
	status, body := ask(t, m, testContext(t), "sample", []byte(`{}`), hooks)
	if status != abi.StatusOK || body != `{}` {
		t.Errorf("got %v %q, want ok {}", status, body)
	}

	// The clock runs again afterwards: a loop after the sample times out.
	_, err := sandbox.CallOutput(testContext(t), m, "wait", []byte(`{}`), hooks)
	if !errors.Is(err, sandbox.ErrTimeout) {
		t.Errorf("loop after sample: err = %v, want ErrTimeout", err)
	}
}

// A client that cancels while the guest waits for its answer stops the call.
func TestSampleCancelled(t *testing.T) {
	m := compile(t, "client", sandbox.Options{})
	ctx, cancel := context.WithCancel(testContext(t))
	hooks := &sandbox.CallHooks{Sample: func(hctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		cancel()
		<-hctx.Done()
		return nil, hctx.Err()
	}}
	_, err := sandbox.CallOutput(ctx, m, "wait", []byte(`{}`), hooks)
	if !errors.Is(err, sandbox.ErrCanceled) {
		t.Errorf("err = %v, want ErrCanceled", err)
	}
	// The module still serves.
	if out, err := sandbox.CallOutput(testContext(t), m, "progress", []byte(`{}`), nil); err != nil || string(out) != "done" {
		t.Errorf("next call = %q, %v", out, err)
	}
}

func TestReadReplyOutsideMemory(t *testing.T) {
	m := compile(t, "client", sandbox.Options{})
	hooks := &sandbox.CallHooks{Sample: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"long":"` + strings.Repeat("y", 3000) + `"}`), nil
	}}
	_, err := sandbox.CallOutput(testContext(t), m, "badreply", []byte(`{}`), hooks)
	if !errors.Is(err, sandbox.ErrTrap) || !strings.Contains(err.Error(), "wasmcp.read_reply: region [131000, 132000) outside memory") {
		t.Errorf("err = %v, want a trap naming read_reply", err)
	}
}

// A request the client answers in a request of its own stops the guest
// where it asked: "wait" would otherwise loop until its deadline.
func TestInputRequiredStopsTheGuest(t *testing.T) {
	m := compile(t, "client", sandbox.Options{Limits: sandbox.Limits{Timeout: 5 * time.Second}})
	asked := 0
	hooks := &sandbox.CallHooks{Sample: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		asked++
		return nil, fmt.Errorf("answer in the next request: %w", sandbox.ErrInputRequired)
	}}
	_, err := sandbox.CallOutput(testContext(t), m, "wait", []byte(`{"messages":[],"maxTokens":5}`), hooks)
	if !errors.Is(err, sandbox.ErrInputRequired) || errors.Is(err, sandbox.ErrTimeout) || asked != 1 {
		t.Fatalf("err = %v after %d requests, want ErrInputRequired after one", err, asked)
	}
	if strings.Contains(err.Error(), "wasm stack trace") {
		t.Errorf("err = %q, want the sandbox's message, not wazero's", err)
	}
	// The instance it stopped is not reused; the module serves on.
	status, _ := ask(t, m, testContext(t), "sample", []byte(`{"messages":[],"maxTokens":5}`), &sandbox.CallHooks{})
	if status != abi.StatusUnsupported {
		t.Errorf("next call: status %v, want unsupported (no hook)", status)
	}
}
