// Package wasmcptest calls the tools, resources, prompts and completions a
// Go guest registered with package wasmcp natively, from go test, through
// the same JSON path a module uses: the arguments are JSON text, the result
// is the document the module would hand the host.
//
// It also checks what the host would check. Arguments that break the tool's
// input schema give an isError result, as the host gives the model, without
// calling the tool; a prompt's missing or unknown arguments, and a URI with
// a dot segment, give the error the client would get, without calling the
// guest. A document the host would refuse (an invalid content block,
// structured content missing or not matching the output schema, a read
// without contents, an invalid prompt message) and definitions the host
// would refuse (a schema that does not compile, a tool naming a view that
// the module does not list) fail the test. Schemas are compiled with the
// same validator the host uses. What the test sees is the guest's own
// document: the host's completion (mirroring structured content as text) is
// not applied.
//
// Calls are serialised, as in one module instance, so tests may run in
// parallel.
package wasmcptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/guest"
)

// Result is a tool's result as the module returned it, with the lines the
// tool logged during the call.
type Result struct {
	abi.Result
	Logs []Log
}

// Log is one line a tool logged.
type Log struct {
	Level   abi.LogLevel
	Message string
}

// Text returns the text of the result's text blocks, joined by newlines.
func (r *Result) Text() string {
	var texts []string
	for _, c := range r.Content {
		if c.Type == abi.ContentText {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// Decode unmarshals the result's structured content into v, failing t when
// there is none or it does not fit v.
func (r *Result) Decode(t testing.TB, v any) {
	t.Helper()
	if r.StructuredContent == nil {
		t.Fatalf("result has no structured content: %s", r.Text())
	}
	if err := json.Unmarshal(r.StructuredContent, v); err != nil {
		t.Fatalf("decode structured content %s: %v", r.StructuredContent, err)
	}
}

var (
	mu      sync.Mutex
	schemas = map[string]*toolSchemas{} // by tool name, compiled once
)

type toolSchemas struct {
	input, output *jsonschema.Schema
}

// Tools returns every registered tool, decoded from the module's Describe
// document, and fails t if the host would refuse the document.
func Tools(t testing.TB) []abi.Tool {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	return tools(t)
}

func tools(t testing.TB) []abi.Tool {
	t.Helper()
	d := describe(t)
	for _, tool := range d.Tools {
		if _, ok := schemas[tool.Name]; ok {
			continue
		}
		s := &toolSchemas{input: compile(t, tool.Name, "input", tool.InputSchema)}
		if tool.OutputSchema != nil {
			s.output = compile(t, tool.Name, "output", tool.OutputSchema)
		}
		schemas[tool.Name] = s
	}
	return d.Tools
}

func compile(t testing.TB, tool, which string, raw json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("tool %s: %s schema: %v", tool, which, err)
	}
	url := fmt.Sprintf("wasmcp:///%s/%s.json", tool, which)
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		t.Fatalf("tool %s: %s schema: %v", tool, which, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("tool %s: %s schema does not compile: %v", tool, which, err)
	}
	return s
}

// Call calls the named tool with args. args is JSON text when it is a
// string, []byte or json.RawMessage; nil means no arguments ({}); any other
// value is encoded with encoding/json.
//
// Arguments that break the input schema give an isError result naming the
// violation, without calling the tool. An unknown tool fails t.
func Call(t testing.TB, name string, args any) *Result {
	t.Helper()
	raw := encodeArgs(t, args)
	mu.Lock()
	defer mu.Unlock()
	tools(t)
	s, ok := schemas[name]
	if !ok {
		t.Fatalf("unknown tool %q", name)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("tool %s: arguments %s: %v", name, raw, err)
	}
	if err := s.input.Validate(inst); err != nil {
		return &Result{Result: *guest.ErrorResult(fmt.Sprintf("invalid arguments for tool %s: %v", name, err))}
	}

	res := &Result{}
	var doc []byte
	doc, res.Logs = capture(func() []byte { return guest.Call(name, raw) })
	if err := json.Unmarshal(doc, &res.Result); err != nil {
		t.Fatalf("tool %s: result document %s: %v", name, doc, err)
	}
	checkResult(t, name, s, res)
	return res
}

// capture runs f with the guest's log lines captured.
func capture(f func() []byte) ([]byte, []Log) {
	var logs []Log
	saved := guest.LogSink
	guest.LogSink = func(level abi.LogLevel, msg string) { logs = append(logs, Log{level, msg}) }
	defer func() { guest.LogSink = saved }()
	return f(), logs
}

func encodeArgs(t testing.TB, args any) []byte {
	t.Helper()
	switch a := args.(type) {
	case nil:
		return []byte("{}")
	case string:
		return []byte(a)
	case []byte:
		return a
	case json.RawMessage:
		return a
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatalf("encode arguments: %v", err)
	}
	return raw
}

// checkResult fails t where the host would refuse res.
func checkResult(t testing.TB, name string, s *toolSchemas, res *Result) {
	t.Helper()
	for i := range res.Content {
		if err := res.Content[i].Validate(); err != nil {
			t.Errorf("tool %s: content block %d: %v", name, i, err)
		}
	}
	if res.IsError || s.output == nil {
		return
	}
	if res.StructuredContent == nil {
		t.Errorf("tool %s has an output schema but returned no structured content", name)
		return
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(res.StructuredContent))
	if err != nil {
		t.Errorf("tool %s: structured content: %v", name, err)
		return
	}
	if err := s.output.Validate(inst); err != nil {
		t.Errorf("tool %s: structured content %s does not match the output schema: %v", name, res.StructuredContent, err)
	}
}
