package jsonschema

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
)

// Mode says which side of encoding/json a schema describes.
type Mode int

const (
	// Input describes what a tool accepts. Optional values are omitted, never
	// null, so nil-able Go types are not marked nullable.
	Input Mode = iota
	// Output describes what json.Marshal produces: a nil pointer, slice or map
	// without omitempty is written as null, so the schema allows null there.
	Output
)

var (
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	numberType          = reflect.TypeFor[json.Number]()
	jsonMarshalerType   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// For derives the schema of t. The error names the field path and the
// problem, for example "Options.Limit: minLength applies to strings, not integer".
func For(t reflect.Type, mode Mode) (*Schema, error) {
	g := generator{mode: mode, visiting: map[reflect.Type]bool{}}
	return g.schema(t, t.String())
}

// ForObject is For restricted to types whose JSON form is an object: structs,
// pointers to structs and maps. Tool input and output schemas must be objects.
func ForObject(t reflect.Type, mode Mode) (*Schema, error) {
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if custom(base, mode) || (base.Kind() != reflect.Struct && base.Kind() != reflect.Map) {
		return nil, fmt.Errorf("%s: a tool's arguments and structured results must be a struct or a map, so that their JSON is an object", t)
	}
	s, err := For(base, mode)
	if err != nil {
		return nil, err
	}
	// The top-level value is never null: the SDK checks it before sending.
	s.notNullable()
	return s, nil
}

type generator struct {
	mode     Mode
	visiting map[reflect.Type]bool // structs on the current path, to refuse recursion
}

// custom reports whether t controls its own JSON encoding, so that its shape
// cannot be known by reflection.
func custom(t reflect.Type, mode Mode) bool {
	if t == rawMessageType {
		return true
	}
	iface := jsonMarshalerType
	if mode == Input {
		iface = jsonUnmarshalerType
	}
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

// textual reports whether encoding/json writes t as a string through
// encoding.TextMarshaler (or reads it through TextUnmarshaler).
func textual(t reflect.Type, mode Mode) bool {
	iface := textMarshalerType
	if mode == Input {
		iface = textUnmarshalerType
	}
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

func (g *generator) schema(t reflect.Type, path string) (*Schema, error) {
	switch {
	case t == numberType:
		return &Schema{Type: Types{"number"}}, nil
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && custom(t, g.mode):
		// Any JSON value: the type decides.
		return &Schema{}, nil
	case t.Kind() != reflect.Pointer && textual(t, g.mode):
		return &Schema{Type: Types{"string"}}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return &Schema{Type: Types{"boolean"}}, nil
	case reflect.Int8, reflect.Int16, reflect.Int32:
		bits := t.Bits()
		return &Schema{
			Type:    Types{"integer"},
			Minimum: json.Number(strconv.FormatInt(-1<<(bits-1), 10)),
			Maximum: json.Number(strconv.FormatInt(1<<(bits-1)-1, 10)),
		}, nil
	case reflect.Int, reflect.Int64:
		return &Schema{Type: Types{"integer"}}, nil
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return &Schema{
			Type:    Types{"integer"},
			Minimum: "0",
			Maximum: json.Number(strconv.FormatUint(math.MaxUint64>>(64-t.Bits()), 10)),
		}, nil
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return &Schema{Type: Types{"integer"}, Minimum: "0"}, nil
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: Types{"number"}}, nil
	case reflect.String:
		return &Schema{Type: Types{"string"}}, nil
	case reflect.Interface:
		return &Schema{}, nil
	case reflect.Pointer:
		s, err := g.schema(t.Elem(), path)
		if err != nil {
			return nil, err
		}
		if g.mode == Output {
			s.nullable()
		}
		return s, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !custom(t.Elem(), g.mode) && !textual(t.Elem(), g.mode) {
			// encoding/json writes []byte as a base64 string.
			s := &Schema{Type: Types{"string"}, ContentEncoding: "base64"}
			if g.mode == Output {
				s.nullable()
			}
			return s, nil
		}
		items, err := g.schema(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		s := &Schema{Type: Types{"array"}, Items: items}
		if g.mode == Output {
			s.nullable()
		}
		return s, nil
	case reflect.Array:
		items, err := g.schema(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		n := uint64(t.Len())
		return &Schema{Type: Types{"array"}, Items: items, MinItems: &n, MaxItems: &n}, nil
	case reflect.Map:
		if !validMapKey(t.Key(), g.mode) {
			return nil, fmt.Errorf("%s: map key type %s cannot be a JSON object key", path, t.Key())
		}
		values, err := g.schema(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		s := &Schema{Type: Types{"object"}, AdditionalProperties: values}
		if g.mode == Output {
			s.nullable()
		}
		return s, nil
	case reflect.Struct:
		return g.object(t, path)
	}
	return nil, fmt.Errorf("%s: type %s has no JSON form", path, t)
}

func validMapKey(k reflect.Type, mode Mode) bool {
	switch k.Kind() {
	case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return textual(k, mode)
}

// object derives a struct's schema: one property per field encoding/json
// sees, required unless omitempty/omitzero (or a tag) says otherwise, and no
// additional properties, since encoding/json neither writes nor reads any.
func (g *generator) object(t reflect.Type, path string) (*Schema, error) {
	if g.visiting[t] {
		return nil, fmt.Errorf("%s: type %s refers to itself; recursive types have no finite schema (use an explicit schema)", path, t)
	}
	g.visiting[t] = true
	defer delete(g.visiting, t)

	s := &Schema{Type: Types{"object"}, AdditionalProperties: false}
	for _, f := range fields(t) {
		fpath := path + "." + f.goName
		fs, err := g.schema(f.typ, fpath)
		if err != nil {
			return nil, err
		}
		if f.quoted && isQuotable(f.typ) {
			// `json:",string"` writes the scalar inside a string.
			fs = &Schema{Type: Types{"string"}}
		}
		if f.omit {
			// omitempty/omitzero drop nil values instead of writing null.
			fs.notNullable()
		}
		required := !f.omit && !(g.mode == Output && f.viaPointer)
		if err := applyTags(fs, f.tag, &required); err != nil {
			return nil, fmt.Errorf("%s: %w", fpath, err)
		}
		if s.Properties == nil {
			s.Properties = &Properties{}
		}
		*s.Properties = append(*s.Properties, Property{Name: f.name, Schema: fs})
		if required {
			s.Required = append(s.Required, f.name)
		}
	}
	return s, nil
}

// isQuotable reports whether encoding/json's ",string" option applies to t.
func isQuotable(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	}
	return false
}
