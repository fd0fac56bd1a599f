package guest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
)

var objectSchema = json.RawMessage(`{"type":"object"}`)

func register(t *testing.T, name string, h Handler) {
	t.Helper()
	if err := Register(abi.Tool{Name: name, InputSchema: objectSchema}, h); err != nil {
		t.Fatalf("Register(%s): %v", name, err)
	}
}

func decode(t *testing.T, doc []byte) abi.Result {
	t.Helper()
	var r abi.Result
	if err := json.Unmarshal(doc, &r); err != nil {
		t.Fatalf("result %s: %v", doc, err)
	}
	return r
}

func TestCallSplicesStructuredContent(t *testing.T) {
	register(t, "guest.structured", func(args []byte) *abi.Result {
		return &abi.Result{StructuredContent: json.RawMessage(args)}
	})
	doc := Call("guest.structured", []byte(`{"a":[1,2]}`))
	if want := `{"content":[],"structuredContent":{"a":[1,2]}}`; string(doc) != want {
		t.Errorf("document %s, want %s", doc, want)
	}
	// Empty arguments reach the tool as {}.
	if doc := Call("guest.structured", nil); !strings.Contains(string(doc), `"structuredContent":{}`) {
		t.Errorf("empty arguments: %s", doc)
	}
}

func TestCallErrors(t *testing.T) {
	register(t, "guest.panic", func([]byte) *abi.Result { panic("boom") })
	register(t, "guest.nil", func([]byte) *abi.Result { return nil })
	register(t, "guest.badblock", func([]byte) *abi.Result {
		return &abi.Result{Content: []abi.Content{{Type: abi.ContentImage}}}
	})
	register(t, "guest.array", func([]byte) *abi.Result {
		return &abi.Result{StructuredContent: json.RawMessage(` [1]`)}
	})
	var logged []string
	saved := LogSink
	LogSink = func(_ abi.LogLevel, msg string) { logged = append(logged, msg) }
	defer func() { LogSink = saved }()

	tests := []struct{ tool, want string }{
		{"guest.none", `unknown tool "guest.none"`},
		{"guest.panic", "tool guest.panic panicked: boom"},
		{"guest.nil", "tool guest.nil returned no result"},
		{"guest.badblock", "content block 0: image content needs data and mimeType"},
		{"guest.array", "structured content must be a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			r := decode(t, Call(tt.tool, []byte(`{}`)))
			if !r.IsError || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, tt.want) {
				t.Errorf("%s: result %+v, want an error containing %q", tt.tool, r, tt.want)
			}
		})
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "panicked: boom") || !strings.Contains(logged[0], "goroutine") {
		t.Errorf("panic log: %q, want the message and a stack", logged)
	}
	// The dispatcher is still usable after a panic.
	register(t, "guest.after", func([]byte) *abi.Result {
		return &abi.Result{Content: []abi.Content{abi.Text("ok")}}
	})
	if r := decode(t, Call("guest.after", nil)); r.IsError || r.Content[0].Text != "ok" {
		t.Errorf("after panic: %+v", r)
	}
}

func TestRegisterRefuses(t *testing.T) {
	register(t, "guest.dup", func([]byte) *abi.Result { return nil })
	tests := []struct {
		def  abi.Tool
		want string
	}{
		{abi.Tool{Name: "bad name", InputSchema: objectSchema}, "must be 1 to 128 characters"},
		{abi.Tool{Name: "", InputSchema: objectSchema}, "must be 1 to 128 characters"},
		{abi.Tool{Name: "guest.dup", InputSchema: objectSchema}, "registered twice"},
		{abi.Tool{Name: "guest.str", InputSchema: json.RawMessage(`{"type":"string"}`)}, `"type" must be "object"`},
		{abi.Tool{Name: "guest.arr", InputSchema: json.RawMessage(`[]`)}, "not a JSON object"},
		{abi.Tool{Name: "guest.out", InputSchema: objectSchema, OutputSchema: json.RawMessage(`true`)}, "output schema: not a JSON object"},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			err := Register(tt.def, func([]byte) *abi.Result { return nil })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Register(%q): %v, want %q", tt.def.Name, err, tt.want)
			}
		})
	}
}

func TestDescribeListsToolsInOrder(t *testing.T) {
	register(t, "guest.describe1", func([]byte) *abi.Result { return nil })
	first, err := Describe()
	if err != nil {
		t.Fatal(err)
	}
	register(t, "guest.describe2", func([]byte) *abi.Result { return nil })
	second, err := Describe()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(first), "guest.describe2") {
		t.Errorf("first document already lists a later tool")
	}
	var d abi.Describe
	if err := json.Unmarshal(second, &d); err != nil {
		t.Fatal(err)
	}
	n := len(d.Tools)
	if n < 2 || d.Tools[n-2].Name != "guest.describe1" || d.Tools[n-1].Name != "guest.describe2" {
		t.Errorf("registration order lost: %s", second)
	}
}

func TestLogTruncatesOnRuneBoundary(t *testing.T) {
	var got string
	saved := LogSink
	LogSink = func(_ abi.LogLevel, msg string) { got = msg }
	defer func() { LogSink = saved }()
	// "é" is two bytes; an odd prefix puts the cut in the middle of one.
	Log(abi.LogInfo, "x"+strings.Repeat("é", abi.MaxLogSize))
	if len(got) != abi.MaxLogSize-1 || !strings.HasSuffix(got, "é") {
		t.Errorf("truncated to %d bytes ending %q, want %d bytes of whole runes", len(got), got[len(got)-4:], abi.MaxLogSize-1)
	}
}

// TestEncodeMatchesMarshal checks that a result document is the value
// json.Marshal gives, whichever members it has.
func TestEncodeMatchesMarshal(t *testing.T) {
	for i, res := range []*abi.Result{
		{Content: []abi.Content{}},
		{Content: []abi.Content{abi.Text("hi")}, StructuredContent: json.RawMessage(`{"a":[1,2]}`)},
		{Content: []abi.Content{abi.Text("no")}, StructuredContent: json.RawMessage(` {"why": "x"}`), IsError: true,
			Meta: map[string]any{"k": "v"}},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			doc, err := encode(res)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(res)
			var got, wantV any
			if err := json.Unmarshal(doc, &got); err != nil {
				t.Fatalf("%s: %v", doc, err)
			}
			_ = json.Unmarshal(want, &wantV)
			if !reflect.DeepEqual(got, wantV) {
				t.Errorf("encode gives %s, json.Marshal %s", doc, want)
			}
		})
	}
}
