package args

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

type name string

// flat has a field of every kind a Decoder handles, and fields that
// encoding/json skips.
type flat struct {
	S      string `json:"s"`
	B      bool   `json:"b,omitempty"`
	I      int    `json:"i"`
	I8     int8
	I16    int16 `json:"i16,omitzero"`
	I32    int32
	I64    int64
	U      uint
	U8     uint8
	U16    uint16
	U32    uint32
	U64    uint64
	Uptr   uintptr
	F32    float32
	F64    float64 `json:"f64"`
	N      name    `json:"n"`
	Dash   int     `json:"-,"`
	Skip   string  `json:"-"`
	hidden string
}

// decodeBoth decodes data with d and with encoding/json, and fails t when
// d succeeded where encoding/json failed or decoded another value.
func decodeBoth[T any](t *testing.T, d *Decoder, data []byte) bool {
	t.Helper()
	var fast, ref T
	ok := d.Decode(data, &fast)
	err := json.Unmarshal(data, &ref)
	if ok && err != nil {
		t.Fatalf("%q: decoded %+v where encoding/json fails: %v", data, fast, err)
	}
	// %#v tells -0 from 0, which == does not.
	if ok && fmt.Sprintf("%#v", fast) != fmt.Sprintf("%#v", ref) {
		t.Fatalf("%q: decoded\n%#v\nencoding/json decodes\n%#v", data, fast, ref)
	}
	return ok
}

var accepted = []string{
	`{}`,
	" \t\r\n{ } \n",
	`{"s":"hello from the wasmcp bench"}`,
	`{"s":"é 😀 \u2028"}`,
	`{"s":"\"\\\/\b\f\n\r\t \u0000 \u00e9 \uFFFD"}`,
	`{"s":"a","s":"b"}`,
	`{"s":null,"b":null,"i":null,"f64":null}`,
	`{"b":true,"b":false}`,
	`{"i":-9223372036854775808,"I8":-128,"i16":32767,"I32":-2147483648,"I64":9223372036854775807}`,
	`{"U":18446744073709551615,"U8":255,"U16":65535,"U32":4294967295,"U64":0,"Uptr":7}`,
	`{"F32":3.4028234e38,"f64":-0,"i":0}`,
	`{"f64":1e308,"F32":1.5E-7,"I8":-0}`,
	`{"f64":0.1e+2,"F32":-12.5e-1}`,
	`{"n":"typed","-":1}`,
}

var declined = []string{
	``, `null`, `[]`, `"s"`, `{`, `{"s"}`, `{"s":}`, `{"s":"a",}`, `{,}`, `{"s":"a"}x`, `{"s":"a"}{}`,
	`{"S":"wrong case"}`, `{"unknown":1}`, `{"Skip":"x"}`, `{"hidden":"x"}`, `{"Dash":1}`,
	`{"s\u0000":"x"}`, `{"\u0073":"escaped key"}`,
	`{"s":1}`, `{"s":true}`, `{"i":"1"}`, `{"b":1}`, `{"b":"true"}`, `{"f64":[1]}`, `{"s":{}}`,
	`{"i":1.0}`, `{"i":1e2}`, `{"I8":128}`, `{"U8":-1}`, `{"U":-0}`, `{"U16":65536}`, `{"F32":3.5e38}`, `{"f64":1e309}`,
	`{"i":01}`, `{"i":+1}`, `{"f64":.5}`, `{"f64":5.}`, `{"f64":1e}`, `{"i":-}`, `{"f64":0x10}`, `{"f64":NaN}`,
	`{"b":tru}`, `{"s":nul}`, `{"s":"a` + "\x01" + `"}`, `{"s":"\x"}`, `{"s":"\u12"}`, `{"s":"\ud83d\ude00"}`,
	`{"s":"` + "\xff" + `"}`, `{"s":"\n` + "\xff" + `"}`, `{"s":"unterminated}`, `{"s":"esc\`,
	`{"s":"a"` + "\v" + `}`,
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	d := For(reflect.TypeFor[flat]())
	if d == nil {
		t.Fatal("no Decoder for a flat struct")
	}
	for _, data := range accepted {
		if !decodeBoth[flat](t, d, []byte(data)) {
			t.Errorf("%q: declined", data)
		}
	}
	for _, data := range declined {
		if decodeBoth[flat](t, d, []byte(data)) {
			t.Errorf("%q: decoded, where encoding/json's rules are needed", data)
		}
	}
	// The strings are copies: the SDK reuses the input for the next call.
	data := []byte(`{"s":"abc"}`)
	var v flat
	if !d.Decode(data, &v) {
		t.Fatal("declined")
	}
	copy(data, strings.Repeat("x", len(data)))
	if v.S != "abc" {
		t.Errorf("the string shares the input: %q", v.S)
	}
	if d.Decode([]byte(`{}`), &struct{ S string }{}) || d.Decode([]byte(`{}`), (*flat)(nil)) || d.Decode([]byte(`{}`), v) {
		t.Error("decoded into a value that is not a non-nil *flat")
	}
}

type textName string

func (n *textName) UnmarshalText(b []byte) error { *n = textName(b); return nil }

type selfDecoding struct{ S string }

func (c *selfDecoding) UnmarshalJSON(b []byte) error { c.S = string(b); return nil }

type inner struct{ S string }

func TestForDeclinesTypes(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[map[string]any](),
		reflect.TypeFor[*flat](),
		reflect.TypeFor[string](),
		reflect.TypeFor[any](),
		reflect.TypeFor[json.RawMessage](),
		reflect.TypeFor[selfDecoding](),
		reflect.TypeFor[time.Time](),
		reflect.TypeFor[struct{ P *string }](),
		reflect.TypeFor[struct{ L []string }](),
		reflect.TypeFor[struct{ M map[string]int }](),
		reflect.TypeFor[struct{ In inner }](),
		reflect.TypeFor[struct{ inner }](),
		reflect.TypeFor[struct{ A any }](),
		reflect.TypeFor[struct{ N json.Number }](),
		reflect.TypeFor[struct{ T textName }](),
		reflect.TypeFor[struct{ C selfDecoding }](),
		reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](),
		reflect.TypeFor[struct {
			A string `json:"X"`
			X string
		}](),
		reflect.TypeFor[struct {
			A string `json:"a b"`
		}](),
		reflect.TypeFor[struct{ C complex128 }](),
	} {
		if For(typ) != nil {
			t.Errorf("a Decoder for %v", typ)
		}
	}
	if For(reflect.TypeFor[struct{}]()) == nil {
		t.Error("no Decoder for struct{}")
	}
}

// FuzzDecode holds a Decoder to encoding/json: whatever it decodes,
// encoding/json decodes without error into the same value.
func FuzzDecode(f *testing.F) {
	for _, data := range append(accepted, declined...) {
		f.Add([]byte(data))
	}
	d := For(reflect.TypeFor[flat]())
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeBoth[flat](t, d, data)
	})
}
