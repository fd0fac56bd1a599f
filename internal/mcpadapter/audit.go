package mcpadapter

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/trace"

	"github.com/wasmcp/wasmcp/host"
)

// Outcomes of a call, as audit lines name them.
const (
	outcomeOK            = "ok"             // a result without isError
	outcomeToolError     = "tool_error"     // an isError result: invalid arguments, a guest's own error, a trap, ...
	outcomeTimeout       = "timeout"        // the guest ran past the call deadline and was stopped
	outcomeMemory        = "memory"         // the guest hit its memory limit
	outcomeCanceled      = "canceled"       // the client cancelled or went away
	outcomeRateLimited   = "rate_limited"   // refused by a rate limit: the session's, the tool's or the plugin's
	outcomeBusy          = "busy"           // refused by the plugin's concurrency cap: queue full or wait timed out
	outcomeProtocolError = "protocol_error" // answered with a JSON-RPC error (the tool vanished in a reload, the host closed)
	outcomeInputRequired = "input_required" // answered with an input request; the client calls again with its answer (round.go)
	outcomeForbidden     = "forbidden"      // the caller sees the tool but lacks a scope its view requires
)

// maxAuditArgs bounds the arguments quoted in one audit line (--log-args);
// the line says how long they were when it cuts them.
const maxAuditArgs = 4 << 10

// callRecord is what the audit line of one call says.
type callRecord struct {
	session, tool string
	principal     *host.Principal // who called
	module        host.Module     // the module version that served it, once the host resolved the tool
	views         string          // the policy views the principal matched, once the host ran the call
	args          json.RawMessage
	start         time.Time
	outcome       string // set when decided before the host ran; else derived from the result
	span          trace.Span
}

// record measures a finished call and writes its audit line: res is the
// result the client got (nil with a protocol error err). The line is
// written before the answer is sent, so that a crash after the answer
// loses no line.
func (a *Adapter) record(ctx context.Context, r *callRecord, res *host.Result, err error) {
	took := time.Since(r.start)
	outcome := r.outcome
	if outcome == "" {
		switch {
		case err != nil || res == nil:
			outcome = outcomeProtocolError
		case ctx.Err() != nil && res.IsError:
			outcome = outcomeCanceled
		default:
			outcome = classify(res)
		}
	}
	a.meters.recordCall(ctx, r, outcome, took)
	defer endSpan(r.span, r, outcome)
	if a.opts.Audit == nil {
		return
	}
	attrs := []slog.Attr{
		slog.String("session", r.session),
		slog.String("subject", subjectOf(r.principal)),
		slog.String("client_id", clientOf(r.principal)),
		slog.String("tool", r.tool),
		slog.String("plugin", r.module.Plugin),
		slog.String("sha256", r.module.SHA256),
		slog.Float64("duration_ms", float64(took.Microseconds())/1000),
		slog.String("outcome", outcome),
		slog.Int("bytes_in", len(r.args)),
		slog.Int("bytes_out", resultBytes(res)),
	}
	if r.views != "" {
		attrs = append(attrs, slog.String("views", r.views))
	}
	if sc := r.span.SpanContext(); sc.HasTraceID() {
		attrs = append(attrs, slog.String("trace_id", sc.TraceID().String()))
	}
	if a.opts.LogArgs {
		attrs = append(attrs, auditArgs(r.args)...)
	}
	a.opts.Audit.LogAttrs(ctx, slog.LevelInfo, "tool call", attrs...)
}

// classify names the outcome of a call the host ran, from the cause the
// host gives for a result it made an error (host.Result.Failure), never from
// the result's text, which a guest writes as it likes.
func classify(res *host.Result) string {
	switch f := res.Failure; {
	case f == nil && !res.IsError:
		return outcomeOK
	case errors.Is(f, host.ErrTimeout):
		return outcomeTimeout
	case errors.Is(f, host.ErrMemory):
		return outcomeMemory
	case errors.Is(f, host.ErrCanceled):
		return outcomeCanceled
	case errors.Is(f, host.ErrRateLimited):
		return outcomeRateLimited
	case errors.Is(f, host.ErrBusy):
		return outcomeBusy
	}
	return outcomeToolError
}

// resultBytes is the size of a result's payload: its texts, base64 data,
// embedded resources and structured content. It is what a client downloads,
// near enough, without encoding the result a second time to measure it.
func resultBytes(res *host.Result) int {
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

// subjectOf and clientOf name a principal in audit lines: its subject and
// client id, never its token.
func subjectOf(p *host.Principal) string {
	if p == nil {
		return ""
	}
	return p.Subject
}

func clientOf(p *host.Principal) string {
	if p == nil {
		return ""
	}
	return p.ClientID
}
