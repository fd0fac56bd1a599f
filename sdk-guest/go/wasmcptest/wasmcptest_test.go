package wasmcptest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/guest"
)

// recorder is a testing.TB that records failures instead of reporting them,
// so the test can assert that wasmcptest fails where the host would refuse.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
	panic(r) // stops the helper as t.Fatalf would; recovered by fatal
}

func fatal(r *recorder, f func()) {
	defer func() {
		if v := recover(); v != nil && v != any(r) {
			panic(v)
		}
	}()
	f()
}

func init() {
	out := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	in := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	echo := func(args []byte) *abi.Result {
		guest.Log(abi.LogInfo, "got "+string(args))
		return &abi.Result{StructuredContent: json.RawMessage(args)}
	}
	for _, tool := range []abi.Tool{
		{Name: "w.echo", InputSchema: in, OutputSchema: out},
		{Name: "w.loose", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: out},
	} {
		if err := guest.Register(tool, echo); err != nil {
			panic(err)
		}
	}
	if err := guest.Register(abi.Tool{Name: "w.nostructure", InputSchema: in, OutputSchema: out},
		func([]byte) *abi.Result { return &abi.Result{} }); err != nil {
		panic(err)
	}
}

func TestCallValidatesLikeTheHost(t *testing.T) {
	res := Call(t, "w.echo", map[string]int{"n": 3})
	if string(res.StructuredContent) != `{"n":3}` || res.IsError {
		t.Errorf("echo: %+v", res)
	}
	if len(res.Logs) != 1 || res.Logs[0].Message != `got {"n":3}` || res.Logs[0].Level != abi.LogInfo {
		t.Errorf("logs: %+v", res.Logs)
	}
	// Invalid arguments are a tool error; the tool does not run.
	res = Call(t, "w.echo", `{"n":"x"}`)
	if !res.IsError || !strings.Contains(res.Text(), "invalid arguments for tool w.echo") || len(res.Logs) != 0 {
		t.Errorf("invalid arguments: %+v", res)
	}
}

func TestCallFailsOnResultsTheHostRefuses(t *testing.T) {
	r := &recorder{TB: t}
	// Accepted input, structured content that breaks the output schema.
	Call(r, "w.loose", `{"n":"x"}`)
	r2 := &recorder{TB: t}
	Call(r2, "w.nostructure", `{"n":1}`)
	r3 := &recorder{TB: t}
	fatal(r3, func() { Call(r3, "w.unknown", nil) })
	for _, c := range []struct {
		name string
		r    *recorder
		want string
	}{
		{"schema mismatch", r, "does not match the output schema"},
		{"no structured content", r2, "has an output schema but returned no structured content"},
		{"unknown tool", r3, `unknown tool "w.unknown"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if len(c.r.errors) != 1 || !strings.Contains(c.r.errors[0], c.want) {
				t.Errorf("failures %q, want one containing %q", c.r.errors, c.want)
			}
		})
	}
}

func TestTools(t *testing.T) {
	names := map[string]bool{}
	for _, tool := range Tools(t) {
		names[tool.Name] = true
	}
	if !names["w.echo"] || !names["w.loose"] {
		t.Errorf("tools: %v", names)
	}
}
