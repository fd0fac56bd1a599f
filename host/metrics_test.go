package host_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/internal/egresstest"
)

// metered returns a meter provider and a function that collects what it
// measured: by instrument, by attribute set ("k=v,..." sorted), the value
// of a sum or gauge or the count of a histogram.
func metered(t *testing.T) (*sdkmetric.MeterProvider, func() map[string]map[string]float64) {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { mp.Shutdown(context.Background()) })
	return mp, func() map[string]map[string]float64 {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(context.Background(), &rm); err != nil {
			t.Fatal(err)
		}
		out := map[string]map[string]float64{}
		key := func(s attribute.Set) string { return s.Encoded(attribute.DefaultEncoder()) }
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				pts := map[string]float64{}
				switch d := m.Data.(type) {
				case metricdata.Sum[int64]:
					for _, p := range d.DataPoints {
						pts[key(p.Attributes)] = float64(p.Value)
					}
				case metricdata.Gauge[int64]:
					for _, p := range d.DataPoints {
						pts[key(p.Attributes)] = float64(p.Value)
					}
				case metricdata.Histogram[float64]:
					for _, p := range d.DataPoints {
						pts[key(p.Attributes)] = float64(p.Count)
					}
				default:
					t.Fatalf("%s: unexpected data %T", m.Name, m.Data)
				}
				out[m.Name] = pts
			}
		}
		return out
	}
}

func TestMetricsOfLoadsAndCalls(t *testing.T) {
	mp, collect := metered(t)
	dir := t.TempDir()
	place(t, dir, "x.wasm", guest(t, guestSpec{Tools: []string{"x"}, Answer: "hi"}))
	place(t, dir, "bad.wasm", []byte("not a module"))
	h := newHost(t, dir, nil, testConfig(t).WithMeterProvider(mp))
	if err := h.LoadDir(t.Context()); err != nil {
		t.Fatal(err)
	}
	call(t, h, "x")

	got := collect()
	want := map[string]map[string]float64{
		"wasmcp.module.loads": {
			"wasmcp.load.result=loaded,wasmcp.plugin=x":   1,
			"wasmcp.load.result=failed,wasmcp.plugin=bad": 1,
		},
		"wasmcp.reload.duration": {"wasmcp.reload.trigger=load": 1},
		"wasmcp.modules.open":    {"": 1},
	}
	for name, pts := range want {
		for attrs, v := range pts {
			if got[name][attrs] != v {
				t.Errorf("%s{%s} = %v, want %v (all: %v)", name, attrs, got[name][attrs], v, got[name])
			}
		}
	}
	if peak := got["wasmcp.guest.memory.peak"]["wasmcp.plugin=x"]; peak < 65536 {
		t.Errorf("memory peak of x = %v, want at least a page", peak)
	}
}

func TestMetricsOfNetRequests(t *testing.T) {
	mp, collect := metered(t)
	srv := egresstest.NewServer(t, false, hello)
	l := newLogs()
	h := newHost(t, "", l, testConfig(t).WithPolicy(netPolicy(t, `{"net":["`+srv.Origin+`"]}`)).
		WithResolver(egresstest.Names).WithMeterProvider(mp))
	if err := h.LoadFile(context.Background(), filepath.Join("testdata", "net.wasm")); err != nil {
		t.Fatal(err)
	}
	response(t, fetch(t, t.Context(), h, abi.HTTPRequest{URL: srv.URL + "/x"}))
	for i := range 2 {
		// Each URL a guest invents is one more origin; the instrument
		// must not grow a series for each.
		if res := fetch(t, t.Context(), h, abi.HTTPRequest{URL: fmt.Sprintf("http://invented%d.example/", i)}); !res.IsError {
			t.Fatalf("a request outside the policy succeeded: %+v", res)
		}
	}
	pts := collect()["wasmcp.guest.http.requests"]
	want := map[string]float64{
		"wasmcp.net.origin=" + srv.Origin + ",wasmcp.net.outcome=ok,wasmcp.plugin=net": 1,
		"wasmcp.net.origin=_OTHER,wasmcp.net.outcome=denied,wasmcp.plugin=net":         2,
	}
	if len(pts) != len(want) {
		t.Errorf("series %v, want %v", pts, want)
	}
	for attrs, v := range want {
		if pts[attrs] != v {
			t.Errorf("{%s} = %v, want %v (all: %v)", attrs, pts[attrs], v, pts)
		}
	}
}
