// Package jsonschema derives JSON Schemas (dialect 2020-12) from Go types by
// reflection. It follows encoding/json's rules for field names, embedding and
// omission, so that a derived schema describes what json.Unmarshal accepts
// (Input) or what json.Marshal produces (Output).
//
// It lives in the guest SDK and depends only on the standard library, because
// it is compiled into every Go guest module.
package jsonschema

import (
	"bytes"
	"encoding/json"
)

// Schema is the subset of JSON Schema that derivation produces. Fields are
// declared in the order they are written, so that documents read naturally:
// type first, then annotations, then constraints, then children.
type Schema struct {
	Type             Types             `json:"type,omitempty"`
	Title            string            `json:"title,omitempty"`
	Description      string            `json:"description,omitempty"`
	Default          json.RawMessage   `json:"default,omitempty"`
	Enum             []json.RawMessage `json:"enum,omitempty"`
	Format           string            `json:"format,omitempty"`
	Pattern          string            `json:"pattern,omitempty"`
	MinLength        *uint64           `json:"minLength,omitempty"`
	MaxLength        *uint64           `json:"maxLength,omitempty"`
	ContentEncoding  string            `json:"contentEncoding,omitempty"`
	Minimum          json.Number       `json:"minimum,omitempty"`
	ExclusiveMinimum json.Number       `json:"exclusiveMinimum,omitempty"`
	Maximum          json.Number       `json:"maximum,omitempty"`
	ExclusiveMaximum json.Number       `json:"exclusiveMaximum,omitempty"`
	MultipleOf       json.Number       `json:"multipleOf,omitempty"`
	Items            *Schema           `json:"items,omitempty"`
	MinItems         *uint64           `json:"minItems,omitempty"`
	MaxItems         *uint64           `json:"maxItems,omitempty"`
	UniqueItems      bool              `json:"uniqueItems,omitempty"`
	Properties       *Properties       `json:"properties,omitempty"`
	Required         []string          `json:"required,omitempty"`
	// AdditionalProperties is nil (absent), false, or a *Schema.
	AdditionalProperties any `json:"additionalProperties,omitempty"`
}

// Types is the "type" keyword. One type is written as a string, several as
// an array, as JSON Schema allows.
type Types []string

// MarshalJSON writes a single type as a plain string.
func (t Types) MarshalJSON() ([]byte, error) {
	if len(t) == 1 {
		return json.Marshal(t[0])
	}
	return json.Marshal([]string(t))
}

// Has reports whether name is one of the types.
func (t Types) Has(name string) bool {
	for _, n := range t {
		if n == name {
			return true
		}
	}
	return false
}

// Property is one named entry of "properties".
type Property struct {
	Name   string
	Schema *Schema
}

// Properties keeps struct fields in declaration order; a Go map would sort
// them, and a model reads the schema in the order the author chose.
type Properties []Property

// MarshalJSON writes the properties as an object in declaration order.
func (p Properties) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, prop := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := json.Marshal(prop.Name)
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		s, err := json.Marshal(prop.Schema)
		if err != nil {
			return nil, err
		}
		b.Write(s)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// nullable adds "null" to the schema's types, for values that encoding/json
// writes as null (nil pointers, slices and maps). A schema with no type
// already accepts null.
func (s *Schema) nullable() {
	if len(s.Type) == 0 || s.Type.Has("null") {
		return
	}
	s.Type = append(s.Type, "null")
	if s.Enum != nil {
		s.Enum = append(s.Enum, json.RawMessage("null"))
	}
}

// notNullable undoes nullable, for fields that omitempty drops when nil.
func (s *Schema) notNullable() {
	if !s.Type.Has("null") || len(s.Type) == 1 {
		return
	}
	types := s.Type[:0:0]
	for _, t := range s.Type {
		if t != "null" {
			types = append(types, t)
		}
	}
	s.Type = types
	if s.Enum != nil {
		enum := s.Enum[:0:0]
		for _, e := range s.Enum {
			if string(e) != "null" {
				enum = append(enum, e)
			}
		}
		s.Enum = enum
	}
}
