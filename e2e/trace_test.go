package e2e

import (
	"encoding/hex"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// TestTraceContinuedAndExported serves with an OTLP endpoint on a loopback
// receiver, calls a tool with a traceparent in _meta, and finds the call's
// span at the receiver, a child of the client's span, with the engine's
// spans (admission, validation, the guest run) under it, the call's metric
// pushed to the same endpoint, and the trace id in the audit line.
func TestTraceContinuedAndExported(t *testing.T) {
	const (
		clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
		clientSpan  = "00f067aa0ba902b7"
	)
	spans := make(chan *tracepb.Span, 64)
	metricNames := make(chan string, 256)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/v1/metrics" {
			var req colmetricpb.ExportMetricsServiceRequest
			if proto.Unmarshal(body, &req) != nil {
				http.Error(w, "not an OTLP metrics export", http.StatusBadRequest)
				return
			}
			for _, rm := range req.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					for _, m := range sm.Metrics {
						select {
						case metricNames <- m.Name:
						default:
						}
					}
				}
			}
			out, _ := proto.Marshal(&colmetricpb.ExportMetricsServiceResponse{})
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.Write(out)
			return
		}
		var req coltracepb.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
			http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
			return
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					select {
					case spans <- s:
					default:
					}
				}
			}
		}
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	defer receiver.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.URL)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")      // milliseconds: export soon after the call
	t.Setenv("OTEL_METRIC_EXPORT_INTERVAL", "200") // milliseconds

	s := startServer(t, servedCopy(t, wat("hello")), serverOptions{protocol: legacyProtocol})
	res, err := s.CallTool(testContext(t), &mcp.CallToolParams{Name: "hello",
		Meta: mcp.Meta{"traceparent": "00-" + clientTrace + "-" + clientSpan + "-01"}})
	if err != nil || res.IsError {
		t.Fatalf("hello: %v %v", res, err)
	}
	ctx := testContext(t)
	got := map[string]*tracepb.Span{}
	for len(got) < 4 {
		var span *tracepb.Span
		select {
		case span = <-spans:
		case <-ctx.Done():
			t.Fatalf("spans of the call that reached the receiver: %v\n%s", slices.Collect(maps.Keys(got)), s.stderr)
		}
		if hex.EncodeToString(span.TraceId) == clientTrace {
			got[span.Name] = span
		}
	}
	call := got["tools/call hello"]
	if call == nil || hex.EncodeToString(call.ParentSpanId) != clientSpan || call.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Fatalf("span %v; want tools/call hello, child of %s, server", call, clientSpan)
	}
	// The engine's children of the call's span.
	for _, name := range []string{"admission", "validate", "guest"} {
		if c := got[name]; c == nil || string(c.ParentSpanId) != string(call.SpanId) {
			t.Errorf("span %s: %v; want a child of the call's span %x", name, c, call.SpanId)
		}
	}
	// The same endpoint gets the metrics, the call's among them.
	for name := ""; name != "mcp.server.operation.duration"; {
		select {
		case name = <-metricNames:
		case <-ctx.Done():
			t.Fatalf("no mcp.server.operation.duration at the receiver\n%s", s.stderr)
		}
	}
	for !strings.Contains(s.stderr.String(), "trace_id="+clientTrace) {
		select {
		case <-ctx.Done():
			t.Fatalf("no audit line names the trace:\n%s", s.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
