// Package metrics is the process's OpenTelemetry meter provider, read in
// the Prometheus text format: the instruments of the host and of the MCP
// adapter, named by the OpenTelemetry conventions, translated by the
// OpenTelemetry Prometheus exporter (mcp.server.operation.duration becomes
// mcp_server_operation_duration_seconds), beside the Go runtime's and the
// process's own collectors. When the standard OpenTelemetry environment
// names an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, with the exporter's other
// OTEL_EXPORTER_OTLP_* variables and OTEL_METRIC_EXPORT_INTERVAL), the same
// instruments are also pushed there by OTLP over HTTP.
package metrics

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
)

// Exporter is a meter provider whose measurements are served as Prometheus
// text by Handler.
type Exporter struct {
	provider *sdkmetric.MeterProvider
	handler  http.Handler
}

// OTLPEnabled reports whether the environment names an OTLP endpoint for
// metrics.
func OTLPEnabled() bool {
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != ""
}

// New makes an Exporter for a process of the given version. Its registry is
// its own, not the Prometheus library's global one, so that nothing else
// linked into the binary adds series.
func New(ctx context.Context, version string) (*Exporter, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(collectors.NewGoCollector()); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", "wasmcp"), attribute.String("service.version", version))
	opts := []sdkmetric.Option{sdkmetric.WithReader(exp), sdkmetric.WithResource(res)}
	if OTLPEnabled() {
		// Nothing is sent before the first interval; an endpoint that
		// cannot be reached costs the dropped exports, never a call.
		push, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
		opts = append(opts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(push)))
	}
	return &Exporter{
		provider: sdkmetric.NewMeterProvider(opts...),
		handler:  promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
	}, nil
}

// MeterProvider is where the instruments record.
func (e *Exporter) MeterProvider() metric.MeterProvider { return e.provider }

// Handler serves the measurements in the Prometheus text format (or
// OpenMetrics, as the scraper asks).
func (e *Exporter) Handler() http.Handler { return e.handler }

// Shutdown pushes what an OTLP endpoint has not been sent yet, within ctx,
// and stops the meter provider.
func (e *Exporter) Shutdown(ctx context.Context) error { return e.provider.Shutdown(ctx) }
