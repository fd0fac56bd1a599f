package metrics

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// TestPrometheusText records an instrument named by the OpenTelemetry
// conventions and reads it back as Prometheus text, under the name and
// labels a Prometheus query uses.
func TestPrometheusText(t *testing.T) {
	e, err := New(t.Context(), "v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Shutdown(context.Background())
	h, err := e.MeterProvider().Meter("test").Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"))
	if err != nil {
		t.Fatal(err)
	}
	h.Record(context.Background(), 0.25, metric.WithAttributes(attribute.String("gen_ai.tool.name", "echo"),
		attribute.String("error.type", "timeout")))

	rec := httptest.NewRecorder()
	e.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	text := string(body)
	for _, want := range []string{
		`mcp_server_operation_duration_seconds_count{error_type="timeout",gen_ai_tool_name="echo"`,
		`target_info{service_name="wasmcp",service_version="v1.2.3"`,
		"process_resident_memory_bytes",
		"go_goroutines",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %s in:\n%s", want, text)
		}
	}
}
