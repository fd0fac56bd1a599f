// Package args decodes a tool's arguments into its typed input without
// encoding/json, for the inputs most tools have: a flat struct of strings,
// numbers and booleans, sent as a plain JSON object.
//
// In a WebAssembly guest, json.Unmarshal of even a one-field object costs
// several microseconds: it scans the text twice (once to validate, once to
// decode) through a state machine of indirect calls, and looks the type's
// fields up through reflection and a sync.Map. A Decoder resolves the fields
// once, when the tool is registered, and decodes in one pass.
//
// A Decoder is an accelerator, not a second implementation to trust: it
// only reports success when encoding/json would have decoded the same text
// into the same value without error. Whenever it meets anything else (a
// syntax error, a key that is not exactly a field's name, a value of the
// wrong type, an escape it does not handle, invalid UTF-8) it declines, and
// the caller decodes with encoding/json, which gives the result and the
// error message as before. The fuzz test holds it to that.
package args

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
)

// A Decoder decodes a JSON object into a value of one struct type.
type Decoder struct {
	ptr    reflect.Type // pointer to the struct type
	fields []field
}

// field is one JSON-decodable field of the struct: where it is, what kind
// of value it holds and the name encoding/json gives it.
type field struct {
	name   string
	offset uintptr
	kind   reflect.Kind
	bits   int // of a number
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType      = reflect.TypeFor[json.Number]()
)

// For returns a Decoder for t, or nil when t is outside what a Decoder
// handles: anything but a struct whose fields are all unexported, or
// exported, not embedded, of a string, boolean or number kind, without
// ",string" in their json tag, named uniquely and without a custom
// unmarshaller.
func For(t reflect.Type) *Decoder {
	fields, ok := structFields(t)
	if !ok {
		return nil
	}
	return &Decoder{ptr: reflect.PointerTo(t), fields: fields}
}

// Decode decodes the JSON object data into v, a pointer to a zero value of
// the Decoder's type, and reports whether it did. When it reports false, v
// may be partly written: the caller should zero it and decode with
// encoding/json. It is not generic, so that a module with many tools has
// one copy of it.
func (d *Decoder) Decode(data []byte, v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Type() != d.ptr || rv.IsNil() {
		return false
	}
	p := parser{data: data, fields: d.fields, base: rv.UnsafePointer()}
	return p.object()
}

// structFields resolves the fields of t the way encoding/json does, or
// reports false when t needs anything this package leaves to it.
func structFields(t reflect.Type) ([]field, bool) {
	if t.Kind() != reflect.Struct || custom(t) {
		return nil, false
	}
	var fields []field
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil, false // promotion rules: leave them to encoding/json
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !plainName(name) || hasOption(opts, "string") {
			return nil, false
		}
		if name == "" {
			name = sf.Name
		}
		if !scalar(sf.Type) {
			return nil, false
		}
		for _, f := range fields {
			if f.name == name {
				return nil, false // encoding/json keeps one, or neither
			}
		}
		fields = append(fields, field{name: name, offset: sf.Offset, kind: sf.Type.Kind(), bits: int(sf.Type.Size()) * 8})
	}
	return fields, true
}

// plainName reports whether a tag name is one that encoding/json accepts as
// written (a subset of its isValidTag).
func plainName(name string) bool {
	for i := range len(name) {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func hasOption(opts, option string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == option {
			return true
		}
	}
	return false
}

// custom reports whether encoding/json would decode into t through a
// method rather than by its kind.
func custom(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(jsonUnmarshaler) || p.Implements(textUnmarshaler) ||
		t.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler)
}

func scalar(t reflect.Type) bool {
	if custom(t) || t == numberType {
		return false
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}
