// Package tracing exports the spans of tools/call calls by OTLP over HTTP
// when the standard OpenTelemetry environment asks for it
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, with
// the exporter's other OTEL_EXPORTER_OTLP_* variables and the SDK's
// OTEL_TRACES_SAMPLER and OTEL_BSP_*).
package tracing

import (
	"context"
	"fmt"
	"os"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Enabled reports whether the environment names an OTLP endpoint for
// traces.
func Enabled() bool {
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Exporter is a tracer provider that sends its spans in batches.
type Exporter struct {
	provider *sdktrace.TracerProvider
}

// New makes the Exporter of a process of the given version, configured by
// the environment. Nothing is sent until a span ends; an endpoint that
// cannot be reached costs the dropped batches, never a call.
func New(ctx context.Context, version string) (*Exporter, error) {
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("traces: %w", err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", "wasmcp"), attribute.String("service.version", version))
	return &Exporter{provider: sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))}, nil
}

// TracerProvider is where the spans start.
func (e *Exporter) TracerProvider() trace.TracerProvider { return e.provider }

// Shutdown sends the spans not sent yet, within ctx, and stops.
func (e *Exporter) Shutdown(ctx context.Context) error { return e.provider.Shutdown(ctx) }
