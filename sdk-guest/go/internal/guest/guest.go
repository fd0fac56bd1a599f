// Package guest holds the state of one guest instance that the public SDK
// package and its test helper share: the registered tools, resources,
// templates and prompts, the dispatchers that turn an export's input into
// its document, and the sink that log lines go to. It knows nothing of
// WebAssembly, so it runs and is tested natively; the wasip1 glue in the SDK
// package only moves bytes.
package guest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"unicode/utf8"

	"github.com/wasmcp/wasmcp/abi"
)

// Handler runs one tool on its arguments JSON and returns its result. The
// SDK's typed layer turns a Go error into a result with IsError set. Call
// checks that the result's StructuredContent, when set, starts as a JSON
// object; the handler makes sure that it is valid JSON, which Call copies
// into the result document unchecked.
type Handler func(args []byte) *abi.Result

type tool struct {
	def     abi.Tool
	handler Handler
}

var (
	tools    []tool
	index    = map[string]int{}
	describe []byte // cached Describe document; reset by Register
)

// Register adds a tool. It refuses an invalid or duplicate name, too many
// tools and an input schema that is not a JSON object of type "object", so
// that a module the host would refuse fails where the author can see why.
func Register(def abi.Tool, h Handler) error {
	if !abi.ValidToolName(def.Name) {
		return fmt.Errorf("tool name %q must be 1 to %d characters of [A-Za-z0-9_.-]", def.Name, abi.MaxToolNameLen)
	}
	if _, dup := index[def.Name]; dup {
		return fmt.Errorf("tool %q is registered twice", def.Name)
	}
	if len(tools) == abi.MaxTools {
		return fmt.Errorf("tool %q: a module defines at most %d tools", def.Name, abi.MaxTools)
	}
	if err := checkObjectSchema(def.InputSchema, true); err != nil {
		return fmt.Errorf("tool %q: input schema: %w", def.Name, err)
	}
	if def.OutputSchema != nil {
		if err := checkObjectSchema(def.OutputSchema, false); err != nil {
			return fmt.Errorf("tool %q: output schema: %w", def.Name, err)
		}
	}
	index[def.Name] = len(tools)
	tools = append(tools, tool{def: def, handler: h})
	describe = nil
	return nil
}

// checkObjectSchema checks that raw is a JSON object and, for input
// schemas, that its type is "object" as MCP requires.
func checkObjectSchema(raw json.RawMessage, needObjectType bool) error {
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil || s == nil {
		return fmt.Errorf("not a JSON object: %s", raw)
	}
	if needObjectType && s["type"] != "object" {
		return fmt.Errorf(`its "type" must be "object", got %v`, s["type"])
	}
	return nil
}

// Describe returns the Describe document listing every registered tool in
// registration order. The document is built once and cached; callers must
// not modify it.
func Describe() ([]byte, error) {
	if describe != nil {
		return describe, nil
	}
	doc := abi.Describe{Tools: make([]abi.Tool, len(tools)), Permissions: permissions}
	for i, t := range tools {
		doc.Tools[i] = t.def
	}
	for _, r := range resources {
		doc.Resources = append(doc.Resources, r.def)
	}
	for _, t := range templates {
		doc.ResourceTemplates = append(doc.ResourceTemplates, t.def)
	}
	for _, p := range prompts {
		doc.Prompts = append(doc.Prompts, p.def)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode the definitions: %w", err)
	}
	if len(b) > abi.MaxDescribeSize {
		return nil, fmt.Errorf("the definitions take %d bytes, over the limit of %d", len(b), abi.MaxDescribeSize)
	}
	describe = b
	return b, nil
}

// Call runs the named tool and returns its Result document. It always
// returns a document: an unknown tool, a handler panic, an invalid content
// block or an unencodable result becomes a result with isError set, so the
// instance stays usable and the model reads what went wrong.
func Call(name string, args []byte) []byte {
	res := run(name, args)
	if err := check(res); err != nil {
		res = ErrorResult(fmt.Sprintf("tool %s returned an invalid result: %v", name, err))
	}
	doc, err := encode(res)
	if err != nil {
		doc, _ = json.Marshal(ErrorResult(fmt.Sprintf("tool %s: encode result: %v", name, err)))
	}
	return doc
}

