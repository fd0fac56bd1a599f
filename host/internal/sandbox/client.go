package sandbox

// What a call's guest reaches of its client, whatever the dialect: log
// lines, questions to the client (sampling, elicitation) with the deadline
// paused while it answers, and the state of the call they belong to.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"
	"unicode/utf8"

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
	// Roots sends roots/list, like Sample (hyper-mcp's list_roots).
	Roots RequestFunc
	// Notify sends the client a notification of the call's session, such
	// as notifications/elicitation/complete (hyper-mcp's
	// notify_url_elicitation_completed).
	Notify func(method string, params json.RawMessage)
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
	if st.asked++; st.asked > MaxClientRequests {
		// Asking on past this is a flood, not a request to handle: the
		// call ends.
		panic(&callError{ErrHostFunction, nil, fmt.Sprintf("%s request not sent: the call already made %d requests of its client, "+
			"the most one call may make", feature, MaxClientRequests)})
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

// emit passes one guest log line on, as log says: to the call's LogFunc and
// to Options.Logger, truncated to abi.MaxLogSize, within the call's log
// bounds. buf may be the guest's memory: it is copied.
func (m *Module) emit(ctx context.Context, level abi.LogLevel, buf []byte) {
	if len(buf) > abi.MaxLogSize {
		buf = trimPartialRune(buf[:abi.MaxLogSize])
	}
	// Outside a call (_initialize, describe) there is no call state: no
	// limits, no LogFunc and no tool to name.
	var st *callState
	in := instanceFrom(ctx)
	if in != nil {
		if b := in.state.budget; b != nil {
			ctx = b.caller() // the logger may want the caller's values
		}
		if ok, first := in.state.logs.allow(len(buf)); !ok {
			if first {
				m.opts.Logger.LogAttrs(ctx, slog.LevelWarn, "guest log lines dropped: over the limit of one call",
					slog.String("plugin", m.name), slog.String("tool", in.state.tool),
					slog.Int("max_lines", MaxLogLines), slog.Int("max_bytes", MaxLogBytes))
			}
			return
		}
		st = in.call()
	}
	var hook LogFunc
	if st != nil && st.hooks != nil {
		hook = st.hooks.Log
	}
	lvl := slogLevel(level)
	logged := m.opts.Logger.Enabled(ctx, lvl)
	if hook == nil && !logged {
		return
	}
	msg := string(buf) // copies: the guest may reuse its memory at once
	if hook != nil {
		// The client may be slow to read: its wait takes no processor.
		in.outside(func() { hook(level, msg) })
	}
	if !logged {
		return
	}
	if st == nil {
		m.opts.Logger.LogAttrs(ctx, lvl, msg, slog.String("plugin", m.name))
		return
	}
	m.opts.Logger.LogAttrs(ctx, lvl, msg, slog.String("plugin", m.name), slog.String("tool", st.tool))
}

// trimPartialRune drops an incomplete UTF-8 sequence that truncation left
// at the end of b, so that a truncated message stays valid UTF-8.
func trimPartialRune(b []byte) []byte {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// slogLevel maps the syslog severities of MCP onto slog's four levels.
func slogLevel(l abi.LogLevel) slog.Level {
	switch {
	case l <= abi.LogDebug:
		return slog.LevelDebug
	case l <= abi.LogNotice:
		return slog.LevelInfo
	case l == abi.LogWarning:
		return slog.LevelWarn
	}
	return slog.LevelError
}

// MaxClientRequests is the most requests (sampling, elicitation, roots) one
// call makes of its client; the next one ends the call with ErrHostFunction.
// A guest asking in a loop would otherwise keep the client's model, or its
// user, busy for as long as the client timeout lasts: from a client that
// answers at once, a request every few hundred microseconds for ten
// minutes.
const MaxClientRequests = 1000

// Bounds of what one call (or one describe) may log. Past either, further
// lines are dropped and one warning says so: a guest logging in a loop
// otherwise fills the operator's disk and the client's connection for as
// long as its deadline allows. Each line is also bounded, by
// abi.MaxLogSize.
const (
	// MaxLogLines is the most log lines one call passes on.
	MaxLogLines = 1000
	// MaxLogBytes is the most bytes of log messages one call passes on.
	MaxLogBytes = 1 << 20
)

// logCount is what a call has logged so far.
type logCount struct {
	lines, bytes int
	dropped      bool
}

// allow counts a line of n bytes and reports whether it may be passed on,
// and whether it is the first one dropped (so that the drop is reported
// once).
func (c *logCount) allow(n int) (ok, firstDrop bool) {
	if c.lines < MaxLogLines && c.bytes+n <= MaxLogBytes {
		c.lines++
		c.bytes += n
		return true, false
	}
	firstDrop = !c.dropped
	c.dropped = true
	return false, firstDrop
}
