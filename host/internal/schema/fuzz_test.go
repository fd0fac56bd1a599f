package schema_test

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/wasmcp/wasmcp/host/internal/schema"
)

// FuzzValidate compiles random schemas, as a guest's describe document
// supplies them, and validates random documents, as clients supply
// arguments, against those that compile. Neither may panic; an error must
// say something; a document that validates must be JSON; and validating the
// same document twice must give the same message, since a model reads it.
// The seed corpus is under testdata/fuzz/FuzzValidate.
func FuzzValidate(f *testing.F) {
	for _, seed := range []struct{ schema, doc string }{
		{`{"type":"object"}`, `{}`},
		{`{"type":"object","additionalProperties":false}`, `{"a":1}`},
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":10}},"required":["n"]}`, `{"n":1.0}`},
		{`{"type":"object","properties":{"n":{"type":"integer","multipleOf":0.5}}}`, `{"n":1e308}`},
		{`{"type":"array","items":{"type":"string","pattern":"^[a-z]+$","minLength":1}}`, `["abc","A",""]`},
		{`{"type":"array","uniqueItems":true}`, `[1,1.0,{"a":[1]},{"a":[1.00]}]`},
		{`{"$defs":{"n":{"$ref":"#/$defs/n"}},"$ref":"#/$defs/n"}`, `1`},
		{`{"$ref":"#"}`, `{}`},
		{`{"anyOf":[{"type":"string"},{"type":"boolean"}],"not":{"const":true}}`, `true`},
		{`{"if":{"required":["a"]},"then":{"required":["b"]},"else":{"maxProperties":0}}`, `{"a":null}`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"integer"}],"additionalItems":false}`, `[1,2]`},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","maximum":5,"exclusiveMaximum":true}`, `5`},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"items":{"$recursiveRef":"#"}}`, `[[[]]]`},
		{`{"$dynamicAnchor":"a","prefixItems":[{"$dynamicRef":"#a"}]}`, `[["x"]]`},
		{`{"dependentSchemas":{"a":{"required":["b"]}},"propertyNames":{"maxLength":2}}`, `{"a":1,"abc":2}`},
		{`{"contains":{"type":"null"},"minContains":2,"unevaluatedItems":false}`, `[null,null,1]`},
		{`{"format":"email","contentEncoding":"base64","contentMediaType":"application/json"}`, `"e30="`},
		{`{"$ref":"https://example.com/s.json"}`, `{}`},
		{`{"enum":[1,"1",[1],{"1":1}]}`, `{"1":1.0}`},
		{`{"type":`, `{}`},
		{`{"type":"object"}`, `{"a":` + "\"\xff\"" + `}`},
		{`{"type":"number"}`, `1e999999`},
		{`{"type":"integer"}`, `123456789012345678901234567890`},
	} {
		f.Add([]byte(seed.schema), []byte(seed.doc))
	}
	f.Fuzz(func(t *testing.T, raw, doc []byte) {
		s, err := schema.Compile(raw)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("Compile(%q): empty error", raw)
			}
			return
		}
		err = s.Validate(doc)
		if err == nil {
			if !json.Valid(doc) {
				t.Fatalf("schema %q accepted %q, which is not JSON", raw, doc)
			}
			return
		}
		msg := err.Error()
		if msg == "" {
			t.Fatalf("Validate(%q) against %q: empty error", doc, raw)
		}
		if utf8.Valid(raw) && utf8.Valid(doc) && !utf8.ValidString(msg) {
			t.Fatalf("Validate(%q) against %q: message is not UTF-8: %q", doc, raw, msg)
		}
		if again := s.Validate(doc); again == nil || again.Error() != msg {
			t.Fatalf("Validate(%q) against %q is not deterministic:\n%s\n%v", doc, raw, msg, again)
		}
	})
}
