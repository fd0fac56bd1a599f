package wasmcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/guest"
	"github.com/wasmcp/wasmcp/sdk-guest/go/wasmcptest"
)

type greetIn struct {
	Name  string `json:"name" description:"Who to greet." jsonschema:"minLength=1"`
	Times int    `json:"times,omitempty" jsonschema:"minimum=1,maximum=3,default=1"`
}

type greetOut struct {
	Greeting string   `json:"greeting"`
	Parts    []string `json:"parts"`
}

func init() {
	AddTool("t.text", "Greets as text.", func(in greetIn) (string, error) {
		return strings.Repeat("hello "+in.Name+" ", max(in.Times, 1)), nil
	}, Title("Greeter"), ReadOnly(), Idempotent(), Destructive(false), OpenWorld(false), Meta(map[string]any{"k": "v"}))

	AddTool("t.structured", "Greets with structure.", func(in greetIn) (*greetOut, error) {
		if in.Name == "nobody" {
			return nil, nil
		}
		var parts []string // nil: encoded as null, which the output schema allows
		if in.Times > 1 {
			parts = []string{"hello", in.Name}
		}
		return &greetOut{Greeting: "hello " + in.Name, Parts: parts}, nil
	})

	AddTool("t.result", "Returns hand-built results.", func(in struct {
		Kind string `json:"kind" jsonschema:"enum=blocks|error|errorf|structured|raw|badraw|nil"`
	}) (*Result, error) {
		switch in.Kind {
		case "blocks":
			link := ResourceLink("file:///a.txt", "a.txt")
			link.MimeType = "text/plain"
			return NewResult(Text("t"), Image([]byte{1, 2}, "image/png"), Audio([]byte{3}, "audio/wav"), link,
				EmbeddedText("mem://x", "text/plain", "body"), EmbeddedBlob("mem://y", "", []byte("\xff"))), nil
		case "error":
			return Error("bad input"), nil
		case "errorf":
			return Errorf("bad %d", 42), nil
		case "structured":
			r := Structured(map[string]int{"n": 1})
			r.Content = []Content{Text("one")}
			return r, nil
		case "raw":
			return Structured(json.RawMessage(`{"raw":true}`)), nil
		case "badraw":
			return Structured(json.RawMessage(`{"raw":`)), nil
		}
		return nil, nil
	})

	AddTool("t.declared", "Declares its output schema by hand.", func(in struct{}) (*Result, error) {
		return Structured(map[string]string{"unit": "m"}), nil
	}, OutputSchema(`{"type":"object","properties":{"unit":{"enum":["m","s"]}},"required":["unit"]}`))

	AddTool("t.fail", "Fails.", func(in struct{}) (string, error) {
		Logf(LevelError, "failing with %d", 7)
		return "", errors.New("it broke")
	})

	AddTool("t.panic", "Panics.", func(in struct{}) (string, error) {
		var m map[string]int
		m["x"] = 1 // nil map write
		return "", nil
	})

	AddTool("t.log", "Logs.", func(in struct{}) (string, error) {
		Debug("d")
		Info("i")
		Warn("w")
		Log(LevelCritical, "c")
		return "logged", nil
	})

	AddTool("t.of", "Text plus typed structured content.", func(in struct{}) (*Result, error) {
		r := Structured(greetOut{Greeting: "hi", Parts: []string{}})
		r.Content = []Content{Text("hi!")}
		return r, nil
	}, OutputSchemaOf[greetOut]())

	// An explicit input schema that is looser than the Go type, to reach the
	// decoding error the host's validation normally prevents.
	AddTool("t.loose", "Loose.", func(in struct {
		N int `json:"n"`
	}) (map[string]int, error) {
		return map[string]int{"n": in.N}, nil
	}, InputSchema(`{"type":"object"}`))
}

