package plugin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/plugin"
	"github.com/wasmcp/wasmcp/host/internal/schema"
)

// The fuzz targets of this file feed a plugin what a hostile guest or
// client controls: the describe document, result documents and arguments.
// Their seed corpora are under testdata/fuzz; scripts/fuzz-smoke.sh runs
// each briefly.

// FuzzDefinitions gives random describe documents to the validation Load
// runs. Each is refused with an error that says something, or gives tools
// that keep every rule of ABI.md section 4 and that, marshalled as clients
// see them, make a describe document that validates again.
func FuzzDefinitions(f *testing.F) {
	for _, doc := range []string{
		`{"tools":[]}`,
		`{"tools":[{"name":"echo","title":"Echo","description":"d","inputSchema":{"type":"object"},` +
			`"annotations":{"readOnlyHint":true},"_meta":{"x":1},"future":true}]}`,
		`{"tools":[{"name":"typed","inputSchema":{"type":"object","additionalProperties":false},` +
			`"outputSchema":{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}}]}`,
		`{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"a","inputSchema":{"type":"object"}}]}`,
		`{"tools":[{"name":"bad name","inputSchema":{"type":"object"}}]}`,
		`{"tools":[{"name":"a","inputSchema":{"type":"string"}}]}`,
		`{"tools":[{"name":"a","inputSchema":{"type":["object"]}}]}`,
		`{"tools":[{"name":"a","inputSchema":{"Type":"object"}}]}`,
		`{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"nonsense"}}}}]}`,
		`{"tools":[{"name":"a","inputSchema":{"type":"object","$ref":"https://example.com/s.json"}}]}`,
		`{"tools":[{"name":"a","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}}]}`,
		`{"tools":[{"name":"a","inputSchema":{"type":"object"},"outputSchema":[]}]}`,
		`{"tools":[{"name":"a","inputSchema":null}]}`,
		`{"tools":[{"name":"a"}]}`,
		`{"tools":[null]}`,
		`{"tools":null}`,
		`{"tools":{}}`,
		`{"tools":[{"name":1}]}`,
		`[]`,
		``,
		"{\"tools\":[{\"name\":\"\xff\",\"inputSchema\":{\"type\":\"object\"}}]}",
	} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		p, err := plugin.Define(doc)
		if err != nil {
			if msg := err.Error(); msg == "" || !utf8.ValidString(msg) {
				t.Fatalf("Define(%q): error %q", doc, msg)
			}
			return
		}
		tools := p.Tools()
		checkTools(t, doc, tools)
		out, err := json.Marshal(abi.Describe{Tools: tools})
		if err != nil {
			t.Fatalf("marshal the tools of %q: %v", doc, err)
		}
		again, err := plugin.Define(out)
		if err != nil {
			t.Fatalf("the tools of %q, as clients see them, are refused: %v\n%s", doc, err, out)
		}
		if got := again.Tools(); len(got) != len(tools) {
			t.Fatalf("the tools of %q, as clients see them, are %d tools, not %d", doc, len(got), len(tools))
		}
	})
}

// checkTools checks the rules of ABI.md section 4 on the accepted tools of
// the describe document doc, reading each rule independently of the code
// that enforces it.
func checkTools(t *testing.T, doc []byte, tools []abi.Tool) {
	t.Helper()
	if len(tools) > abi.MaxTools {
		t.Fatalf("%q: %d tools accepted", doc, len(tools))
	}
	var names []string
	for _, tool := range tools {
		if !abi.ValidToolName(tool.Name) || slices.Contains(names, tool.Name) {
			t.Fatalf("%q: tool name %q accepted", doc, tool.Name)
		}
		names = append(names, tool.Name)
		// Exactly the key "type": JSON Schema keywords are case-sensitive,
		// so a schema with "Type" constrains nothing.
		var in map[string]json.RawMessage
		var typ string
		if json.Unmarshal(tool.InputSchema, &in) != nil || json.Unmarshal(in["type"], &typ) != nil || typ != "object" {
			t.Fatalf("%q: tool %s: inputSchema %s accepted", doc, tool.Name, tool.InputSchema)
		}
		if _, err := schema.Compile(tool.InputSchema); err != nil {
			t.Fatalf("%q: tool %s: inputSchema does not compile: %v", doc, tool.Name, err)
		}
		// A null outputSchema is no schema: served as null, the
		// TypeScript SDK's client would refuse the whole list.
		if len(tool.OutputSchema) > 0 {
			if _, err := schema.Compile(tool.OutputSchema); err != nil {
				t.Fatalf("%q: tool %s: outputSchema does not compile: %v", doc, tool.Name, err)
			}
		}
	}
}

