package schema

import (
	"bytes"
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
		// A large object.
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
	for i, tt := range tests {
		t.Run(fmt.Sprintf("duplicate-%d", i), func(t *testing.T) {
			_, err := decode([]byte(tt.doc))
			if err == nil || err.Error() != tt.want {
				t.Errorf("decode(%.60s) = %v, want %q", tt.doc, err, tt.want)
			}
		})
	}
	for i, doc := range []string{
		`{"a":1,"b":{"a":1},"c":[{"a":1},{"a":1}]}`, // the same name in different objects
		`{"a":1,"A":2,"a ":3,"\u0062":4}`,
		many(`"k40":0`),
		`{"x":"\"a\":1,\"a\":2","y":"\\"}`, // names inside strings
		" \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" : { } } ",
		`[1e400,-1E-400,1e+308,0.5e-3,true,false,null,"\ud83d\ude00"]`,
	} {
		t.Run(fmt.Sprintf("unique-%d", i), func(t *testing.T) {
			if _, err := decode([]byte(doc)); err != nil {
				t.Errorf("decode(%.60s): %v", doc, err)
			}
		})
	}
}

// decode reads values as jsonschema.UnmarshalJSON does, in the same pass as
// its checks: both must agree on what is JSON and on its values.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `[1,"a",null,true,{"b":[]}]`, `{"a":1,"a":2}`, `1e999999`, `{"a":`, `{} {}`, `"\ud800"`, `[[[[]]]]`, ``, ` 1 `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		got, err := decode(doc)
		want, wantErr := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
		switch {
		case wantErr != nil && err == nil:
			t.Fatalf("decode(%q) = %v, jsonschema refuses it: %v", doc, got, wantErr)
		case wantErr == nil && err != nil:
			var syntax *syntaxError
			if errors.As(err, &syntax) {
				t.Fatalf("decode(%q): %v, but jsonschema reads it", doc, err)
			}
		case err == nil && !reflect.DeepEqual(got, want):
			t.Fatalf("decode(%q) = %#v, jsonschema reads %#v", doc, got, want)
		}
	})
}