func TestToolDefinitions(t *testing.T) {
	tools := map[string]abi.Tool{}
	for _, tool := range wasmcptest.Tools(t) {
		tools[tool.Name] = tool
	}
	text := tools["t.text"]
	if text.Title != "Greeter" || text.Description != "Greets as text." || text.OutputSchema != nil || text.Meta["k"] != "v" {
		t.Errorf("t.text definition: %+v", text)
	}
	a := text.Annotations
	if a == nil || !*a.ReadOnlyHint || !*a.IdempotentHint || *a.DestructiveHint || *a.OpenWorldHint {
		t.Errorf("t.text annotations: %+v", a)
	}
	wantIn := `{"type":"object","properties":{"name":{"type":"string","description":"Who to greet.","minLength":1},"times":{"type":"integer","default":1,"minimum":1,"maximum":3}},"required":["name"],"additionalProperties":false}`
	if string(text.InputSchema) != wantIn {
		t.Errorf("t.text input schema:\n got %s\nwant %s", text.InputSchema, wantIn)
	}
	wantOut := `{"type":"object","properties":{"greeting":{"type":"string"},"parts":{"type":["array","null"],"items":{"type":"string"}}},"required":["greeting","parts"],"additionalProperties":false}`
	if got := string(tools["t.structured"].OutputSchema); got != wantOut {
		t.Errorf("t.structured output schema:\n got %s\nwant %s", got, wantOut)
	}
	if got := string(tools["t.fail"].InputSchema); got != `{"type":"object","additionalProperties":false}` {
		t.Errorf("no-parameter input schema: %s", got)
	}
	if got := string(tools["t.of"].OutputSchema); got != wantOut {
		t.Errorf("OutputSchemaOf:\n got %s\nwant %s", got, wantOut)
	}
	if tools["t.fail"].Annotations != nil {
		t.Errorf("annotations without options: %+v", tools["t.fail"].Annotations)
	}
	if got := string(tools["t.loose"].OutputSchema); got != `{"type":"object","additionalProperties":{"type":"integer"}}` {
		t.Errorf("map output schema: %s", got)
	}
}

func TestTextAndStructuredResults(t *testing.T) {
	if r := wasmcptest.Call(t, "t.text", map[string]any{"name": "ann", "times": 2}); r.IsError || r.Text() != "hello ann hello ann " {
		t.Errorf("t.text: %+v", r)
	}
	var out greetOut
	r := wasmcptest.Call(t, "t.structured", `{"name":"bo","times":2}`)
	r.Decode(t, &out)
	if out.Greeting != "hello bo" || len(out.Parts) != 2 || len(r.Content) != 0 {
		t.Errorf("t.structured: %+v, content %v", out, r.Content)
	}
	// A nil slice is null, which the derived output schema allows.
	if r := wasmcptest.Call(t, "t.structured", `{"name":"bo"}`); string(r.StructuredContent) != `{"greeting":"hello bo","parts":null}` {
		t.Errorf("nil slice: %s", r.StructuredContent)
	}
	if r := wasmcptest.Call(t, "t.structured", `{"name":"nobody"}`); !r.IsError || r.Text() != "the tool returned no result" {
		t.Errorf("nil pointer result: %+v", r)
	}
}