// FuzzInputSchema gives random input schemas to the checks Load runs on
// them, which compile first and look closer only at a schema that fails: a
// schema is accepted exactly when it is a JSON object whose "type" (the
// last member of that exact name, as encoding/json reads an object) is
// "object" and it compiles; otherwise the error names the first of those
// problems, as it did when they were checked in that order.
func FuzzInputSchema(f *testing.F) {
	for _, raw := range []string{
		`{"type":"object"}`,
		` { "type" : "\u006fbject" } `,
		`{"type":"object","properties":{"a":{"type":"nonsense"}}}`,
		`{"type":"string","type":"object"}`,
		`{"type":"object","type":"string"}`,
		`{"type":["object"]}`,
		`{"Type":"object"}`,
		`{"type":1.0}`,
		`{"type":"object","maximum":1e999}`,
		`{}`,
		`[]`,
		`true`,
		`"object"`,
	} {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		trimmed := bytes.TrimSpace(raw)
		if !utf8.Valid(raw) || !json.Valid(raw) || string(trimmed) == "null" {
			return // refused before the schema is looked at
		}
		_, err := plugin.Define([]byte(`{"tools":[{"name":"a","inputSchema":` + string(raw) + `}]}`))
		var want string
		var in map[string]json.RawMessage
		var typ any
		if trimmed[0] != '{' || json.Unmarshal(raw, &in) != nil {
			want = "inputSchema: not a JSON object"
		} else if _ = json.Unmarshal(in["type"], &typ); typ != "object" {
			got, _ := json.Marshal(typ)
			want = `inputSchema: must have "type": "object", not ` + string(got)
		} else if _, cerr := schema.Compile(raw); cerr != nil {
			want = "inputSchema: " + cerr.Error()
		}
		switch {
		case want == "" && err != nil:
			t.Fatalf("%s: refused: %v", raw, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Fatalf("%s: error %v, want one containing %q", raw, err, want)
		}
	})
}

// resultTools are the definitions FuzzResult decodes results for: one
// without and one with an outputSchema.
const (
	resultTools = `{"tools":[{"name":"plain","inputSchema":{"type":"object"}},` +
		`{"name":"typed","inputSchema":{"type":"object"},"outputSchema":` + typedOutput + `}]}`
	typedOutput = `{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}`
)

// FuzzResult gives random result documents to the decoding Call runs on a
// guest's result. Whatever the document, the result is complete (ABI.md
// section 4): at least one valid content block and structuredContent a JSON
// object; it marshals to valid JSON; it owns its bytes rather than pointing
// into the guest's memory; and unless it is an error, the document was JSON
// and its structured content matches the tool's outputSchema.
func FuzzResult(f *testing.F) {
	for _, doc := range []string{
		`{"content":[{"type":"text","text":"hello"}],"future":{"x":1},"_meta":{"k":"v"}}`,
		`{"structuredContent":{"n":1}}`,
		`{"structuredContent": { "n" : "one" }}`,
		`{"structuredContent":[1]}`,
		`{"structuredContent":null,"content":[]}`,
		`{"content":[{"type":"text","text":"bad input"}],"isError":true}`,
		`{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"},` +
			`{"type":"resource","resource":{"uri":"file:///a.txt","text":"a"}}],"structuredContent":{"a":1}}`,
		`{"content":[{"type":"resource_link","uri":"file:///a","name":"a","size":-1}]}`,
		`{"content":[{"type":"video","text":"x"}]}`,
		`{"content":[{}]}`,
		`{"content":[`,
		`{"content":null,"isError":null}`,
		`{"isError":"yes"}`,
		`{}`,
		`[1,2]`,
		` `,
		"{\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}",
	} {
		f.Add([]byte(doc), false)
		f.Add([]byte(doc), true)
	}
	p, err := plugin.Define([]byte(resultTools))
	if err != nil {
		f.Fatal(err)
	}
	output, err := schema.Compile(json.RawMessage(typedOutput))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, doc []byte, typed bool) {
		tool := "plain"
		if typed {
			tool = "typed"
		}
		guestMemory := bytes.Clone(doc)
		res := p.ResultOf(context.Background(), tool, guestMemory)
		out := checkComplete(t, doc, res)
		// The instance reuses its memory for the next call.
		for i := range guestMemory {
			guestMemory[i] = '!'
		}
		if again, _ := json.Marshal(res); !bytes.Equal(out, again) {
			t.Fatalf("%s result of %q shares guest memory:\n%s\n%s", tool, doc, out, again)
		}
		if res.IsError {
			return
		}
		if !utf8.Valid(doc) || !json.Valid(doc) {
			t.Fatalf("%s: %q, not UTF-8 JSON, accepted as %s", tool, doc, out)
		}
		if typed {
			if err := output.Validate(res.StructuredContent); err != nil {
				t.Fatalf("typed: %q accepted as %s, against its outputSchema: %v", doc, out, err)
			}
		}
	})
}

