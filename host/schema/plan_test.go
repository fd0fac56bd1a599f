package schema

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// mustPlan compiles raw, which must get a plan.
func mustPlan(t *testing.T, raw string) *Schema {
	t.Helper()
	s, err := Compile(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("Compile(%s): %v", raw, err)
	}
	if s.plan == nil {
		t.Fatalf("%s: no plan", raw)
	}
	return s
}

// checkBoth checks that the plan and jsonschema both say valid is whether
// doc is valid against s.
func checkBoth(t *testing.T, raw string, s *Schema, doc string, valid bool) {
	t.Helper()
	v, err := decode([]byte(doc))
	if err != nil {
		t.Fatalf("decode %s: %v", doc, err)
	}
	if got := s.compiled.Validate(v) == nil; got != valid {
		t.Errorf("schema %s, document %s: jsonschema says valid %v, the test %v", raw, doc, got, valid)
	}
	if got := s.plan.valid(v); got != valid {
		t.Errorf("schema %s, document %s: plan says valid %v, want %v", raw, doc, got, valid)
	}
}

// The cases where a plan could most easily part from jsonschema.
func TestPlanCases(t *testing.T) {
	tests := []struct {
		schema         string
		valid, invalid []string
	}{
		// Integers as jsonschema has them: any number whose value is one.
		{`{"type":"integer"}`,
			[]string{`1`, `-0`, `1.0`, `1e2`, `1.5e1`, `0.1e1`, `-10E-1`, `123456789012345678901234567890`, `1e400`, `9223372036854775808`},
			[]string{`1.5`, `1e-1`, `1e-400`, `"1"`, `true`, `null`}},
		{`{"type":["integer","null"]}`, []string{`null`, `2`}, []string{`2.5`, `"x"`, `[]`}},
		{`{"type":["number","string"]}`, []string{`2.5`, `"x"`}, []string{`null`, `{}`}},
		{`{"type":"null"}`, []string{`null`}, []string{`0`, `false`, `""`}},
		// Bounds compared exactly, past float64 and int64.
		{`{"minimum":9007199254740993}`, []string{`9007199254740993`, `9007199254740993.0`, `1e16`}, []string{`9007199254740992`, `9007199254740992.999`}},
		{`{"maximum":9223372036854775807}`, []string{`9223372036854775807`, `-9223372036854775809`}, []string{`9223372036854775808`, `9223372036854775807.5`}},
		{`{"exclusiveMinimum":0}`, []string{`1e-400`, `0.0000001`}, []string{`0`, `-0`, `0.0`, `-1e-400`}},
		{`{"exclusiveMaximum":1.5,"minimum":-1.5}`, []string{`1.4999999999999999999`, `-1.5`, `-15e-1`}, []string{`1.5`, `15e-1`, `-1.5000000000000000001`}},
		{`{"maximum":0.1}`, []string{`0.1`, `1e-1`}, []string{`0.30000000000000004`, `0.1000000000000000000001`}},
		// Lengths in code points.
		{`{"maxLength":2}`, []string{`"日本"`, `"😀😀"`, `"ab"`, `"\u00e9\u00e9"`, `3`}, []string{`"日本語"`, `"abc"`}},
		{`{"minLength":2}`, []string{`"é!"`}, []string{`"é"`, `"😀"`, `""`}},
		// minLength 1.0 is an integer too.
		{`{"minLength":1.0,"maxLength":2e0}`, []string{`"a"`, `"ab"`}, []string{`""`, `"abc"`}},
		{`{"pattern":"^[a-z]+$"}`, []string{`"abc"`, `1`}, []string{`"abC"`, `""`}},
		// Enums and consts of scalars, numbers compared by value.
		{`{"enum":["a",1,null,true]}`, []string{`"a"`, `1.0`, `1e0`, `null`, `true`}, []string{`"b"`, `false`, `2`, `[1]`, `{}`, `"1"`}},
		{`{"const":0}`, []string{`0`, `-0`, `0e10`}, []string{`false`, `"0"`, `1e-400`}},
		{`{"enum":[]}`, nil, []string{`1`, `"a"`, `null`}},
		{`{"const":false,"enum":[false,true]}`, []string{`false`}, []string{`true`, `0`}},
		{`{"enum":[9223372036854775808,0.5]}`, []string{`9223372036854775808`, `5e-1`}, []string{`9223372036854775807`, `0.6`}},
		// Objects.
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
			[]string{`{"a":""}`},
			[]string{`{}`, `{"a":"","b":1}`, `{"b":1}`, `{"a":1}`, `[]`}},
		{`{"required":["a"]}`, []string{`{"a":null}`, `[]`, `"a"`}, []string{`{"b":1}`}},
		{`{"properties":{"a":false,"b":true},"additionalProperties":{"type":"integer"}}`,
			[]string{`{"b":[1]}`, `{"c":1}`, `{}`},
			[]string{`{"a":1}`, `{"c":1.5}`}},
		{`{"minProperties":1,"maxProperties":2}`, []string{`{"a":1}`, `{"a":1,"b":2}`, `[]`}, []string{`{}`, `{"a":1,"b":2,"c":3}`}},
		// Arrays and nesting.
		{`{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]},"minItems":1,"maxItems":2}`,
			[]string{`[{"n":1}]`, `[{"n":1},{"n":2.0}]`},
			[]string{`[]`, `[{"n":0}]`, `[{}]`, `[{"n":1},{"n":1},{"n":1}]`, `[1]`}},
		{`{"items":false}`, []string{`[]`, `{}`}, []string{`[1]`}},
		{`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"array","items":{"enum":["x"]}}},"additionalProperties":false}}}`,
			[]string{`{"a":{"b":["x","x"]}}`, `{"a":{}}`},
			[]string{`{"a":{"b":["y"]}}`, `{"a":{"c":1}}`, `{"a":[]}`}},
		// A huge count reads as jsonschema reads it: 2^64+1 as 1.
		{`{"maxLength":18446744073709551617}`, []string{`"a"`}, []string{`"ab"`}},
		// Annotations assert nothing, format included.
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","format":"email","title":"t","description":"d","default":1,"examples":[1],"deprecated":true,"readOnly":true,"writeOnly":true,"$comment":"c"}`,
			[]string{`"not an email"`, `1`}, nil},
		{`true`, []string{`1`, `{}`}, nil},
		{`false`, nil, []string{`1`, `{}`}},
		{`{}`, []string{`null`}, nil},
	}
	for _, tt := range tests {
		s := mustPlan(t, tt.schema)
		for _, doc := range tt.valid {
			checkBoth(t, tt.schema, s, doc, true)
		}
		for _, doc := range tt.invalid {
			checkBoth(t, tt.schema, s, doc, false)
		}
	}
}

