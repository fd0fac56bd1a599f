package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// applyTags applies a field's `description` and `jsonschema` tags to its
// schema s. The grammar of the jsonschema tag is documented in the SDK's
// package doc: comma-separated keywords, "key" or "key=value"; "\," and "\|"
// stand for a literal comma and pipe, every other backslash is literal.
//
// Keywords about a value (enum, minimum, minLength, pattern, ...) apply to
// the items when the field is an array, so that `[]string` with
// `jsonschema:"enum=a|b"` means an array of "a" and "b".
func applyTags(s *Schema, tag reflect.StructTag, required *bool) error {
	if d, ok := tag.Lookup("description"); ok {
		s.Description = d
	}
	spec, ok := tag.Lookup("jsonschema")
	if !ok {
		return nil
	}
	value := s
	if s.Type.Has("array") && s.Items != nil {
		value = s.Items
	}
	for _, item := range split(spec, ',') {
		key, raw, hasValue := strings.Cut(item, "=")
		key = strings.TrimSpace(key)
		arg := unescape(raw)
		if !hasValue && key != "required" && key != "optional" && key != "uniqueItems" {
			return fmt.Errorf("jsonschema keyword %q needs a value (%s=...)", key, key)
		}
		var err error
		switch key {
		case "":
			continue // tolerate "a,,b" and a trailing comma
		case "required":
			*required = true
		case "optional":
			*required = false
		case "title":
			s.Title = arg
		case "default":
			s.Default, err = literal(s, arg)
		case "enum":
			err = setEnum(value, raw)
		case "minimum":
			value.Minimum, err = number(value, key, arg)
		case "maximum":
			value.Maximum, err = number(value, key, arg)
		case "exclusiveMinimum":
			value.ExclusiveMinimum, err = number(value, key, arg)
		case "exclusiveMaximum":
			value.ExclusiveMaximum, err = number(value, key, arg)
		case "multipleOf":
			value.MultipleOf, err = number(value, key, arg)
			if f, _ := value.MultipleOf.Float64(); err == nil && f <= 0 {
				err = fmt.Errorf("multipleOf must be greater than 0")
			}
		case "minLength":
			value.MinLength, err = count(value, "string", key, arg)
		case "maxLength":
			value.MaxLength, err = count(value, "string", key, arg)
		case "pattern":
			err = needType(value, "string", key)
			value.Pattern = arg
		case "format":
			err = needType(value, "string", key)
			value.Format = arg
		case "minItems":
			s.MinItems, err = count(s, "array", key, arg)
		case "maxItems":
			s.MaxItems, err = count(s, "array", key, arg)
		case "uniqueItems":
			err = needType(s, "array", key)
			s.UniqueItems = true
		default:
			return fmt.Errorf("unknown jsonschema keyword %q", key)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// split cuts s at every sep not preceded by a backslash, keeping escapes.
func split(s string, sep byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++ // skip the escaped byte
		case sep:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// unescape turns "\," into "," and "\|" into "|"; other backslashes stay, so
// a pattern such as `^\d+$` needs no doubling beyond Go's tag quoting.
// (A loop rather than strings.Replacer, which would grow every module.)
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == ',' || s[i+1] == '|') {
			i++
		}
		b = append(b, s[i])
	}
	return string(b)
}

func needType(s *Schema, want, key string) error {
	if s.Type.Has(want) {
		return nil
	}
	return fmt.Errorf("%s applies to %s values, not %s", key, want, describeTypes(s.Type))
}

func describeTypes(t Types) string {
	if len(t) == 0 {
		return "any JSON value"
	}
	return strings.Join(t, " or ")
}

func number(s *Schema, key, arg string) (json.Number, error) {
	if !s.Type.Has("number") && !s.Type.Has("integer") {
		return "", fmt.Errorf("%s applies to numbers, not %s", key, describeTypes(s.Type))
	}
	var n json.Number
	if err := json.Unmarshal([]byte(arg), &n); err != nil || n == "" {
		return "", fmt.Errorf("%s=%s: not a number", key, arg)
	}
	return n, nil
}

func count(s *Schema, want, key, arg string) (*uint64, error) {
	if err := needType(s, want, key); err != nil {
		return nil, err
	}
	n, err := strconv.ParseUint(arg, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%s=%s: not a non-negative integer", key, arg)
	}
	return &n, nil
}

// setEnum parses "a|b|c". For string schemas each value is taken literally;
// for other types each value is a JSON literal of that type.
func setEnum(s *Schema, raw string) error {
	if !s.Type.Has("string") && !s.Type.Has("number") && !s.Type.Has("integer") && !s.Type.Has("boolean") {
		return fmt.Errorf("enum applies to strings, numbers and booleans, not %s", describeTypes(s.Type))
	}
	s.Enum = nil
	for _, v := range split(raw, '|') {
		lit, err := literal(s, unescape(v))
		if err != nil {
			return fmt.Errorf("enum: %w", err)
		}
		s.Enum = append(s.Enum, lit)
	}
	if s.Type.Has("null") {
		s.Enum = append(s.Enum, json.RawMessage("null"))
	}
	return nil
}

// literal turns a tag value into the JSON literal it stands for in schema s:
// a string as is when s is a string schema, any other JSON value when its
// type is one s allows.
func literal(s *Schema, arg string) (json.RawMessage, error) {
	if s.Type.Has("string") {
		return json.Marshal(arg)
	}
	var v any
	if err := json.Unmarshal([]byte(arg), &v); err != nil {
		return nil, fmt.Errorf("%q is not a JSON value", arg)
	}
	kind := jsonType(v)
	if len(s.Type) > 0 && !s.Type.Has(kind) && !(kind == "integer" && s.Type.Has("number")) {
		return nil, fmt.Errorf("%s is %s, want %s", arg, kind, describeTypes(s.Type))
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(arg)); err != nil {
		return nil, fmt.Errorf("%q is not a JSON value", arg)
	}
	return b.Bytes(), nil
}

// jsonType names the JSON Schema type of v (decoded by encoding/json); a
// number without fraction is "integer".
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if v == math.Trunc(v) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}
