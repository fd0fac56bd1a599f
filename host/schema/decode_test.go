package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestDecodeDuplicates(t *testing.T) {
	many := func(last string) string {
		var b strings.Builder
		b.WriteString(`{`)
		for i := range 40 {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		return b.String() + last + `}`
	}
	tests := []struct{ doc, want string }{
		{`{"a":1,"a":2}`, `duplicate key "a" at (root)`},
		{`{"a":1,"b":{"c":[1,{"d":1,"e":2,"d":3}]}}`, `duplicate key "d" at /b/c/1`},
		// Names are compared as decoded.
		{`{"a":1,"\u0061":2}`, `duplicate key "a" at (root)`},
		{`{"\/":1,"/":2}`, `duplicate key "/" at (root)`},
		{`{"é":1,"\u00e9":2}`, `duplicate key "é" at (root)`},
		// Reference tokens are escaped.
		{`{"a/b~":{"x":1,"x":1}}`, `duplicate key "x" at /a~1b~0`},
		// An object past the linear comparison.
		{many(`"k3":0`), `duplicate key "k3" at (root)`},
		{many(`"k\u0033":0`), `duplicate key "k3" at (root)`},
		{`[{},{"":1,"":2}]`, `duplicate key "" at /1`},
		// The first problem in document order.
		{`{"a":[1e999],"b":1,"b":2}`, `at /a/0: number 1e999 is out of range (exponent beyond ±400)`},
		{`{"b":1,"b":2,"a":[1e999]}`, `duplicate key "b" at (root)`},
	}
	// As deep as encoding/json decodes, a repeated name at the bottom.
	deep := strings.Repeat(`{"a":`, 9999) + `{"b":1,"b":2}` + strings.Repeat(`}`, 9999)
	tests = append(tests, struct{ doc, want string }{deep, `duplicate key "b" at ` + strings.Repeat(`/a`, 9999)})
	for _, tt := range tests {
		_, err := decode([]byte(tt.doc))
		if err == nil || err.Error() != tt.want {
			t.Errorf("decode(%.60s) = %v, want %q", tt.doc, err, tt.want)
		}
	}
	for _, doc := range []string{
		`{"a":1,"b":{"a":1},"c":[{"a":1},{"a":1}]}`, // the same name in different objects
		`{"a":1,"A":2,"a ":3,"\u0062":4}`,
		many(`"k40":0`),
		`{"x":"\"a\":1,\"a\":2","y":"\\"}`, // names inside strings
		" \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" : { } } ",
		`[1e400,-1E-400,1e+308,0.5e-3,true,false,null,"\ud83d\ude00"]`,
	} {
		if _, err := decode([]byte(doc)); err != nil {
			t.Errorf("decode(%.60s): %v", doc, err)
		}
	}
}

// FuzzDecode compares decode with jsonschema.UnmarshalJSON, which it
// replaced: they refuse the same documents that are not JSON and decode the
// others alike, except that decode also refuses duplicate names and large
// exponents, and those only.
func FuzzDecode(f *testing.F) {
	for _, doc := range []string{
		`{}`, `{"a":1,"a":2}`, `{"a":{"b":[1,{"c":1,"\u0063":2}]}}`, `[1e401]`, `"\ud800"`,
		`{"\ud800":1,"\udc00":2}`, "{\"\xff\":1,\"\xfe\":2}", `{"a":1} x`, `[`, `{"a" 1}`, `1.5e-3`,
		`{"` + strings.Repeat(`a`, 20) + `":[],"b":{"c":{}}}`,
	} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		want, wantErr := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
		got, err := decode(doc)
		if _, ok := errors.AsType[*syntaxError](err); ok != (wantErr != nil) {
			t.Fatalf("decode(%q) = %v; UnmarshalJSON: %v", doc, err, wantErr)
		}
		if wantErr != nil {
			return
		}
		if err != nil {
			msg := err.Error()
			if !strings.Contains(msg, "duplicate key") && !strings.Contains(msg, "out of range") {
				t.Fatalf("decode(%q): %v", doc, err)
			}
			if strings.Contains(msg, "duplicate key") && !hasDuplicate(t, doc) {
				t.Fatalf("decode(%q): %v, but no object repeats a name", doc, err)
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decode(%q) = %v, want %v", doc, got, want)
		}
		if hasDuplicate(t, doc) {
			t.Fatalf("decode(%q) accepted a repeated name", doc)
		}
	})
}

// hasDuplicate reports, with json.Decoder's tokens, whether an object of
// doc, valid JSON, repeats a name.
func hasDuplicate(t *testing.T, doc []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var walk func() bool
	walk = func() bool {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		switch tok {
		case json.Delim('['):
			for dec.More() {
				if walk() {
					return true
				}
			}
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				key, err := dec.Token()
				if err != nil {
					t.Fatal(err)
				}
				if seen[key.(string)] {
					return true
				}
				seen[key.(string)] = true
				if walk() {
					return true
				}
			}
		default:
			return false
		}
		_, _ = dec.Token() // ] or }
		return false
	}
	return walk()
}
