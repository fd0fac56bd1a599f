package mcpadapter

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wasmcp/wasmcp/abi"
)

// Outcomes of a call, as audit lines name them.
const (
	outcomeOK            = "ok"             // a result without isError
	outcomeToolError     = "tool_error"     // an isError result: invalid arguments, a guest's own error, a trap, ...
	outcomeTimeout       = "timeout"        // the guest ran past the call deadline and was stopped
	outcomeMemory        = "memory"         // the guest hit its memory limit
	outcomeCanceled      = "canceled"       // the client cancelled or went away
	outcomeRateLimited   = "rate_limited"   // refused by the session's or the tool's rate limit
	outcomeBusy          = "busy"           // refused by the plugin's concurrency cap: queue full or wait timed out
	outcomeProtocolError = "protocol_error" // answered with a JSON-RPC error (the tool vanished in a reload, the host closed)
)

// maxAuditArgs bounds the arguments quoted in one audit line (--log-args);
// the line says how long they were when it cuts them.
const maxAuditArgs = 4 << 10

// callRecord is what the audit line of one call says.
type callRecord struct {
	session, tool, plugin, sha256 string
	args                          json.RawMessage
	start                         time.Time
	outcome                       string // set when decided before the host ran; else derived from the result
}

// record writes the audit line of a finished call: res is the result the
// client got (nil with a protocol error err).
func (a *Adapter) record(ctx context.Context, r *callRecord, res *abi.Result, err error) {
	if a.audit == nil {
		return
	}
	outcome := r.outcome
	if outcome == "" {
		switch {
		case err != nil || res == nil:
			outcome = outcomeProtocolError
		case ctx.Err() != nil && res.IsError:
			outcome = outcomeCanceled
		default:
			outcome = classify(res, r.tool, r.plugin)
		}
	}
	attrs := []slog.Attr{
		slog.String("session", r.session),
		slog.String("tool", r.tool),
		slog.String("plugin", r.plugin),
		slog.String("sha256", r.sha256),
		slog.Float64("duration_ms", float64(a.clock.Now().Sub(r.start).Microseconds())/1000),
		slog.String("outcome", outcome),
		slog.Int("bytes_in", len(r.args)),
		slog.Int("bytes_out", resultBytes(res)),
	}
	if a.logArgs {
		attrs = append(attrs, auditArgs(r.args)...)
	}
	// The record is made here, without a caller's PC, rather than by
	// Logger.LogAttrs, which unwinds the stack for one (runtime.Callers) on
	// every call: ~4 µs a call in the stdio profile, on go-sdk's
	// per-request goroutine, for a source location the audit never prints.
	h := a.audit.Handler()
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	rec := slog.NewRecord(time.Now(), slog.LevelInfo, "tool call", 0)
	rec.AddAttrs(attrs...)
	_ = h.Handle(ctx, rec) // as Logger does: a log line that cannot be written has nowhere to be reported
}

// classify tells the limit a failed call hit from the host's wording. The
// host reports every guest failure as an isError result (so that the model
// reads it) without a machine-readable kind; its sandbox failures read
// "tool T in plugin P: timed out after 30s" and "tool T in plugin P:
// exceeded memory limit of 256MiB". A guest that writes such a text itself
// would be misfiled, which costs only the accuracy of this audit field.
func classify(res *abi.Result, tool, plugin string) string {
	if !res.IsError {
		return outcomeOK
	}
	if len(res.Content) != 1 || res.Content[0].Type != abi.ContentText {
		return outcomeToolError
	}
	rest, ok := strings.CutPrefix(res.Content[0].Text, "tool "+tool+" in plugin "+plugin+": ")
	switch {
	case !ok:
		return outcomeToolError
	case strings.HasPrefix(rest, "timed out after "):
		return outcomeTimeout
	case strings.HasPrefix(rest, "exceeded ") && strings.Contains(rest, "memory"):
		return outcomeMemory
	case strings.HasPrefix(rest, "canceled"):
		return outcomeCanceled
	}
	return outcomeToolError
}

// resultBytes is the size of a result's payload: its texts, base64 data,
// embedded resources and structured content. It is what a client downloads,
// near enough, without encoding the result a second time to measure it.
func resultBytes(res *abi.Result) int {
	if res == nil {
		return 0
	}
	n := len(res.StructuredContent)
	for _, c := range res.Content {
		n += len(c.Text) + len(c.Data)
		if r := c.Resource; r != nil {
			if r.Text != nil {
				n += len(*r.Text)
			}
			if r.Blob != nil {
				n += len(*r.Blob)
			}
		}
	}
	return n
}

// auditArgs quotes a call's arguments, cut to maxAuditArgs bytes on a rune
// boundary.
func auditArgs(args json.RawMessage) []slog.Attr {
	if len(args) <= maxAuditArgs {
		return []slog.Attr{slog.String("args", string(args))}
	}
	cut := maxAuditArgs
	for cut > 0 && !utf8.RuneStart(args[cut]) {
		cut--
	}
	return []slog.Attr{slog.String("args", string(args[:cut])), slog.Bool("args_truncated", true)}
}