// Schemas with anything a plan does not handle get none, whether it
// asserts anything or not.
func TestNoPlan(t *testing.T) {
	for _, raw := range []string{
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`,
		`{"$schema":"https://json-schema.org/draft/2019-09/schema"}`,
		// The latest draft, 2020-12 today, and tomorrow another.
		`{"$schema":"https://json-schema.org/schema"}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"string"}`,
		`{"properties":{"a":{"$schema":"https://json-schema.org/draft/2020-12/schema"}}}`,
		`{"$ref":"#/$defs/a","$defs":{"a":{"type":"string"}}}`,
		`{"$defs":{"a":{}}}`,
		`{"$id":"https://example.com/s"}`,
		`{"anyOf":[{"type":"string"}]}`,
		`{"properties":{"a":{"not":{}}}}`,
		`{"items":{"uniqueItems":true}}`,
		`{"prefixItems":[{"type":"string"}]}`,
		`{"multipleOf":2}`,
		`{"enum":[[1]]}`,
		`{"const":{"a":1}}`,
		`{"patternProperties":{"^a":{}}}`,
		`{"dependentRequired":{"a":["b"]}}`,
		`{"unevaluatedProperties":false}`,
		`{"additionalProperties":{"propertyNames":{"maxLength":1}}}`,
		`{"x-unknown":1}`,
		`{"type":"object","properties":{"a":{"type":"string","x-tag":true}}}`,
	} {
		s, err := Compile(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("Compile(%s): %v", raw, err)
		}
		if s.plan != nil {
			t.Errorf("%s: a plan", raw)
		}
	}
}

// Validate decides with the plan when it accepts, and with jsonschema
// otherwise: a plan that accepts everything makes every document valid,
// and one that accepts nothing changes nothing.
func TestValidateUsesPlan(t *testing.T) {
	s := mustPlan(t, `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"],"additionalProperties":false}`)
	all := &Schema{compiled: s.compiled, objectType: s.objectType, plan: &node{}}
	none := &Schema{compiled: s.compiled, objectType: s.objectType, plan: &node{never: true}}
	if err := all.Validate(json.RawMessage(`{}`)); err != nil {
		t.Errorf("a plan that accepts everything: %v", err)
	}
	if err := none.Validate(json.RawMessage(`{"message":"hi"}`)); err != nil {
		t.Errorf("a plan that accepts nothing: %v", err)
	}
	const want = "at (root): missing property 'message'"
	if err := none.Validate(json.RawMessage(`{}`)); err == nil || err.Error() != want {
		t.Errorf("a plan that accepts nothing: %v, want %s", err, want)
	}
	// decode refuses before any plan.
	if err := all.Validate(json.RawMessage(`{"a":1,"a":2}`)); err == nil {
		t.Error("a repeated name accepted")
	}
}

