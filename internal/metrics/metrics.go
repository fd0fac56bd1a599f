// Package metrics is the process's OpenTelemetry meter provider, read in
// the Prometheus text format: the instruments of the host and of the MCP
// adapter, named by the OpenTelemetry conventions, translated by the
// OpenTelemetry Prometheus exporter (mcp.server.operation.duration becomes
// mcp_server_operation_duration_seconds), beside the Go runtime's and the
// process's own collectors.
package metrics

import (
	"context"
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
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

// New makes an Exporter for a process of the given version. Its registry is
// its own, not the Prometheus library's global one, so that nothing else
// linked into the binary adds series.
func New(version string) (*Exporter, error) {
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
	return &Exporter{
		provider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp), sdkmetric.WithResource(res)),
		handler:  promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
	}, nil
}

// MeterProvider is where the instruments record.
func (e *Exporter) MeterProvider() metric.MeterProvider { return e.provider }

// Handler serves the measurements in the Prometheus text format (or
// OpenMetrics, as the scraper asks).
func (e *Exporter) Handler() http.Handler { return e.handler }

// Shutdown stops the meter provider.
func (e *Exporter) Shutdown(ctx context.Context) error { return e.provider.Shutdown(ctx) }
