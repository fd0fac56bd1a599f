package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmcp/wasmcp/abi"
)

// CallHooks connect one call to the client that asked for it: the host
// functions of ABI.md section 5 reach the client through them. Every field
// is optional; a nil field means the feature is not available for this
// call (a nil *CallHooks means none is). They run on the calling goroutine
// while the guest waits.
type CallHooks struct {
	// Log receives the guest's log lines (they also go to Options.Logger).
	Log LogFunc
	// Progress receives the progress reports of the guest. The sandbox has
	// already dropped reports that do not increase, so each call sees
	// strictly increasing, finite progress values; total is negative when
	// unknown; msg may be empty.
	Progress func(progress, total float64, msg string)
	// Sample sends sampling/createMessage with params, a JSON object, and
	// returns the client's result object. An error wrapping ErrNotSupported
	// means the client did not declare the capability.
	Sample RequestFunc
	// Elicit sends elicitation/create, like Sample.
	Elicit RequestFunc
}

// RequestFunc sends a request to the client and waits for its result. ctx
// is done when the call is cancelled or its client timeout runs out.
type RequestFunc func(ctx context.Context, params json.RawMessage) (json.RawMessage, error)

// ErrNotSupported is wrapped by a RequestFunc's error when the client does
// not support the request; the guest gets abi.StatusUnsupported.
var ErrNotSupported = errors.New("not supported by the client")

// ErrInputRequired is wrapped by a RequestFunc's error when the client
// answers in a request of its own instead: MCP 2026-07-28 has no requests to
// the client in the middle of a call, and a call that needs the client's
// answer returns "input required" for the client to call again with it. The
// guest is stopped where it asked, without being told anything, and the
// call fails with an error wrapping ErrInputRequired: its caller runs it
// again from the start with the answer, which the RequestFunc then returns.
var ErrInputRequired = errors.New("input required from the client")

// DefaultClientTimeout is the default of Limits.ClientTimeout.
const DefaultClientTimeout = 10 * time.Minute

const f64 = api.ValueTypeF64

// hostFunction is one function of the "wasmcp" host module.
type hostFunction struct {
	name    string
	fn      api.GoModuleFunction
	params  []api.ValueType
	names   []string
	results []api.ValueType
}

// clientFunctions are the host functions of the client features, and
// http_request (net.go), which shares their replies.
func clientFunctions() []hostFunction {
	return []hostFunction{
		{abi.ImportProgress, ofModule((*Module).progress), []api.ValueType{f64, f64, i32, i32},
			[]string{"progress", "total", "msg_ptr", "msg_len"}, nil},
		{abi.ImportCancelled, api.GoModuleFunc(cancelled), nil, nil, []api.ValueType{i32}},
		{abi.ImportSample, ofModule((*Module).sample), []api.ValueType{i32, i32},
			[]string{"req_ptr", "req_len"}, []api.ValueType{i64}},
		{abi.ImportElicit, ofModule((*Module).elicit), []api.ValueType{i32, i32},
			[]string{"req_ptr", "req_len"}, []api.ValueType{i64}},
		{abi.ImportReadReply, api.GoModuleFunc(readReply), []api.ValueType{i32, i32},
			[]string{"dst_ptr", "dst_len"}, []api.ValueType{i32}},
		{abi.ImportHTTPRequest, ofModule((*Module).httpRequest), []api.ValueType{i32, i32},
			[]string{"req_ptr", "req_len"}, []api.ValueType{i64}},
	}
}

// guestRegion returns the region [ptr, ptr+n) of mod's memory, or panics,
// which traps the call: ABI.md section 3 makes a region outside memory a
// guest error.
func guestRegion(mod api.Module, fn string, ptr, n uint32) []byte {
	buf, ok := mod.Memory().Read(ptr, n)
	if !ok {
		panic(fmt.Errorf("%s.%s: region [%d, %d) outside memory of %d bytes",
			abi.ImportModule, fn, ptr, uint64(ptr)+uint64(n), mod.Memory().Size()))
	}
	return buf
}

// stateFrom returns the call state of the instance that called a host
// function, or nil outside a call (during _initialize or describe).
func stateFrom(ctx context.Context) *callState { return instanceFrom(ctx).call() }

// call returns in's call state, or nil for no instance or outside a call
// (during _initialize or describe), when the state has no tool.
func (in *instance) call() *callState {
	if in == nil || in.state.tool == "" {
		return nil
	}
	return &in.state
}

// progress implements wasmcp.progress.
func (m *Module) progress(ctx context.Context, mod api.Module, stack []uint64) {
	p, total := api.DecodeF64(stack[0]), api.DecodeF64(stack[1])
	ptr, n := api.DecodeU32(stack[2]), api.DecodeU32(stack[3])
	guestRegion(mod, abi.ImportProgress, ptr, n)
	st := stateFrom(ctx)
	if st == nil || st.hooks == nil || st.hooks.Progress == nil {
		return
	}
	// MCP requires increasing progress; a report that breaks the rule is
	// the guest's mistake and is dropped rather than sent.
	if math.IsNaN(p) || math.IsInf(p, 0) || (st.reported && p <= st.lastProgress) {
		return
	}
	st.reported, st.lastProgress = true, p
	if math.IsNaN(total) || math.IsInf(total, 0) || total < 0 {
		total = -1
	}
	buf, _ := mod.Memory().Read(ptr, min(n, abi.MaxLogSize))
	if n > abi.MaxLogSize {
		buf = trimPartialRune(buf)
	}
	msg := string(buf)
	instanceFrom(ctx).outside(func() { st.hooks.Progress(p, total, msg) })
}