// encode is json.Marshal of res, except that the structured content is
// copied in as it is rather than checked and compacted again: the SDK made
// it with json.Marshal or checked it with json.Valid, and in WebAssembly
// another pass over a large result costs as much as encoding it.
func encode(res *abi.Result) ([]byte, error) {
	sc := res.StructuredContent
	if sc == nil {
		return json.Marshal(res)
	}
	rest := *res
	rest.StructuredContent = nil
	doc, err := json.Marshal(&rest)
	if err != nil {
		return nil, err
	}
	const member = `,"structuredContent":`
	out := make([]byte, 0, len(doc)+len(member)+len(sc))
	out = append(out, doc[:len(doc)-1]...) // without the closing brace
	out = append(out, member...)
	out = append(out, sc...)
	return append(out, '}'), nil
}

func run(name string, args []byte) (res *abi.Result) {
	i, ok := index[name]
	if !ok {
		return ErrorResult(fmt.Sprintf("unknown tool %q", name))
	}
	defer func() {
		if v := recover(); v != nil {
			res = ErrorResult(panicked("tool "+name, v))
		}
	}()
	if len(args) == 0 {
		args = []byte("{}")
	}
	res = tools[i].handler(args)
	if res == nil {
		return ErrorResult(fmt.Sprintf("tool %s returned no result", name))
	}
	return res
}

// check reports the first way res breaks ABI.md's rules for a Result, which
// would otherwise make the host discard this instance.
func check(res *abi.Result) error {
	if res.Content == nil {
		res.Content = []abi.Content{} // "content": [] rather than null
	}
	for i := range res.Content {
		if err := res.Content[i].Validate(); err != nil {
			return fmt.Errorf("content block %d: %w", i, err)
		}
	}
	// Only the first byte is checked: encoding the result validates the rest.
	if sc := bytes.TrimLeft(res.StructuredContent, " \t\r\n"); res.StructuredContent != nil && (len(sc) == 0 || sc[0] != '{') {
		return errors.New("structured content must be a JSON object")
	}
	return nil
}

// panicked logs a recovered panic of what with its stack, so that the
// author can find it, and returns the message for the client.
func panicked(what string, v any) string {
	msg := fmt.Sprintf("%s panicked: %v", what, v)
	stack := make([]byte, 8<<10)
	stack = stack[:runtime.Stack(stack, false)]
	Log(abi.LogError, msg+"\n"+string(stack))
	return msg
}

// ErrorResult is a tool error: isError with one text block saying why.
func ErrorResult(msg string) *abi.Result {
	return &abi.Result{Content: []abi.Content{abi.Text(msg)}, IsError: true}
}

// LogSink receives every log line. The wasip1 glue points it at the host's
// log import; natively it writes to standard error; test helpers swap it to
// capture lines. It is not safe to swap concurrently with calls.
var LogSink func(level abi.LogLevel, msg string)

// Log sends one line to LogSink, truncated to abi.MaxLogSize bytes on a
// UTF-8 boundary (the host would truncate anyway; cutting here avoids
// copying what it would drop).
func Log(level abi.LogLevel, msg string) {
	if LogSink == nil {
		return
	}
	if len(msg) > abi.MaxLogSize {
		n := abi.MaxLogSize
		for n > 0 && !utf8.RuneStart(msg[n]) {
			n-- // do not split a character
		}
		msg = msg[:n]
	}
	LogSink(level, msg)
}

// Client is how the SDK reaches the client features of ABI.md section 5. The
// wasip1 glue points it at the host's imports; natively (go test) it is nil
// and the features behave as for a call without a client; test helpers may
// swap it. It is not safe to swap concurrently with calls.
var Client ClientFeatures

// ClientFeatures are the host functions of the client features.
type ClientFeatures interface {
	Progress(progress, total float64, msg string)
	Cancelled() bool
	// Request sends a sampling (elicit false) or elicitation request with
	// params and returns the status and the reply.
	Request(elicit bool, params []byte) (abi.ReplyStatus, []byte)
}