func TestHandBuiltResults(t *testing.T) {
	r := wasmcptest.Call(t, "t.result", `{"kind":"blocks"}`)
	b, _ := json.Marshal(r.Content)
	want := `[{"type":"text","text":"t"},{"type":"image","data":"AQI=","mimeType":"image/png"},` +
		`{"type":"audio","data":"Aw==","mimeType":"audio/wav"},{"type":"resource_link","uri":"file:///a.txt","name":"a.txt","mimeType":"text/plain"},` +
		`{"type":"resource","resource":{"uri":"mem://x","mimeType":"text/plain","text":"body"}},{"type":"resource","resource":{"uri":"mem://y","blob":"/w=="}}]`
	if string(b) != want {
		t.Errorf("blocks:\n got %s\nwant %s", b, want)
	}
	for kind, text := range map[string]string{"error": "bad input", "errorf": "bad 42", "badraw": "structured content is not valid JSON", "nil": "tool t.result returned no result"} {
		t.Run(kind, func(t *testing.T) {
			if r := wasmcptest.Call(t, "t.result", map[string]string{"kind": kind}); !r.IsError || r.Text() != text {
				t.Errorf("%s: %+v, want error %q", kind, r.Result, text)
			}
		})
	}
	r = wasmcptest.Call(t, "t.result", `{"kind":"structured"}`)
	if string(r.StructuredContent) != `{"n":1}` || r.Text() != "one" {
		t.Errorf("structured: %s %q", r.StructuredContent, r.Text())
	}
	if r := wasmcptest.Call(t, "t.result", `{"kind":"raw"}`); string(r.StructuredContent) != `{"raw":true}` {
		t.Errorf("raw: %s", r.StructuredContent)
	}
	if r := wasmcptest.Call(t, "t.of", nil); r.Text() != "hi!" || string(r.StructuredContent) != `{"greeting":"hi","parts":[]}` {
		t.Errorf("t.of: %q %s", r.Text(), r.StructuredContent)
	}
	// wasmcptest validated the structured content against the declared schema.
	if r := wasmcptest.Call(t, "t.declared", nil); string(r.StructuredContent) != `{"unit":"m"}` {
		t.Errorf("declared: %s", r.StructuredContent)
	}
}

func TestErrorsPanicsAndLogs(t *testing.T) {
	r := wasmcptest.Call(t, "t.fail", nil)
	if !r.IsError || r.Text() != "it broke" {
		t.Errorf("t.fail: %+v", r)
	}
	if len(r.Logs) != 1 || r.Logs[0] != (wasmcptest.Log{Level: LevelError, Message: "failing with 7"}) {
		t.Errorf("t.fail logs: %+v", r.Logs)
	}
	r = wasmcptest.Call(t, "t.panic", nil)
	if !r.IsError || !strings.Contains(r.Text(), "tool t.panic panicked: assignment to entry in nil map") {
		t.Errorf("t.panic: %+v", r)
	}
	r = wasmcptest.Call(t, "t.log", nil)
	want := []wasmcptest.Log{{Level: LevelDebug, Message: "d"}, {Level: LevelInfo, Message: "i"}, {Level: LevelWarning, Message: "w"}, {Level: LevelCritical, Message: "c"}}
	if r.Text() != "logged" || len(r.Logs) != len(want) {
		t.Fatalf("t.log: %+v", r)
	}
	for i := range want {
		if r.Logs[i] != want[i] {
			t.Errorf("log %d: %+v, want %+v", i, r.Logs[i], want[i])
		}
	}
}

func TestInvalidArguments(t *testing.T) {
	// Rejected by the input schema, as the host does, before the tool runs.
	r := wasmcptest.Call(t, "t.text", `{"name":""}`)
	if !r.IsError || !strings.Contains(r.Text(), "minLength") {
		t.Errorf("schema violation: %+v", r)
	}
	r = wasmcptest.Call(t, "t.text", `{"name":"a","extra":1}`)
	if !r.IsError || !strings.Contains(r.Text(), "extra") {
		t.Errorf("additional property: %+v", r)
	}
	// Accepted by a loose schema but not decodable into the Go type.
	r = wasmcptest.Call(t, "t.loose", `{"n":"seven"}`)
	if !r.IsError || !strings.Contains(r.Text(), "invalid arguments for tool t.loose") {
		t.Errorf("decode error: %+v", r)
	}
}

