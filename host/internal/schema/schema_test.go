package schema_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/wasmcp/wasmcp/host/internal/schema"
)

func mustCompile(t *testing.T, raw string) *schema.Schema {
	t.Helper()
	s, err := schema.Compile(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("Compile(%s): %v", raw, err)
	}
	return s
}

func TestValidate(t *testing.T) {
	s := mustCompile(t, `{
		"type": "object",
		"properties": {
			"name": {"type": "string"},
			"count": {"type": "integer", "minimum": 1},
			"tags": {"type": "array", "items": {"type": "string"}}
		},
		"required": ["name"],
		"additionalProperties": false
	}`)
	tests := []struct{ doc, want string }{
		{`{"name":"x"}`, ""},
		{`{"name":"x","count":2,"tags":["a"]}`, ""},
		{`{"name":"x","count":"2"}`, "at /count: got string, want integer"},
		{`{"count":0,"name":"x"}`, "at /count: minimum: got 0, want 1"},
		{`{}`, "at (root): missing property 'name'"},
		{`{"name":"x","extra":1}`, "at (root): additional properties 'extra' not allowed"},
		{`{"name":"x","z":1,"b":2,"m":3}`, "at (root): additional properties 'b', 'm', 'z' not allowed"},
		{`{"name":"x","tags":["a",2]}`, "at /tags/1: got number, want string"},
		{`[]`, "at (root): got array, want object"},
		{`{"name":`, "not valid JSON: unexpected EOF"},
		{`{"name":"x"} {}`, "not valid JSON: invalid character after top-level value"},
		// The validator sees the last "name", a guest's parser may take the
		// first.
		{`{"name":1,"name":"x"}`, `duplicate key "name" at (root)`},
		{`{"name":"x","tags":[{"a":1,"a":2}]}`, `duplicate key "a" at /tags/0`},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			err := s.Validate(json.RawMessage(tt.doc))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Validate(%s) = %q, want %q", tt.doc, got, tt.want)
			}
		})
	}
}

// Nested failures are reported at their own location, and the keywords that
// merely group them (anyOf, $ref) are left out.
func TestValidateNested(t *testing.T) {
	s := mustCompile(t, `{
		"$defs": {"id": {"type": "integer"}},
		"type": "object",
		"properties": {
			"id": {"$ref": "#/$defs/id"},
			"v": {"anyOf": [{"type": "string"}, {"type": "boolean"}]}
		}
	}`)
	err := s.Validate(json.RawMessage(`{"id":"7","v":1}`))
	want := "at /id: got string, want integer; at /v: got number, want boolean; at /v: got number, want string"
	if err == nil || err.Error() != want {
		t.Errorf("Validate = %v, want %q", err, want)
	}
}

func TestValidateManyProblems(t *testing.T) {
	s := mustCompile(t, `{"type":"array","items":{"type":"string"}}`)
	err := s.Validate(json.RawMessage(`[1,2,3,4,5,6,7]`))
	if err == nil {
		t.Fatal("Validate succeeded")
	}
	if got := err.Error(); strings.Count(got, "; at ") != 4 || !strings.HasSuffix(got, "; and 2 more") {
		t.Errorf("Validate = %q, want 5 problems and a count of the rest", got)
	}
}

// Without $schema a schema is 2020-12; with one it follows the draft named.
func TestDialects(t *testing.T) {
	tuple := `["x"]`
	// 2020-12: prefixItems constrains the first element.
	if err := mustCompile(t, `{"type":"array","prefixItems":[{"type":"integer"}]}`).Validate(json.RawMessage(tuple)); err == nil {
		t.Error("2020-12 by default: prefixItems was not applied")
	}
	// Draft 7 does not know prefixItems, but has array-form items.
	draft7 := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","prefixItems":[{"type":"integer"}]}`
	if err := mustCompile(t, draft7).Validate(json.RawMessage(tuple)); err != nil {
		t.Errorf("draft-07 applied prefixItems: %v", err)
	}
	draft7Items := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"integer"}]}`
	err := mustCompile(t, draft7Items).Validate(json.RawMessage(tuple))
	if err == nil || err.Error() != "at /0: got string, want integer" {
		t.Errorf("draft-07 array items: %v", err)
	}
	for i, draft := range []string{
		"http://json-schema.org/draft-07/schema#",
		"http://json-schema.org/draft-07/schema",
		"https://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2020-12/schema",
		"https://json-schema.org/draft/2020-12/schema#",
	} {
		t.Run(fmt.Sprintf("accepted-%d", i), func(t *testing.T) {
			mustCompile(t, fmt.Sprintf(`{"$schema":%q,"type":"object"}`, draft))
		})
	}
	// Drafts the host knows but ajv, the TypeScript SDK's validator, reads
	// as draft-07 (draft-04's boolean exclusiveMaximum makes it throw).
	for i, draft := range []string{
		"http://json-schema.org/draft-04/schema#",
		"http://json-schema.org/draft-06/schema#",
		"https://json-schema.org/draft/2019-09/schema",
		"https://json-schema.org/schema",
	} {
		t.Run(fmt.Sprintf("refused-%d", i), func(t *testing.T) {
			_, err := schema.Compile(json.RawMessage(fmt.Sprintf(`{"$schema":%q,"type":"object"}`, draft)))
			if err == nil || !strings.Contains(err.Error(), "at /$schema: got") {
				t.Errorf("$schema %s: %v, want it refused", draft, err)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"$ref":"https://example.com/s.json"}`, "references to other documents are not allowed (https://example.com/s.json)"},
		{`{"$ref":"other.json"}`, "references to other documents are not allowed (wasmcp:///other.json)"},
		{`{"$ref":"file:///etc/passwd"}`, "references to other documents are not allowed (file:///etc/passwd)"},
		{`{"$schema":"https://example.com/meta","type":"object"}`, "references to other documents are not allowed (https://example.com/meta)"},
		{`{"$id":"https://example.com/a.json","properties":{"b":{"$ref":"b.json"}}}`, "references to other documents are not allowed (https://example.com/b.json)"},
		{`{"type":"nonsense"}`, "schema is not valid against its meta-schema: at /type:"},
		{`{"$ref":"#/$defs/missing"}`, "schema#/$defs/missing"},
		{`{"type":`, "schema is not valid JSON"},
		{`{"type":"object","properties":{"a":{"type":"string","type":"number"}}}`, `schema: duplicate key "type" at /properties/a`},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			_, err := schema.Compile(json.RawMessage(tt.schema))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Compile(%s) = %v, want an error containing %q", tt.schema, err, tt.want)
			}
		})
	}
}

