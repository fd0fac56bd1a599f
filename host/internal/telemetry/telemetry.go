// Package telemetry holds the engine's OpenTelemetry instruments: the facts
// only the engine knows (module loads, reloads, guest memory, outbound
// requests), recorded through the metric API so that a host without a
// MeterProvider pays for no-op calls only. Names follow the OpenTelemetry
// conventions (dotted, unit in the instrument, not the name); the MCP
// adapter records the per-call instrument of the MCP conventions.
package telemetry

import (
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// ScopeName is the instrumentation scope of the engine's instruments.
const ScopeName = "github.com/wasmcp/wasmcp/host"

// Attribute keys of the engine's instruments.
const (
	// PluginKey names the plugin (module file name without .wasm).
	PluginKey = attribute.Key("wasmcp.plugin")
	// ResultKey is the result of a module load: loaded, failed, refused
	// (by the trust policy).
	ResultKey = attribute.Key("wasmcp.load.result")
	// TriggerKey is what started a reload: load, watch, reconfigure, file.
	TriggerKey = attribute.Key("wasmcp.reload.trigger")
	// OriginKey is the granted origin that covered an outbound request, as
	// the policy writes it, or _OTHER for a request no grant covered: a
	// guest picks its URLs, the operator its grants, so only the latter
	// bounds the number of series.
	OriginKey = attribute.Key("wasmcp.net.origin")
	// NetOutcomeKey is the status of an outbound request as the guest got
	// it: ok, denied, timeout, failed, invalid, ...
	NetOutcomeKey = attribute.Key("wasmcp.net.outcome")
)

// OtherOrigin is OriginKey's value for a request no grant covered.
const OtherOrigin = "_OTHER"

// Instruments are the engine's instruments. The zero value is not usable;
// a nil *Instruments is replaced by Noop() where options are defaulted.
type Instruments struct {
	// ModuleLoads counts attempts to load a module, by plugin and result.
	ModuleLoads metric.Int64Counter
	// ReloadDuration is the time one load of a set of modules took (the
	// directory at start, a batch of changed files, a reconfiguration).
	ReloadDuration metric.Float64Histogram
	// MemoryPeak is the largest linear memory an instance of the plugin's
	// serving version has had, by plugin.
	MemoryPeak metric.Int64Gauge
	// NetRequests counts guests' outbound HTTP requests, by plugin, origin
	// and outcome.
	NetRequests metric.Int64Counter
	// Meter is the meter the instruments come from, for the host's own
	// observable instruments.
	Meter metric.Meter
	// Tracer starts the engine's child spans of a call: admission,
	// validation, the guest run, each outbound request.
	Tracer trace.Tracer
}

// reloadBuckets suit loads from a cached compile (milliseconds) to a large
// Go guest compiled cold (seconds).
var reloadBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// New makes the instruments from mp and the tracer from tp; nil gives the
// no-op ones.
func New(mp metric.MeterProvider, tp trace.TracerProvider) (*Instruments, error) {
	in := Noop()
	if mp != nil {
		var err error
		if in, err = newInstruments(mp); err != nil {
			return nil, err
		}
	}
	if tp != nil {
		c := *in
		c.Tracer = tp.Tracer(ScopeName)
		in = &c
	}
	return in, nil
}

func newInstruments(mp metric.MeterProvider) (*Instruments, error) {
	m := mp.Meter(ScopeName)
	in := &Instruments{Meter: m, Tracer: tracenoop.NewTracerProvider().Tracer(ScopeName)}
	var err error
	if in.ModuleLoads, err = m.Int64Counter("wasmcp.module.loads", metric.WithUnit("{load}"),
		metric.WithDescription("Attempts to load a module, by plugin and result.")); err != nil {
		return nil, err
	}
	if in.ReloadDuration, err = m.Float64Histogram("wasmcp.reload.duration", metric.WithUnit("s"),
		metric.WithDescription("Time to load a set of modules: the directory, a batch of changed files, a reconfiguration."),
		metric.WithExplicitBucketBoundaries(reloadBuckets...)); err != nil {
		return nil, err
	}
	if in.MemoryPeak, err = m.Int64Gauge("wasmcp.guest.memory.peak", metric.WithUnit("By"),
		metric.WithDescription("Largest linear memory of an instance of the plugin's serving version.")); err != nil {
		return nil, err
	}
	if in.NetRequests, err = m.Int64Counter("wasmcp.guest.http.requests", metric.WithUnit("{request}"),
		metric.WithDescription("Outbound HTTP requests of guests, by plugin, granted origin and outcome.")); err != nil {
		return nil, err
	}
	return in, nil
}

// Noop returns instruments that record nothing.
var Noop = sync.OnceValue(func() *Instruments {
	in, err := newInstruments(noop.NewMeterProvider())
	if err != nil {
		panic(err) // the no-op meter returns no errors
	}
	return in
})
