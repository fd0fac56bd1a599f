package host

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/admission"
	"github.com/wasmcp/wasmcp/host/internal/plugin"
	"github.com/wasmcp/wasmcp/host/internal/telemetry"
)

// Admission limits the calls a Host runs, before each one, once the plugin
// serving the tool is known: rates per caller and per tool, and a cap on the
// calls one plugin runs at once with a bounded, timed queue for the rest. The
// operator's policy may give a plugin a cap and a rate of its own
// ("concurrency", "rate"). A refused call is a tool error that says which
// limit refused it and when to try again. The zero value admits every call.
type Admission struct {
	// CallerRate is how many calls per second one caller (CallRequest.Caller)
	// may make, whatever the tool, in bursts of one second's worth; 0 is
	// unlimited.
	CallerRate float64
	// CallerCalls is how many calls one caller may have in flight at once,
	// running or waiting for a turn; 0 is unlimited. The caller "" is not
	// capped: it stands for the clients a transport cannot tell apart
	// (stdio's one client, HTTP requests without a session or principal),
	// whom the cap would hold together to one client's share.
	CallerCalls int
	// ToolRate is how many calls per second one tool may serve, all callers
	// together; 0 is unlimited.
	ToolRate float64
	// Concurrency is how many calls one plugin may run at once; 0 is
	// unlimited.
	Concurrency int
	// Queue is how many calls may wait for a turn in one plugin; more are
	// refused at once.
	Queue int
	// QueueTimeout bounds a wait for a turn; 0 waits as long as the call's
	// context allows.
	QueueTimeout time.Duration
}

// WithAdmission sets the limits of Admission. No value may be negative.
func (c Config) WithAdmission(a Admission) Config { c.admission = a; return c }

func (a Admission) validate() error {
	switch {
	case a.CallerRate < 0 || a.ToolRate < 0:
		return errors.New("config: admission rates must not be negative")
	case a.Concurrency < 0 || a.Queue < 0 || a.CallerCalls < 0:
		return errors.New("config: admission concurrency, queue and calls per caller must not be negative")
	case a.QueueTimeout < 0:
		return fmt.Errorf("config: admission queue timeout %v is negative", a.QueueTimeout)
	}
	return nil
}

func (a Admission) config() admission.Config {
	return admission.Config{
		Caller:      admission.Rate{PerSecond: a.CallerRate},
		CallerCalls: a.CallerCalls,
		Tool:        admission.Rate{PerSecond: a.ToolRate},
		Plugin:      admission.Queue{Concurrency: a.Concurrency, Depth: a.Queue, Timeout: a.QueueTimeout},
	}
}

// Causes of the Failure of a call Admission refused, for errors.Is.
var (
	// ErrRateLimited: a rate of Admission or of the plugin's policy.
	ErrRateLimited = admission.ErrRateLimited
	// ErrBusy: the plugin ran as many calls as it may and its queue was
	// full, or the wait for a turn timed out; or the caller had as many
	// calls in flight as Admission.CallerCalls allows.
	ErrBusy = admission.ErrBusy
)

// admit waits for p's admission of req, in an "admission" span. It returns
// the function that ends the call's turn, or the result of a call refused,
// or given up by the caller while it waited.
func (h *Host) admit(ctx context.Context, req CallRequest, p *plugin.Plugin, mod Module) (release func(), refused *Result) {
	ctx, span := h.inst.Tracer.Start(ctx, "admission", trace.WithAttributes(telemetry.PluginKey.String(mod.Plugin)))
	defer span.End()
	release, err := h.admission.Admit(ctx, req.Caller, req.Tool, p.Name(), p.Admission())
	if err == nil {
		return release, nil
	}
	span.SetStatus(codes.Error, err.Error())
	msg, failure := err.Error(), err
	if ctx.Err() != nil && !errors.Is(err, admission.ErrBusy) {
		msg, failure = fmt.Sprintf("call %s: canceled while waiting for a turn in plugin %s", req.Tool, mod.Plugin), ErrCanceled
	}
	return nil, &Result{Result: abi.Result{Content: []abi.Content{abi.Text(msg)}, IsError: true}, Failure: failure, Module: mod}
}
