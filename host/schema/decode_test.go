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

// FuzzDecode checks decode three ways. Against decodeReference, the
// two-pass decode it falls back on: the same values, or the same error,
// word for word and of the same type. parse, its one pass, must decode
// every document the reference decodes, to the same values, and decline
// every other, so that no document takes two passes to be accepted. And
// against jsonschema.UnmarshalJSON, which the reference wraps: they refuse
// the same documents that are not JSON and decode the others alike, except
// that decode also refuses duplicate names and large exponents, and those
// only.
func FuzzDecode(f *testing.F) {
	for _, doc := range decodeSeeds() {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		ref, refErr := decodeReference(doc)
		got, err := decode(doc)
		if (err == nil) != (refErr == nil) || err != nil && err.Error() != refErr.Error() {
			t.Fatalf("decode(%.200q) = %v; reference: %v", doc, err, refErr)
		}
		_, syntax := errors.AsType[*syntaxError](err)
		if _, refSyntax := errors.AsType[*syntaxError](refErr); syntax != refSyntax {
			t.Fatalf("decode(%.200q): %T; reference: %T", doc, err, refErr)
		}
		if !reflect.DeepEqual(got, ref) {
			t.Fatalf("decode(%q) = %#v; reference: %#v", doc, got, ref)
		}
		if fast, ok := parse(doc); ok != (refErr == nil) {
			t.Fatalf("parse(%.200q): ok %t; reference: %v", doc, ok, refErr)
		} else if !reflect.DeepEqual(fast, ref) {
			t.Fatalf("parse(%q) = %#v; reference: %#v", doc, fast, ref)
		}

		want, wantErr := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
		if syntax != (wantErr != nil) {
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

// decodeSeeds are documents at the edges of what JSON and decode allow.
func decodeSeeds() []string {
	nest := func(open, inner, close string, n int) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	return []string{
		`{}`, `[]`, ` [ ] `, `{"message":"hello from the wasmcp bench"}`, `{"a":[]}`, ``, "  \n",
		" \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" : { } } \n", "\f1", "\u00a01",
		// Escapes, surrogates and UTF-8.
		`"\"\\\/\b\f\n\r\t"`, `"\u0000"`, `"\u00e9\u20AC"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00\ud83d"`,
		`"\ud83d\ud83d\ude00"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\ud83d\u12"`, `"\ud83d\"`, `"\x"`, `"\u12G4"`,
		`"\`, `"abc`, `"a\u00"`, "\"\xff\"", "\"\xed\xa0\x80\"", "\"\xc3\"", "\"é\xc3\\n\"", "\"\xf4\x90\x80\x80\"",
		"\"\xef\xbf\xbd\"", "\"\x01\"", "\"\t\"", "\"\x7f\"", "[\"\xff\\u0041\"]",
		// Names.
		`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, "{\"\xff\":1,\"\xfe\":2}", `{"\ud800":1,"\udc00":2}`,
		`{"a":1,"b":{"a":1}}`, `{"a":{"b":[1,{"c":1,"\u0063":2}]}}`, `{"\/":1,"/":2}`,
		`{"` + strings.Repeat(`a`, 20) + `":[],"b":{"c":{}}}`,
		`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,` +
			`"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k\u0031":18}`,
		// Numbers.
		`-0`, `1E+5`, `0.0e-0`, `1.5e-3`, `01`, `-`, `-a`, `1.`, `.5`, `1e`, `1e+`, `+1`, `1e400`, `[1e401]`, `1e-401`,
		`1e0000401`, `1e00000400`, `-0.0E-400`, `123456789012345678901234567890`, `1 `, ` 1`, `1 2`, `1x`,
		`[1x]`, `0x10`, `Infinity`, `NaN`, `-01`, `1.0.0`, `1e5e5`,
		// Literals.
		`true`, `tru`, `nul`, `nullx`, `[true,false,null]`, `truefalse`, `fals`, `True`,
		// Structure and what follows the value.
		`{"a":1} x`, `{} {}`, `{}}`, `{},`, `"a""b"`, `{"a" 1}`, `{"a":}`, `{,}`, `{"a":1,}`, `[1,]`, `[,1]`,
		`{1:1}`, `{"a":1 "b":2}`, `[1 2]`, `{"a":1}]`, `[`, `{`, `{"a"`, `{"a":`, `[1,`, `]`,
		// A problem that decode finds before a syntax error, and problems in
		// order.
		`{"a":1,"a":2} x`, `{"a":1,"a":2,`, `[1e999,`, `{"a":[1e999],"b":1,"b":2}`, `{"b":1,"b":2,"a":[1e999]}`,
		// As deep as encoding/json goes, and a level deeper.
		nest(`[`, ``, `]`, maxDepth), nest(`[`, ``, `]`, maxDepth+1),
		nest(`{"a":`, `{}`, `}`, maxDepth-1), nest(`{"a":`, `{}`, `}`, maxDepth),
		nest(`[`, `{"b":1,"b":2}`, `]`, maxDepth-1),
	}
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

// TestParserReset checks that a parser that declined a document keeps
// none of its values once reset for the pool.
func TestParserReset(t *testing.T) {
	doc := []byte(`[{"a":["x",{"b":"y"`)
	p := &parser{cursor: cursor{doc: doc}, src: string(doc)}
	if _, ok := p.value(); ok {
		t.Fatal("a truncated document was accepted")
	}
	if len(p.elems) == 0 || len(p.members) == 0 {
		t.Fatal("the declined document left nothing on the stacks")
	}
	p.reset()
	for _, v := range p.elems[:cap(p.elems)] {
		if v != nil {
			t.Fatalf("reset kept %#v", v)
		}
	}
	for _, m := range p.members[:cap(p.members)] {
		if m != (member{}) {
			t.Fatalf("reset kept %#v", m)
		}
	}
	if p.doc != nil || p.src != "" || len(p.elems) != 0 || len(p.members) != 0 {
		t.Fatal("reset kept the document")
	}
}
