package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
)

// hyper-mcp's own host functions (extism:host/user), called by
// testdata/extism_user.wasm, reach the call's client, the policy's secrets
// and the plugin's lists.
func TestExtismUserFunctions(t *testing.T) {
	t.Setenv("WASMCP_TEST_KEYRING", "hunter2")
	p, err := policy.Parse([]byte(`{"plugins":{"extism_user":{"secrets":{"svc/me":"${WASMCP_TEST_KEYRING}"}}}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := newLogs()
	h := newHost(t, "", l, testConfig(t).WithPolicy(p))
	if err := h.LoadFile(t.Context(), filepath.Join("testdata", "extism_user.wasm")); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	record := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, s)
	}
	answer := func(reply string) host.RequestFunc {
		return func(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
			record("asked " + string(params))
			return json.RawMessage(reply), nil
		}
	}
	client := host.CallRequest{
		Log:      func(_ string, level abi.LogLevel, msg string) { record(level.String() + " " + msg) },
		Progress: func(p, total float64, msg string) { record(fmtProgress(p, total, msg)) },
		Sample:   answer(`{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m"}`),
		Elicit:   answer(`{"action":"accept","content":{"name":"Ada"}}`),
		Roots:    answer(`{"roots":[{"uri":"file:///work"}]}`),
		Notify:   func(method string, params json.RawMessage) { record(method + " " + string(params)) },
	}
	call := func(tool string, req host.CallRequest) *host.Result {
		t.Helper()
		req.Tool = tool
		res, err := h.Call(t.Context(), req)
		if err != nil {
			t.Fatalf("call %s: %v", tool, err)
		}
		return res
	}
	for _, tc := range []struct {
		tool, structured string
		saw              []string
	}{
		{"progress", "", []string{"1/2 half", "2/2 "}},
		{"log", "", []string{"warning user: careful"}},
		{"sample", `"model":"m"`, []string{`asked {"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}`}},
		// hyper-mcp's timeout bounds the wait and is not sent.
		{"elicit", `"name":"Ada"`, []string{`asked {"message":"name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`}},
		{"roots", `file:///work`, []string{"asked {}"}},
		{"keyring", `"secret":"hunter2"`, nil},
		{"url_done", "", []string{`notifications/elicitation/complete {"elicitationId":"e1"}`}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			got = nil
			res := call(tc.tool, client)
			if res.IsError || !strings.Contains(string(res.StructuredContent), tc.structured) {
				t.Fatalf("result %s %+v (%v)", res.StructuredContent, res.Content, res.Failure)
			}
			mu.Lock()
			defer mu.Unlock()
			if strings.Join(got, "\n") != strings.Join(tc.saw, "\n") {
				t.Errorf("the client saw\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.saw, "\n"))
			}
		})
	}

	// Without a client that takes them, or from a client that fails, the
	// plugin gets hyper-mcp's answers: an elicitation declined and a
	// sampled message with the stop reason "error", both saying why, and
	// no roots.
	failing := host.CallRequest{
		Sample: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, errors.New("the user refused") },
		Elicit: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, errors.New("the user went away") },
		Roots:  func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, errors.New("no roots today") },
	}
	for _, tc := range []struct {
		tool   string
		client host.CallRequest
		want   string
	}{
		{"elicit", host.CallRequest{}, `{"action":"decline","content":{"error":"elicitation is not available: this call has no client that supports it"}}`},
		{"elicit", failing, `{"action":"decline","content":{"error":"elicitation request failed: the user went away"}}`},
		{"roots", host.CallRequest{}, `{"roots":[]}`},
		{"roots", failing, `{"roots":[]}`},
		{"sample", host.CallRequest{}, `{"role":"assistant","content":{"type":"text","text":"sampling is not available: this call has no client that supports it"},"model":"","stopReason":"error"}`},
		{"sample", failing, `{"role":"assistant","content":{"type":"text","text":"sampling request failed: the user refused"},"model":"","stopReason":"error"}`},
	} {
		if res := call(tc.tool, tc.client); res.IsError || string(res.StructuredContent) != tc.want {
			t.Errorf("%s: %s %+v, want %s", tc.tool, res.StructuredContent, res.Content, tc.want)
		}
	}
	// get_access_token fails the call, not the load.
	if res := call("token", host.CallRequest{}); !res.IsError || !strings.Contains(res.Content[0].Text, "get_access_token") {
		t.Errorf("token: %+v", res)
	}
	// A list that changed is read again.
	call("changed", host.CallRequest{})
	l.wait(t, "plugin's lists read again, as it asked")
	if call("log", host.CallRequest{}).IsError {
		t.Error("the plugin stopped serving after its lists were read again")
	}
}

// A secret the policy does not hold reads as empty, as hyper-mcp gives one
// not allowed, and the operator is told.
func TestExtismUserSecretNotHeld(t *testing.T) {
	l := newLogs()
	h := newHost(t, "", l, testConfig(t))
	if err := h.LoadFile(t.Context(), filepath.Join("testdata", "extism_user.wasm")); err != nil {
		t.Fatal(err)
	}
	res, err := h.Call(t.Context(), host.CallRequest{Tool: "keyring"})
	if err != nil || res.IsError || !strings.Contains(string(res.StructuredContent), `"secret":""`) {
		t.Fatalf("%+v, %v", res, err)
	}
	l.wait(t, "plugin asked for a secret its policy section does not hold", "svc/me")
}

// A flood of list-changed notifications reads the lists a few times, not
// once per notification, and the plugin serves on.
func TestExtismUserListChangedFlood(t *testing.T) {
	l := newLogs()
	h := newHost(t, "", l, testConfig(t))
	if err := h.LoadFile(t.Context(), filepath.Join("testdata", "extism_user.wasm")); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 250 {
				if res, err := h.Call(t.Context(), host.CallRequest{Tool: "changed"}); err != nil && !errors.Is(err, host.ErrUnknownTool) || res != nil && res.IsError {
					t.Errorf("%+v, %v", res, err)
					return
				}
			}
		})
	}
	wg.Wait()
	l.wait(t, "plugin's lists read again")
	if n := strings.Count(l.String(), "plugin's lists read again"); n > 50 {
		t.Errorf("lists read %d times for 1000 notifications", n)
	}
}

func fmtProgress(p, total float64, msg string) string {
	b, _ := json.Marshal(p)
	c, _ := json.Marshal(total)
	return string(b) + "/" + string(c) + " " + msg
}
