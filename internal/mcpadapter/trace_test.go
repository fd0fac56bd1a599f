package mcpadapter

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

const (
	clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpan  = "00f067aa0ba902b7"
	traceparent = "00-" + clientTrace + "-" + clientSpan + "-01"
)

// headerTransport adds a traceparent header to every request.
type headerTransport struct{}

func (headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("traceparent", traceparent)
	return http.DefaultTransport.RoundTrip(r)
}

// TestTraceContinuesClient calls a tool with the client's trace context in
// _meta, then in the HTTP headers: each call is one server span, child of
// the client's, and its audit line names the trace.
func TestTraceContinuesClient(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer tp.Shutdown(context.Background())
	a, log := auditedAdapter(t, echoHost("echo"), Options{TracerProvider: tp})
	url := serveHTTP(t, a, HTTPOptions{})
	ctx := testContext(t)

	viaMeta := dialHTTP(t, url, legacy)
	if _, err := viaMeta.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Meta: mcp.Meta{"traceparent": traceparent}}); err != nil {
		t.Fatal(err)
	}
	viaHeader := dial(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: headerTransport{}}}, legacy)
	t.Cleanup(func() { viaHeader.Close() })
	if _, err := viaHeader.CallTool(ctx, &mcp.CallToolParams{Name: "echo"}); err != nil {
		t.Fatal(err)
	}

	ended := spans.Ended()
	if len(ended) != 2 {
		t.Fatalf("%d spans, want 2", len(ended))
	}
	for i, s := range ended {
		if s.Name() != "tools/call echo" || s.SpanKind() != trace.SpanKindServer {
			t.Errorf("span %d: %q, kind %v", i, s.Name(), s.SpanKind())
		}
		if got := s.Parent(); got.TraceID().String() != clientTrace || got.SpanID().String() != clientSpan || !got.IsRemote() {
			t.Errorf("span %d: parent %v, want the client's span %s of trace %s", i, got, clientSpan, clientTrace)
		}
	}
	for _, line := range log.lines(t) {
		if line["trace_id"] != clientTrace {
			t.Errorf("audit line without the client's trace id: %v", line)
		}
	}
}