// TestUseNumber checks that UseNumber keeps the exact text of numbers that
// land in interface values, which float64 would round.
func TestUseNumber(t *testing.T) {
	type exact struct {
		V    any            `json:"v"`
		Vars map[string]any `json:"vars,omitempty"`
		N    int            `json:"n,omitempty"`
	}
	echo := func(in exact) (exact, error) { return in, nil }
	AddTool("t.number", "", echo, UseNumber())
	AddTool("t.float", "", echo)
	const args = `{"v":[12345678901234567890,0.1],"vars":{"x":1e400},"n":7}`
	if r := wasmcptest.Call(t, "t.number", args); r.IsError || string(r.StructuredContent) != args {
		t.Errorf("with UseNumber: %+v, want the arguments unchanged", r)
	}
	r := wasmcptest.Call(t, "t.float", `{"v":[12345678901234567890]}`)
	if r.IsError || !strings.Contains(string(r.StructuredContent), "12345678901234567000") {
		t.Errorf("without UseNumber: %+v, want the float64 rounding", r)
	}
}

// TestDecodeArgsRestoresCollector checks that decoding large arguments,
// which runs with the collector off, leaves its setting as it was, whether
// the arguments decode or not.
func TestDecodeArgsRestoresCollector(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	big := `{"s":"` + strings.Repeat("x", quietDecode) + `"}`
	for _, tc := range []struct{ name, doc string }{{"whole", big}, {"cut", big[:len(big)-1]}} {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.doc
			for _, useNumber := range []bool{false, true} {
				t.Run(fmt.Sprintf("useNumber=%v", useNumber), func(t *testing.T) {
					var v map[string]any
					err := decodeArgs([]byte(doc), &v, useNumber)
					if (err == nil) != (doc == big) {
						t.Errorf("decoding %d bytes, useNumber %v: error %v", len(doc), useNumber, err)
					}
					if prev := debug.SetGCPercent(123); prev != 123 {
						t.Fatalf("after decoding, GC percent %d, want 123", prev)
					}
				})
			}
		})
	}
}

func TestAddToolRefuses(t *testing.T) {
	noop := func(struct{}) (string, error) { return "", nil }
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"bad name", addTool("a b", "", noop, nil), "must be 1 to 128 characters"},
		{"duplicate", addTool("t.text", "", noop, nil), "registered twice"},
		{"nil handler", addTool[struct{}, string]("t.nil", "", nil, nil), "nil handler"},
		{"input not object", addTool("t.in", "", func([]int) (string, error) { return "", nil }, nil), "arguments: []int: a tool's arguments"},
		{"output not object", addTool("t.out", "", func(struct{}) ([]int, error) { return nil, nil }, nil), "result: []int"},
		{"bad tag", addTool("t.tag", "", func(struct {
			A int `jsonschema:"maxLength=2"`
		}) (string, error) {
			return "", nil
		}, nil), "maxLength applies to string values"},
		{"invalid schema option", addTool("t.schema", "", noop, []ToolOption{InputSchema(`{`)}), "InputSchema: not valid JSON"},
		{"OutputSchemaOf non-object", addTool("t.ofbad", "", noop, []ToolOption{OutputSchemaOf[[]int]()}), "OutputSchemaOf: []int"},
		{"string with output schema", addTool("t.strout", "", noop, []ToolOption{OutputSchema(`{}`)}), "OutputSchema needs a structured result type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
				t.Errorf("%s: %v, want %q", tt.name, tt.err, tt.want)
			}
		})
	}
}

func TestAddToolPanicsAndLogs(t *testing.T) {
	var logged string
	saved := guest.LogSink
	guest.LogSink = func(level abi.LogLevel, msg string) {
		if level == LevelCritical {
			logged = msg
		}
	}
	defer func() { guest.LogSink = saved }()
	defer func() {
		v := recover()
		msg, _ := v.(string)
		if !strings.Contains(msg, `wasmcp.AddTool: tool "t.text" is registered twice`) || logged != msg {
			t.Errorf("panic %v, logged %q", v, logged)
		}
	}()
	AddTool("t.text", "", func(struct{}) (string, error) { return "", nil })
}
