package mcpadapter

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
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

// A call's span names its principal, by subject and client id (never its
// token), and the views it matched, which label its measurement too: the
// policy bounds them, where subjects are unbounded.
func TestSpanAndMetricNamePrincipal(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer tp.Shutdown(context.Background())
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	h := echoHost("t")
	h.call = func(_ context.Context, req host.CallRequest) (*host.Result, error) {
		views := "local-view"
		if req.Principal.Subject == "alice" {
			views = "eng,ops"
		}
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("ok")}}, Views: views}, nil
	}
	a := New(h, Options{TracerProvider: tp, MeterProvider: mp})
	defer a.Close()
	ctx := testContext(t)
	if _, err := dialAs(t, serveOAuth(t, a, HTTPOptions{}), "alice/desktop").CallTool(ctx, &mcp.CallToolParams{Name: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, err := dialHTTP(t, serveHTTP(t, a, HTTPOptions{}), legacy).CallTool(ctx, &mcp.CallToolParams{Name: "t"}); err != nil {
		t.Fatal(err)
	}

	ended := spans.Ended()
	if len(ended) != 2 {
		t.Fatalf("%d spans, want 2", len(ended))
	}
	for i, want := range []map[string]string{
		{"enduser.id": "alice", "wasmcp.client_id": "desktop", "wasmcp.views": "eng,ops"},
		{"enduser.id": "local", "wasmcp.views": "local-view"},
	} {
		got := map[string]string{}
		for _, kv := range ended[i].Attributes() {
			switch k := string(kv.Key); k {
			case "enduser.id", "wasmcp.client_id", "wasmcp.views":
				got[k] = kv.Value.AsString()
			}
			if strings.Contains(kv.Value.Emit(), "Bearer") {
				t.Errorf("span %d: attribute %s carries the token", i, kv.Key)
			}
		}
		if !maps.Equal(got, want) {
			t.Errorf("span %d: principal attributes %v, want %v", i, got, want)
		}
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	var views []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "mcp.server.operation.duration" {
				continue
			}
			for _, p := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				v, _ := p.Attributes.Value(viewsKey)
				views = append(views, v.AsString())
				if _, ok := p.Attributes.Value(subjectKey); ok {
					t.Errorf("the measurement is labelled with the subject: %v", p.Attributes)
				}
			}
		}
	}
	slices.Sort(views)
	if !slices.Equal(views, []string{"eng,ops", "local-view"}) {
		t.Errorf("wasmcp.views of the measurements: %q, want eng,ops and local-view", views)
	}
}