// checkComplete checks that res, made from the result document doc, is
// complete and marshals to valid JSON, which it returns, and that a result
// the host failed is an error.
func checkComplete(t *testing.T, doc []byte, res *plugin.Result) []byte {
	t.Helper()
	if res == nil {
		t.Fatalf("%q: nil result", doc)
	}
	if res.Failure != nil && !res.IsError {
		t.Fatalf("%q: failed (%v) without isError", doc, res.Failure)
	}
	if len(res.Content) == 0 {
		t.Fatalf("%q: result without content: %+v", doc, res)
	}
	for i := range res.Content {
		if err := res.Content[i].Validate(); err != nil {
			t.Fatalf("%q: content[%d]: %v", doc, i, err)
		}
	}
	// An error result carries structuredContent only when its tool gave
	// one; a successful result always does (ABI.md section 4).
	if res.StructuredContent != nil || !res.IsError {
		// Numbers beyond float64, such as 1e700, are valid JSON: UseNumber.
		var structured map[string]any
		dec := json.NewDecoder(bytes.NewReader(res.StructuredContent))
		dec.UseNumber()
		if err := dec.Decode(&structured); err != nil || structured == nil || !json.Valid(res.StructuredContent) {
			t.Fatalf("%q: structuredContent %q is not a JSON object", doc, res.StructuredContent)
		}
	}
	out, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("%q: marshal result: %v", doc, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(out, &fields); err != nil {
		t.Fatalf("%q: marshalled result %s is not a JSON object: %v", doc, out, err)
	}
	if c := fields["content"]; !bytes.HasPrefix(c, []byte("[{")) || fields["structuredContent"] == nil && !res.IsError {
		t.Fatalf("%q: marshalled result %s lacks content or structuredContent", doc, out)
	}
	return out
}

// argsMaxInput is the MaxInput of FuzzArguments, small so that the fuzzer
// reaches the limit.
const argsMaxInput = 512

// FuzzArguments calls the tool "check" of testdata/args.wat, which echoes
// its arguments, with random arguments. Call must accept exactly the
// arguments that keep the tool's inputSchema, as validArgs reads it, and
// pass them to the guest unchanged; it must refuse the others with a
// validation message, never a guest failure.
func FuzzArguments(f *testing.F) {
	for _, args := range []string{
		`{"name":"abc"}`,
		`{"name":"abc","count":100,"ratio":0.75,"tags":["a","b"],"mode":"fast","opt":null,"nested":{"flag":true}}`,
		`{"name":"abc","count":1.0,"ratio":1e-2}`,
		`{"name":"abc","count":1e2,"ratio":2.5e0}`,
		`{"name":"abc","count":101}`,
		`{"name":"abc","count":-0}`,
		`{"name":"abc","ratio":0}`,
		`{"name":"abc","tags":["a","a"]}`,
		`{"name":"abc","tags":["a","b","c","d","e"]}`,
		`{"name":"abc","mode":"FAST"}`,
		`{"name":"abc","opt":true,"nested":{"flag":false,"x":1}}`,
		`{"name":"abc","Name":"x"}`,
		`{"name":"ABC"}`,
		`{"name":"abc\n"}`,
		`{"name":"\u0061bc"}`,
		`{"name":""}`,
		`{"name":"abcdefghijklmnopq"}`,
		`{"name":"a","name":"b"}`,
		`{"name":"a"} `,
		`{"name":"a"} {}`,
		`{}`,
		`null`,
		``,
		`[]`,
		`{"name":"` + strings.Repeat("a", argsMaxInput) + `"}`,
		"{\"name\":\"\xff\"}",
	} {
		f.Add([]byte(args))
	}
	opts := testOptions()
	opts.MaxInput = argsMaxInput
	p := load(f, "args", opts)
	f.Fuzz(func(t *testing.T, args []byte) {
		res, err := p.Call(context.Background(), "check", args, nil)
		if err != nil {
			t.Fatalf("Call(%q): %v", args, err)
		}
		out := checkComplete(t, args, res)
		if !validArgs(args) {
			if !res.IsError || !strings.HasPrefix(res.Content[0].Text, "invalid arguments for tool check: ") ||
				!errors.Is(res.Failure, plugin.ErrInvalidArguments) {
				t.Fatalf("Call(%q) = %s, want invalid arguments", args, out)
			}
			return
		}
		if res.IsError {
			t.Fatalf("Call(%q) refused valid arguments: %s", args, out)
		}
		var want bytes.Buffer
		if err := json.Compact(&want, args); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(res.StructuredContent, want.Bytes()) {
			t.Fatalf("Call(%q): the guest received %s", args, res.StructuredContent)
		}
	})
}

var lowercase = regexp.MustCompile(`^[a-z]+$`)

// validArgs reports whether args are accepted by Call with argsMaxInput
// and the inputSchema of testdata/args.wat, whose rules it spells out by
// hand. Absent arguments are {}, which lacks the required "name". Numbers
// with an exponent beyond ±400 and objects that repeat a name are refused
// whatever the schema (package schema).
func validArgs(args []byte) bool {
	if len(args) > argsMaxInput || !utf8.Valid(args) || !json.Valid(args) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || hugeExponent(v) || repeatsName(args) {
		return false
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if _, ok := obj["name"]; !ok {
		return false
	}
	for k, v := range obj {
		var ok bool
		switch k {
		case "name":
			s, isString := v.(string)
			n := utf8.RuneCountInString(s)
			ok = isString && 1 <= n && n <= 16 && lowercase.MatchString(s)
		case "count":
			r, isNumber := rat(v)
			ok = isNumber && r.IsInt() && r.Sign() >= 0 && r.Cmp(big.NewRat(100, 1)) <= 0
		case "ratio":
			r, isNumber := rat(v)
			ok = isNumber && r.Sign() > 0 && new(big.Rat).Quo(r, big.NewRat(1, 4)).IsInt()
		case "tags":
			ok = uniqueStrings(v, 4)
		case "mode":
			ok = v == "fast" || v == "slow"
		case "opt":
			_, isBool := v.(bool)
			ok = v == nil || isBool
		case "nested":
			m, isObject := v.(map[string]any)
			_, isBool := m["flag"].(bool)
			ok = isObject && len(m) == 1 && isBool
		}
		if !ok {
			return false
		}
	}
	return true
}

// hugeExponent reports whether v, decoded with UseNumber, holds a number
// whose exponent is beyond ±400.
func hugeExponent(v any) bool {
	switch v := v.(type) {
	case json.Number:
		_, exp, found := strings.Cut(strings.ToLower(v.String()), "e")
		n, err := strconv.Atoi(exp)
		return found && (err != nil || n < -400 || n > 400)
	case []any:
		return slices.ContainsFunc(v, hugeExponent)
	case map[string]any:
		for _, e := range v {
			if hugeExponent(e) {
				return true
			}
		}
	}
	return false
}

// rat is the exact value of a JSON number decoded with UseNumber.
func rat(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	return new(big.Rat).SetString(n.String())
}

// uniqueStrings reports whether v is an array of at most max distinct strings.
func uniqueStrings(v any, max int) bool {
	arr, ok := v.([]any)
	if !ok || len(arr) > max {
		return false
	}
	seen := map[string]bool{}
	for _, item := range arr {
		s, ok := item.(string)
		if !ok || seen[s] {
			return false
		}
		seen[s] = true
	}
	return true
}
