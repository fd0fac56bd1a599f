package mcpadapter

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// traceContext reads and writes W3C Trace Context (traceparent,
// tracestate), the propagation the MCP semantic conventions and the
// 2026-07-28 specification name for a request's _meta.
var traceContext = propagation.TraceContext{}

// newTracer is the adapter's tracer from tp; nil gives a no-op one, whose
// spans still carry a client's trace id to the audit line.
func newTracer(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	return tp.Tracer(meterScope)
}

// startSpan starts the server span of one tools/call, as the MCP semantic
// conventions name it ("tools/call TOOL"), continuing the client's trace:
// from traceparent and tracestate in the request's _meta, which travel with
// the message whatever the transport, or else from the HTTP request's
// headers.
func (a *Adapter) startSpan(ctx context.Context, req *mcp.CallToolRequest) (context.Context, trace.Span) {
	parent := ctx
	carrier := propagation.MapCarrier{}
	for _, key := range traceContext.Fields() {
		if v, ok := req.Params.Meta[key].(string); ok {
			carrier[key] = v
		}
	}
	switch {
	case carrier["traceparent"] != "":
		parent = traceContext.Extract(ctx, carrier)
	case req.Extra != nil && req.Extra.Header != nil:
		parent = traceContext.Extract(ctx, propagation.HeaderCarrier(req.Extra.Header))
	}
	return a.tracer.Start(parent, "tools/call "+req.Params.Name, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(methodToolsCall, executeTool, toolNameKey.String(req.Params.Name)))
}

// Attributes of a call's span that name its principal: its subject, as
// OpenTelemetry names an end user, and the OAuth client acting for it.
const (
	subjectKey = attribute.Key("enduser.id")
	clientKey  = attribute.Key("wasmcp.client_id")
)

// endSpan ends the span of a call with what its measurement says, and who
// made it (never the token).
func endSpan(span trace.Span, r *callRecord, outcome string) {
	if !span.IsRecording() { // no tracer: attributes would be dropped
		span.End()
		return
	}
	if r.module.Plugin != "" {
		span.SetAttributes(pluginKey.String(r.module.Plugin), attribute.String("wasmcp.sha256", r.module.SHA256))
	}
	if r.session != "" {
		span.SetAttributes(attribute.String("mcp.session.id", r.session))
	}
	if p := r.principal; p != nil {
		span.SetAttributes(subjectKey.String(p.Subject))
		if p.ClientID != "" {
			span.SetAttributes(clientKey.String(p.ClientID))
		}
	}
	if r.views != "" {
		span.SetAttributes(viewsKey.String(r.views))
	}
	if outcome != outcomeOK && outcome != outcomeInputRequired {
		span.SetAttributes(errorTypeKey.String(outcome))
		span.SetStatus(codes.Error, outcome)
	}
	span.End()
}
