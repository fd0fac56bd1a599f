package mcpadapter

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// meterScope is the instrumentation scope of the adapter's instruments.
const meterScope = "github.com/wasmcp/wasmcp/internal/mcpadapter"

// operationBuckets are the bucket boundaries the MCP semantic conventions
// advise for mcp.server.operation.duration, in seconds.
var operationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Attributes of mcp.server.operation.duration: the MCP conventions' own,
// the plugin that served the call and the policy views its principal
// matched (the policy bounds them, where subjects are unbounded).
var (
	methodToolsCall = attribute.String("mcp.method.name", "tools/call")
	executeTool     = attribute.String("gen_ai.operation.name", "execute_tool")
)

const (
	toolNameKey  = attribute.Key("gen_ai.tool.name")
	errorTypeKey = attribute.Key("error.type")
	pluginKey    = attribute.Key("wasmcp.plugin")
	viewsKey     = attribute.Key("wasmcp.views")
)

// meters are the adapter's instruments.
type meters struct {
	// operations is mcp.server.operation.duration, of tools/call,
	// resources/read and prompts/get: one measurement per request, its
	// outcome in error.type.
	operations metric.Float64Histogram
	// evictions is wasmcp.sessions.evicted: the sessions closed to make
	// room for new ones (sessions.go), by reason.
	evictions metric.Int64Counter
	// observing stops the callback of wasmcp.sessions.open.
	observing metric.Registration
}

// newMeters makes the adapter's instruments from mp (nil: no-op) and
// observes the open sessions with sessions.
func newMeters(mp metric.MeterProvider, sessions func() int) (*meters, error) {
	if mp == nil {
		mp = noop.NewMeterProvider()
	}
	m := mp.Meter(meterScope)
	var ms meters
	var err error
	if ms.operations, err = m.Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("MCP request duration as observed on the receiver from the time it was received until the result is sent."),
		metric.WithExplicitBucketBoundaries(operationBuckets...)); err != nil {
		return nil, err
	}
	if ms.evictions, err = m.Int64Counter("wasmcp.sessions.evicted", metric.WithUnit("{session}"),
		metric.WithDescription("MCP sessions closed to make room for new ones: idle sessions of the principal at its cap, or of the owner holding the most when the server is full.")); err != nil {
		return nil, err
	}
	open, err := m.Int64ObservableUpDownCounter("wasmcp.sessions.open", metric.WithUnit("{session}"),
		metric.WithDescription("MCP sessions open: stdio's one, and those of 2025-era HTTP clients."))
	if err != nil {
		return nil, err
	}
	if ms.observing, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(open, int64(sessions()))
		return nil
	}, open); err != nil {
		return nil, err
	}
	return &ms, nil
}

// recordCall measures one tools/call. error.type is set, as the
// conventions ask, only when the call failed: to the outcome of its audit
// line (tool_error, timeout, memory, canceled, rate_limited, busy,
// protocol_error). An answer asking the client for input is no failure.
// recordOffer measures a resources/read or a prompts/get.
func (ms *meters) recordOffer(ctx context.Context, method, plugin, outcome string, took time.Duration) {
	attrs := []attribute.KeyValue{attribute.String("mcp.method.name", method)}
	if plugin != "" {
		attrs = append(attrs, pluginKey.String(plugin))
	}
	if outcome != outcomeOK {
		attrs = append(attrs, errorTypeKey.String(outcome))
	}
	ms.operations.Record(ctx, took.Seconds(), metric.WithAttributes(attrs...))
}

func (ms *meters) recordCall(ctx context.Context, r *callRecord, outcome string, took time.Duration) {
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, methodToolsCall, executeTool, toolNameKey.String(r.tool))
	if r.module.Plugin != "" {
		attrs = append(attrs, pluginKey.String(r.module.Plugin))
	}
	if r.views != "" {
		attrs = append(attrs, viewsKey.String(r.views))
	}
	if outcome != outcomeOK && outcome != outcomeInputRequired {
		attrs = append(attrs, errorTypeKey.String(outcome))
	}
	ms.operations.Record(ctx, took.Seconds(), metric.WithAttributes(attrs...))
}

// recordEviction counts a session closed to make room, by reason.
func (ms *meters) recordEviction(reason string) {
	ms.evictions.Add(context.Background(), 1, metric.WithAttributes(attribute.String("reason", reason)))
}
