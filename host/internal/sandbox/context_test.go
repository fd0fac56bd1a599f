package sandbox_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
)

// askedContext counts the values it is asked for.
type askedContext struct {
	context.Context
	asked atomic.Int32
}

func (c *askedContext) Value(key any) any {
	c.asked.Add(1)
	return c.Context.Value(key)
}

type callerKey struct{}

// valueHandler records the value of callerKey in the context of each record.
type valueHandler struct {
	slog.Handler
	seen *[]any
}

func (valueHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h valueHandler) Handle(ctx context.Context, r slog.Record) error {
	*h.seen = append(*h.seen, ctx.Value(callerKey{}))
	return nil
}

// The guest's context carries none of its caller's values, so that
// wazero's lookup on every entry into the guest does not walk the caller's
// chain; the code a host function calls outside the sandbox (the logger,
// the client's requests) gets them.
func TestCallerValues(t *testing.T) {
	ctx := &askedContext{Context: context.WithValue(testContext(t), callerKey{}, "the caller's")}
	var seen []any
	m := compile(t, "guest", sandbox.Options{Logger: slog.New(valueHandler{slog.DiscardHandler, &seen})})
	if _, err := sandbox.CallOutput(ctx, m, "echo", []byte(`{}`), nil); err != nil {
		t.Fatal(err)
	}
	if n := ctx.asked.Load(); n != 0 {
		t.Errorf("a call that hands nothing outside the sandbox asked its caller's context for %d values, want 0", n)
	}

	if _, err := sandbox.CallOutput(ctx, m, "log", []byte(`"a line"`), nil); err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 {
		t.Fatal("the logger got no record")
	}
	for _, v := range seen {
		if v != "the caller's" {
			t.Errorf("the logger's context has %v for the caller's key, want the caller's value", v)
		}
	}

	client := compile(t, "client", sandbox.Options{})
	var got any
	hooks := &sandbox.CallHooks{Sample: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		got = ctx.Value(callerKey{})
		return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"4"},"model":"m"}`), nil
	}}
	if status, body := ask(t, client, ctx, "sample", []byte(`{"messages":[],"maxTokens":5}`), hooks); status != abi.StatusOK {
		t.Fatalf("sample = %v %q", status, body)
	}
	if got != "the caller's" {
		t.Errorf("the sample hook's context has %v for the caller's key, want the caller's value", got)
	}
}
