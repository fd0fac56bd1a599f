package host_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/egresstest"
)

// The engine's spans of a call are children of the caller's span, in
// order: admission, validation, the guest run, and the guest's outbound
// request under the guest run; the request's span names its origin and
// never its path or query.
func TestTraceOfCall(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	srv := egresstest.NewServer(t, false, hello)
	h := newHost(t, "", newLogs(), testConfig(t).WithPolicy(netPolicy(t, `{"net":["`+srv.Origin+`"]}`)).
		WithResolver(egresstest.Names).WithTracerProvider(tp))
	if err := h.LoadFile(context.Background(), filepath.Join("testdata", "net.wasm")); err != nil {
		t.Fatal(err)
	}

	ctx, root := tp.Tracer("test").Start(t.Context(), "tools/call fetch")
	args, _ := json.Marshal(abi.HTTPRequest{URL: srv.URL + "/secret?token=x"})
	res, err := h.Call(ctx, host.CallRequest{Tool: "fetch", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	root.End()

	spans := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		spans[s.Name()] = s
	}
	parents := map[string]string{"admission": "tools/call fetch", "validate": "tools/call fetch", "guest": "tools/call fetch", "http_request": "guest"}
	for name, parent := range parents {
		s, ok := spans[name]
		if !ok {
			t.Fatalf("no %s span among %v", name, rec.Ended())
		}
		if s.Parent().SpanID() != spans[parent].SpanContext().SpanID() {
			t.Errorf("span %s is not a child of %s", name, parent)
		}
	}
	attrs := func(name string) map[string]string {
		out := map[string]string{}
		for _, kv := range spans[name].Attributes() {
			out[string(kv.Key)] = kv.Value.Emit()
		}
		return out
	}
	guest := attrs("guest")
	if guest["wasmcp.plugin"] != "net" || guest["wasmcp.sha256"] != res.Module.SHA256 || guest["wasmcp.outcome"] != "ok" {
		t.Errorf("guest span attributes %v", guest)
	}
	req := attrs("http_request")
	want := map[string]string{"http.request.method": "GET", "wasmcp.net.request.origin": srv.Origin,
		"http.response.status_code": "200", "wasmcp.net.bytes": "5", "wasmcp.net.outcome": "ok"}
	for k, v := range want {
		if req[k] != v {
			t.Errorf("http_request span %s = %q, want %q (all: %v)", k, req[k], v, req)
		}
	}
	for k, v := range req {
		if strings.Contains(v, "secret") || strings.Contains(v, "token") {
			t.Errorf("http_request span %s = %q names the path or query", k, v)
		}
	}

	// A refused request is an error span.
	before := len(rec.Ended())
	args, _ = json.Marshal(abi.HTTPRequest{URL: "http://invented.example/"})
	if res, err := h.Call(t.Context(), host.CallRequest{Tool: "fetch", Arguments: args}); err != nil || !res.IsError {
		t.Fatalf("refused request: %v %+v", err, res)
	}
	refused := 0
	for _, s := range rec.Ended()[before:] {
		if s.Name() == "http_request" {
			refused++
			if s.Status().Code != codes.Error {
				t.Errorf("refused request span status %v", s.Status())
			}
		}
	}
	if refused != 1 {
		t.Errorf("%d spans of the refused request, want 1", refused)
	}
}
