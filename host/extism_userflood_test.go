package host_test

import (
	"encoding/json"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/wasmcp/wasmcp/host"
)

// A call saying again and again that a URL elicitation completed sends its
// client at most as many notifications as it may log lines: the rest are
// dropped, and the call goes on.
func TestExtismUserNotifyFlood(t *testing.T) {
	h := newHost(t, "", nil, testConfig(t))
	if err := h.LoadFile(t.Context(), filepath.Join("testdata", "extism_userflood.wasm")); err != nil {
		t.Fatal(err)
	}
	var sent atomic.Int64
	res, err := h.Call(t.Context(), host.CallRequest{Tool: "flood",
		Notify: func(string, json.RawMessage) { sent.Add(1) }})
	if err != nil || res.IsError {
		t.Fatalf("call: %+v, %v", res, err)
	}
	if n := sent.Load(); n == 0 || n > 1000 {
		t.Errorf("the client was sent %d notifications of ten thousand, want some, at most a thousand", n)
	}
}