// cancelled implements wasmcp.cancelled: 1 once the call's context is done,
// because the caller cancelled it or its deadline passed.
func cancelled(ctx context.Context, _ api.Module, stack []uint64) {
	stack[0] = 0
	if ctx.Err() != nil {
		stack[0] = 1
	}
}

func (m *Module) sample(ctx context.Context, mod api.Module, stack []uint64) {
	m.request(ctx, mod, stack, abi.ImportSample, "sampling", func(h *CallHooks) RequestFunc { return h.Sample })
}

func (m *Module) elicit(ctx context.Context, mod api.Module, stack []uint64) {
	m.request(ctx, mod, stack, abi.ImportElicit, "elicitation", func(h *CallHooks) RequestFunc { return h.Elicit })
}

// request implements wasmcp.sample and wasmcp.elicit: it sends the guest's
// params through the hook hookOf picks, keeps the reply for read_reply and
// returns abi.PackReply(status, len(reply)).
func (m *Module) request(ctx context.Context, mod api.Module, stack []uint64, fn, feature string, hookOf func(*CallHooks) RequestFunc) {
	params := bytes.Clone(guestRegion(mod, fn, api.DecodeU32(stack[0]), api.DecodeU32(stack[1])))
	st := stateFrom(ctx)
	if st == nil {
		stack[0] = abi.PackReply(abi.StatusUnsupported, 0)
		return
	}
	var hook RequestFunc
	if st.hooks != nil {
		hook = hookOf(st.hooks)
	}
	status, reply := m.ask(ctx, st, feature, hook, params)
	st.reply = reply
	stack[0] = abi.PackReply(status, uint32(len(reply)))
}

// ask sends params through hook, with the call's deadline paused and its
// client timeout running, and returns the status and reply for the
// guest.
func (m *Module) ask(ctx context.Context, st *callState, feature string, hook RequestFunc, params []byte) (abi.ReplyStatus, []byte) {
	fail := func(s abi.ReplyStatus, format string, args ...any) (abi.ReplyStatus, []byte) {
		return s, fmt.Appendf(nil, format, args...)
	}
	if hook == nil {
		return fail(abi.StatusUnsupported, "%s is not available: this call has no client that supports it", feature)
	}
	if trimmed := bytes.TrimLeft(params, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(params) {
		return fail(abi.StatusInvalid, "%s request is not a JSON object", feature)
	}
	if ctx.Err() != nil {
		return fail(abi.StatusFailed, "%s request not sent: the call was %s", feature, doneReason(ctx))
	}
	if st.waitLeft <= 0 {
		return fail(abi.StatusTimeout, "%s request not sent: the call used up its client timeout of %s",
			feature, m.opts.Limits.ClientTimeout)
	}

	// The client's request is made in the caller's context: go-sdk finds
	// there the request the guest is serving, to send its own on the same
	// stream.
	hctx := ctx
	if st.budget != nil {
		hctx = st.budget.caller()
	}
	wctx, cancel := context.WithTimeout(hctx, st.waitLeft)
	if st.budget != nil {
		st.budget.pause()
		defer st.budget.resume()
	}
	start := time.Now()
	var reply []byte
	var err error
	instanceFrom(ctx).outside(func() { reply, err = hook(wctx, params) })
	st.waitLeft -= time.Since(start)
	waitDone := wctx.Err() != nil
	cancel()

	switch {
	case err != nil && errors.Is(err, ErrInputRequired):
		// Stop the guest here: a panic in a host function traps the call.
		panic(&callError{ErrInputRequired, err, fmt.Sprintf("%s: the client answers in its next request", feature)})
	case err != nil && errors.Is(err, ErrNotSupported):
		return fail(abi.StatusUnsupported, "%s is not available: %v", feature, err)
	case err != nil && waitDone && ctx.Err() == nil:
		return fail(abi.StatusTimeout, "%s request: no answer within the client timeout of %s",
			feature, m.opts.Limits.ClientTimeout)
	case err != nil:
		return fail(abi.StatusFailed, "%s request failed: %v", feature, err)
	case uint64(len(reply)) > uint64(m.opts.Limits.MaxOutput):
		return fail(abi.StatusFailed, "%s reply of %d bytes is over the limit of %s",
			feature, len(reply), formatBytes(uint64(m.opts.Limits.MaxOutput)))
	}
	return abi.StatusOK, bytes.Clone(reply)
}

// doneReason says why a call's context is done, for a reply message.
func doneReason(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "past its deadline"
	}
	return "cancelled"
}

// readReply implements wasmcp.read_reply: the reply of the last sample,
// elicit or http_request of the call.
func readReply(ctx context.Context, mod api.Module, stack []uint64) {
	ptr, n := api.DecodeU32(stack[0]), api.DecodeU32(stack[1])
	var reply []byte
	if st := stateFrom(ctx); st != nil {
		reply = st.reply
	}
	n = min(n, uint32(len(reply)))
	guestRegion(mod, abi.ImportReadReply, ptr, n)
	mod.Memory().Write(ptr, reply[:n])
	stack[0] = api.EncodeU32(n)
}