func TestConcurrentValidate(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{"n":{"type":"integer"}}}`)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				doc := fmt.Sprintf(`{"n":%d}`, i*j)
				if err := s.Validate(json.RawMessage(doc)); err != nil {
					t.Errorf("Validate(%s): %v", doc, err)
				}
				if err := s.Validate(json.RawMessage(`{"n":"x"}`)); err == nil {
					t.Error("Validate accepted a string")
				}
			}
		})
	}
	wg.Wait()
}

// Numbers whose exact value would cost the validator seconds are refused,
// in documents and in schemas, naming where they are; ordinary large and
// small numbers are not.
func TestNumberRange(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`)
	for i, doc := range []string{`{"a":[1e400,-1E-400,1e+308,0.5e-3]}`, `{"a":[` + strings.Repeat("9", 1000) + `]}`} {
		t.Run(fmt.Sprintf("in-range-%d", i), func(t *testing.T) {
			if err := s.Validate(json.RawMessage(doc)); err != nil && strings.Contains(err.Error(), "out of range") {
				t.Errorf("Validate(%.40s): %v", doc, err)
			}
		})
	}
	tests := []struct{ doc, want string }{
		{`{"a":[1,1e999999]}`, "at /a/1: number 1e999999 is out of range (exponent beyond ±400)"},
		// The first in document order.
		{`{"b/~":{"c":-2E-401},"z":1e401}`, "at /b~1~0/c: number -2E-401 is out of range (exponent beyond ±400)"},
		{`1e99999999999999999999`, "at (root): number 1e99999999999999999999 is out of range (exponent beyond ±400)"},
		{`[1e` + strings.Repeat("1", 40) + `]`, "at /0: number 1e" + strings.Repeat("1", 30) + "... is out of range"},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("out-of-range-%d", i), func(t *testing.T) {
			err := s.Validate(json.RawMessage(tt.doc))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Validate(%s) = %v, want %q", tt.doc, err, tt.want)
			}
		})
	}
	_, err := schema.Compile(json.RawMessage(`{"type":"object","properties":{"s":{"type":"string","minLength":1e999999}}}`))
	if want := "schema: at /properties/s/minLength: number 1e999999 is out of range"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Compile = %v, want %q", err, want)
	}
}

// The same problem found twice at one location, here through both branches
// of allOf, is reported once.
func TestValidateDeduplicates(t *testing.T) {
	s := mustCompile(t, `{"type":"array","items":{"allOf":[{"type":"string"},{"type":"string"}]}}`)
	err := s.Validate(json.RawMessage(`[1,2]`))
	if want := "at /0: got number, want string; at /1: got number, want string"; err == nil || err.Error() != want {
		t.Errorf("Validate = %v, want %q", err, want)
	}
}

// ObjectType tells an input schema MCP accepts, however the document came
// to be compiled: first, again byte for byte, or spelled otherwise.
func TestObjectType(t *testing.T) {
	tests := []struct {
		raw  string
		want bool
	}{
		{`{"type":"object"}`, true},
		{`{"type":"object"}`, true},       // found by its bytes
		{` { "type" : "object" } `, true}, // found by its canonical form
		{`{"type":"\u006fbject","properties":{"a":{"type":"string"}}}`, true},
		{`{"type":["object"]}`, false},
		{`{"Type":"object"}`, false},
		{`{"type":"string"}`, false},
		{`{"properties":{"type":{"type":"object"}}}`, false},
		{`{}`, false},
		{`true`, false},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if got := mustCompile(t, tt.raw).ObjectType(); got != tt.want {
				t.Errorf("Compile(%s).ObjectType() = %v, want %v", tt.raw, got, tt.want)
			}
		})
	}
}

// An output schema is held to what the official clients check of a
// result: formats, and multipleOf as they compute it.
func TestCompileOutput(t *testing.T) {
	if _, err := schema.CompileOutput(json.RawMessage(`{"type":"object","properties":{"p":{"multipleOf":0.01}}}`)); err == nil ||
		!strings.Contains(err.Error(), "fractional") {
		t.Errorf("fractional multipleOf in an output schema: %v, want refused", err)
	}
	if _, err := schema.Compile(json.RawMessage(`{"type":"object","properties":{"p":{"multipleOf":0.01}}}`)); err != nil {
		t.Errorf("fractional multipleOf in an input schema: %v, want accepted", err)
	}
	out, err := schema.CompileOutput(json.RawMessage(`{"type":"object","properties":{"d":{"type":"string","format":"date-time"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Validate(json.RawMessage(`{"d":"nope"}`)); err == nil {
		t.Error(`output {"d":"nope"} against format date-time: valid, want refused`)
	}
	if err := out.Validate(json.RawMessage(`{"d":"2025-01-12T15:00:58Z"}`)); err != nil {
		t.Errorf("a date-time: %v", err)
	}
}