// The schemas of the bundled examples and plugins get a plan, so that the
// fast path applies to them, and decides as jsonschema does. The schemas
// are in testdata/tools.json, as "wasmcp inspect -json" printed them for
// build/examples and build/plugins.
func TestPlanBundledSchemas(t *testing.T) {
	raw, err := os.ReadFile("testdata/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var tools []struct {
		Tools  []string
		Schema json.RawMessage
	}
	if err := json.Unmarshal(raw, &tools); err != nil {
		t.Fatal(err)
	}
	if len(tools) < 20 {
		t.Fatalf("%d schemas in testdata/tools.json", len(tools))
	}
	for _, tool := range tools {
		s, err := Compile(tool.Schema)
		if err != nil {
			t.Fatalf("%v: %v", tool.Tools, err)
		}
		if s.plan == nil {
			t.Errorf("%v: no plan", tool.Tools)
			continue
		}
		for _, doc := range []string{`{}`, `{"message":"hi"}`, `{"a":1,"b":2.5}`, `{"location":"Chicago"}`, `{"count":3}`, `{"count":11}`, `[]`} {
			v, _ := decode([]byte(doc))
			if got, want := s.plan.valid(v), s.compiled.Validate(v) == nil; got != want {
				t.Errorf("%v, document %s: plan says valid %v, jsonschema %v", tool.Tools, doc, got, want)
			}
		}
	}
}

// validDocument accepts the common documents from their bytes, and
// declines where the bytes are not the value, or decode would refuse.
func TestValidDocument(t *testing.T) {
	for _, c := range []struct {
		schema, doc string
		want        bool
	}{
		{`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"],"additionalProperties":false}`, ` {"message" : "hi"} `, true},
		{`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`, `{"message":"a\"b\n\u00e9","x":[1,{"y":null}]}`, true},
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`, `{"n":2}`, true},
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`, `{"n":0}`, false},
		{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":1.5}`, false},
		{`{"type":"object","properties":{"s":{"enum":["a","b"]}}}`, `{"s":"b"}`, true},
		// Escapes where the value matters: declined, though valid.
		{`{"type":"object","properties":{"s":{"enum":["a","b"]}}}`, `{"s":"\u0062"}`, false},
		{`{"type":"string","minLength":4}`, `"\u0041"`, false},
		{`{"type":"string","maxLength":1}`, `"\u0041"`, false},
		{`{"type":"string","minLength":1}`, "\"\xff\"", false},
		// Names with escapes, repeated names, too many members.
		{`{"type":"object"}`, `{"\u0061":1}`, false},
		{`{"type":"object"}`, `{"a":1,"a":1}`, false},
		{`{"type":"object"}`, `{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1,"k":1,"l":1,"m":1,"n":1,"o":1,"p":1,"q":1}`, false},
		// Not JSON, or not what decode accepts.
		{`{"type":"object"}`, `{"a":1,}`, false},
		{`{"type":"object"}`, `{"a":1} x`, false},
		{`{"type":"object"}`, `{"a":1e401}`, false},
		{`{"type":"object"}`, "{\"a\":\"\x01\"}", false},
		{`{"type":"object"}`, `{"a":"\x"}`, false},
		{`{"type":"object"}`, ``, false},
		{`{"type":"object"}`, strings.Repeat(`{"a":`, 65) + "1" + strings.Repeat("}", 65), false},
	} {
		s := mustPlan(t, c.schema)
		if got := s.plan.validDocument([]byte(c.doc)); got != c.want {
			t.Errorf("schema %s, document %s: validDocument %v, want %v", c.schema, c.doc, got, c.want)
		}
		// Whatever validDocument says, Validate decides as jsonschema.
		v, err := decode([]byte(c.doc))
		want := err == nil && s.compiled.Validate(v) == nil
		if got := s.Validate([]byte(c.doc)) == nil; got != want {
			t.Errorf("schema %s, document %s: Validate says valid %v, jsonschema %v", c.schema, c.doc, got, want)
		}
	}
}
