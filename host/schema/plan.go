package schema

import (
	"encoding/json"
	"math/big"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A plan validates documents against a schema that uses only the few
// keywords nearly every tool schema is made of, without jsonschema. Every
// tool call validates its arguments, and in the server's profile
// jsonschema's validator took 2 to 3 µs a call for the echo tool's
// one-property schema; its frames are also large, deep enough to overflow
// the small stack of the new goroutine go-sdk runs each request on (the MCP
// adapter grows that stack once, early: internal/mcpadapter/stack.go). A
// plan allocates nothing in the common case and has small frames: with one,
// Validate takes a fifth to a half of the time it takes without, decoding
// included (BenchmarkPlan).
//
// A plan only ever says "valid": when it finds a problem, or meets anything
// it does not handle, Validate runs jsonschema, which words the message and
// has the last word. What must hold is that a document the plan accepts,
// jsonschema accepts too; on its subset the plan also refuses what
// jsonschema refuses (FuzzPlan and TestPlanAgrees check both), so that
// jsonschema only runs for documents that are refused.
//
// To stay exact, a plan is derived only from a schema made entirely of the
// keywords below, at every level, in the 2020-12 dialect (the default), and
// it takes every value it checks against from jsonschema's compiled form of
// the schema, not from the document: the bounds as jsonschema's rationals,
// the lengths as jsonschema read them, the patterns as jsonschema's own
// compiled regular expressions. Any other keyword, a known one or not, and
// the schema gets no plan.

// planKeywords are the keywords a plan handles.
var planKeywords = map[string]bool{
	"type": true, "enum": true, "const": true,
	"properties": true, "required": true, "additionalProperties": true,
	"minProperties": true, "maxProperties": true,
	"items": true, "minItems": true, "maxItems": true,
	"minLength": true, "maxLength": true, "pattern": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	// Annotations, which assert nothing. format only annotates in 2020-12
	// unless the compiler is told to assert it, which plain checks.
	"title": true, "description": true, "default": true, "examples": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "$comment": true,
	"format": true,
}

// draft2020 are the "$schema" values of the 2020-12 dialect that a plan's
// root may name.
var draft2020 = map[string]bool{
	"https://json-schema.org/draft/2020-12/schema":  true,
	"https://json-schema.org/draft/2020-12/schema#": true,
	"http://json-schema.org/draft/2020-12/schema":   true,
	"http://json-schema.org/draft/2020-12/schema#":  true,
}

// node is the plan of one schema or subschema. The zero node accepts
// everything.
type node struct {
	never bool  // the schema false
	types types // 0 for any type
	// enums are the enum and const of the schema, each of which the value
	// must be a member of.
	enums []*members

	// Objects.
	minProps, maxProps *int
	required           []string
	props              map[string]*node // a name's entry may be nil: anything
	// additional is what members not in props must be, nil for anything.
	additional *node

	// Arrays.
	minItems, maxItems *int
	items              *node

	// Strings.
	minLength, maxLength *int
	pattern              jsonschema.Regexp

	// Numbers.
	bounds []bound
}

// types is a set of JSON Schema type names.
type types uint8

const (
	tNull types = 1 << iota
	tBoolean
	tNumber
	tInteger
	tString
	tArray
	tObject
)

var typeNames = map[string]types{
	"null": tNull, "boolean": tBoolean, "number": tNumber, "integer": tInteger,
	"string": tString, "array": tArray, "object": tObject,
}

// members is an enum, or a const as an enum of one, of scalars only.
type members struct {
	null, yes, no bool // null, true, false are members
	strings       []string
	numbers       []number
}

// number is a number of a schema, as the rational jsonschema compares
// with, and as an int64 when it is an integer that fits, to compare without
// allocating.
type number struct {
	rat   *big.Rat
	i     int64
	isInt bool
}

func newNumber(r *big.Rat) number {
	n := number{rat: r}
	if r.IsInt() && r.Num().IsInt64() {
		n.i, n.isInt = r.Num().Int64(), true
	}
	return n
}

// bound is minimum, maximum, exclusiveMinimum or exclusiveMaximum: a number
// compares with n to want, or to 0 as well when orEqual.
type bound struct {
	n       number
	want    int
	orEqual bool
}

// newPlan returns the plan of the schema document doc, which compiled to
// sch, or nil if the schema uses anything a plan does not handle.
func newPlan(doc any, sch *jsonschema.Schema) *node {
	if obj, ok := doc.(map[string]any); ok {
		if s, ok := obj["$schema"]; ok {
			if name, _ := s.(string); !draft2020[name] {
				return nil
			}
		}
	}
	n, ok := derive(doc, sch, true)
	if !ok {
		return nil
	}
	if n == nil {
		n = new(node)
	}
	return n
}

// derive returns the plan of the (sub)schema document doc, compiled to s,
// or nil for a schema that accepts everything; ok is false if it has no
// plan.
func derive(doc any, s *jsonschema.Schema, root bool) (_ *node, ok bool) {
	if s == nil || s.DraftVersion != 2020 {
		return nil, false
	}
	if b, isBool := doc.(bool); isBool {
		if s.Bool == nil || *s.Bool != b {
			return nil, false
		}
		if b {
			return nil, true
		}
		return &node{never: true}, true
	}
	obj, isObj := doc.(map[string]any)
	if isObj && len(obj) == 0 && s.Bool != nil && *s.Bool {
		return nil, true // jsonschema compiles {} as true
	}
	if !isObj || s.Bool != nil || !plain(s) {
		return nil, false
	}
	for k := range obj {
		if !planKeywords[k] && (k != "$schema" || !root) {
			return nil, false
		}
	}
	// The plan shares what it reads with the compiled schema, never the
	// schema itself, which the cache holds weakly.
	n := &node{
		minProps: s.MinProperties, maxProps: s.MaxProperties, required: s.Required,
		minItems: s.MinItems, maxItems: s.MaxItems,
		minLength: s.MinLength, maxLength: s.MaxLength, pattern: s.Pattern,
	}
	if s.Types != nil {
		for _, name := range s.Types.ToStrings() {
			n.types |= typeNames[name]
		}
	}
	if s.Enum != nil {
		if n.enums, ok = appendMembers(n.enums, s.Enum.Values); !ok {
			return nil, false
		}
	}
	if s.Const != nil {
		if n.enums, ok = appendMembers(n.enums, []any{*s.Const}); !ok {
			return nil, false
		}
	}
	for _, b := range []struct {
		r       *big.Rat
		want    int
		orEqual bool
	}{{s.Minimum, 1, true}, {s.Maximum, -1, true}, {s.ExclusiveMinimum, 1, false}, {s.ExclusiveMaximum, -1, false}} {
		if b.r != nil {
			n.bounds = append(n.bounds, bound{newNumber(b.r), b.want, b.orEqual})
		}
	}
	if props, _ := obj["properties"].(map[string]any); props != nil {
		n.props = make(map[string]*node, len(props))
		for name, sub := range props {
			if n.props[name], ok = derive(sub, s.Properties[name], false); !ok {
				return nil, false
			}
		}
	}
	if ap, present := obj["additionalProperties"]; present {
		if n.additional, ok = deriveAdditional(ap, s.AdditionalProperties); !ok {
			return nil, false
		}
	}
	if items, present := obj["items"]; present {
		if n.items, ok = derive(items, s.Items2020, false); !ok {
			return nil, false
		}
	}
	if n.accepts() {
		return nil, true
	}
	return n, true
}

// deriveAdditional derives additionalProperties, which jsonschema compiles
// to a bool rather than a boolean schema.
func deriveAdditional(doc, compiled any) (*node, bool) {
	if b, isBool := doc.(bool); isBool {
		if c, ok := compiled.(bool); !ok || c != b {
			return nil, false
		}
		if b {
			return nil, true
		}
		return &node{never: true}, true
	}
	s, _ := compiled.(*jsonschema.Schema)
	return derive(doc, s, false)
}

// plain reports whether the compiled schema s has none of the keywords a
// plan does not handle. The keywords of the document are checked already;
// this makes sure that jsonschema read them the way derive does, and no
// other way (an asserted format, say).
func plain(s *jsonschema.Schema) bool {
	return s.Ref == nil && s.RecursiveRef == nil && s.DynamicRef == nil &&
		s.Not == nil && len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 &&
		s.If == nil && s.Then == nil && s.Else == nil && s.Format == nil &&
		s.PropertyNames == nil && len(s.PatternProperties) == 0 && len(s.Dependencies) == 0 &&
		len(s.DependentRequired) == 0 && len(s.DependentSchemas) == 0 && s.UnevaluatedProperties == nil &&
		!s.UniqueItems && s.Contains == nil && s.MinContains == nil && s.MaxContains == nil &&
		s.Items == nil && s.AdditionalItems == nil && len(s.PrefixItems) == 0 && s.UnevaluatedItems == nil &&
		s.ContentEncoding == nil && s.ContentMediaType == nil && s.ContentSchema == nil &&
		s.MultipleOf == nil && len(s.Extensions) == 0
}

// appendMembers appends the enum of values, if they are all scalars.
func appendMembers(enums []*members, values []any) ([]*members, bool) {
	m := new(members)
	for _, v := range values {
		switch v := v.(type) {
		case nil:
			m.null = true
		case bool:
			m.yes, m.no = m.yes || v, m.no || !v
		case string:
			m.strings = append(m.strings, v)
		case json.Number:
			r, ok := new(big.Rat).SetString(string(v))
			if !ok {
				return nil, false
			}
			m.numbers = append(m.numbers, newNumber(r))
		default:
			return nil, false
		}
	}
	return append(enums, m), true
}

// accepts reports whether n accepts every value, as the schema {} does.
func (n *node) accepts() bool {
	return !n.never && n.types == 0 && n.enums == nil &&
		n.minProps == nil && n.maxProps == nil && n.required == nil && n.props == nil && n.additional == nil &&
		n.minItems == nil && n.maxItems == nil && n.items == nil &&
		n.minLength == nil && n.maxLength == nil && n.pattern == nil && n.bounds == nil
}
