package mcpadapter

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
)

// TestMetricsOfCalls makes calls of every kind from a go-sdk client and
// reads mcp.server.operation.duration: one measurement per call, by tool
// and plugin, error.type naming the outcome of each failure.
func TestMetricsOfCalls(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())

	h := echoHost("ok", "fails", "slow", "limited")
	limitedCalls := 0
	h.call = func(_ context.Context, req host.CallRequest) (*host.Result, error) {
		switch req.Tool {
		case "fails":
			return &host.Result{Result: abi.Result{IsError: true, Content: []abi.Content{abi.Text("no")}}}, nil
		case "slow":
			return &host.Result{Result: abi.Result{IsError: true, Content: []abi.Content{abi.Text("timed out")}}, Failure: host.ErrTimeout}, nil
		case "limited":
			// One call per tool per 1000 s: the second is refused.
			limitedCalls++
			if limitedCalls > 1 {
				return &host.Result{Result: abi.Result{IsError: true, Content: []abi.Content{abi.Text("rate limit exceeded")}}, Failure: host.ErrRateLimited}, nil
			}
		}
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("yes")}}}, nil
	}
	a := New(h, Options{MeterProvider: mp})
	defer a.Close()
	c := dialHTTP(t, serveHTTP(t, a, HTTPOptions{}), legacy)
	ctx := testContext(t)
	for _, name := range []string{"ok", "fails", "slow", "limited", "limited"} {
		if _, err := c.CallTool(ctx, &mcp.CallToolParams{Name: name}); err != nil {
			t.Fatalf("call %s: %v", name, err)
		}
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	var sessions int64 = -1
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch m.Name {
			case "mcp.server.operation.duration":
				if m.Unit != "s" {
					t.Errorf("unit %q, want s", m.Unit)
				}
				for _, p := range m.Data.(metricdata.Histogram[float64]).DataPoints {
					got[p.Attributes.Encoded(attribute.DefaultEncoder())] = p.Count
				}
			case "wasmcp.sessions.open":
				sessions = m.Data.(metricdata.Sum[int64]).DataPoints[0].Value
			}
		}
	}
	base := "gen_ai.operation.name=execute_tool,gen_ai.tool.name="
	want := map[string]uint64{
		base + "ok,mcp.method.name=tools/call,wasmcp.plugin=plug":                                   1,
		"error.type=tool_error," + base + "fails,mcp.method.name=tools/call,wasmcp.plugin=plug":     1,
		"error.type=timeout," + base + "slow,mcp.method.name=tools/call,wasmcp.plugin=plug":         1,
		base + "limited,mcp.method.name=tools/call,wasmcp.plugin=plug":                              1,
		"error.type=rate_limited," + base + "limited,mcp.method.name=tools/call,wasmcp.plugin=plug": 1,
	}
	if len(got) != len(want) {
		t.Errorf("series:\n%v\nwant:\n%v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d calls, want %d", k, got[k], v)
		}
	}
	if sessions != 1 {
		t.Errorf("wasmcp.sessions.open = %d, want 1", sessions)
	}
}
