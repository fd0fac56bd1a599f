package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"unicode/utf8"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/schema"
)

// define decodes the Describe document and validates every definition by
// the rules of ABI.md section 4.
func (p *Plugin) define(doc []byte) error {
	var d abi.Describe
	if err := decodeObject(doc, &d); err != nil {
		return fmt.Errorf("describe document: %w", err)
	}
	if len(d.Tools) > abi.MaxTools {
		return fmt.Errorf("describe document: %d tools, more than the %d allowed", len(d.Tools), abi.MaxTools)
	}
	if err := validatePermissions(d.Permissions); err != nil {
		return fmt.Errorf("describe document: permissions: %w", err)
	}
	p.tools, p.requested = d.Tools, d.Permissions
	p.byName = make(map[string]*tool, len(d.Tools))
	for i, def := range d.Tools {
		t, err := compileTool(def)
		if err == nil && p.byName[def.Name] != nil {
			err = errors.New("defined twice")
		}
		if err != nil {
			if def.Name == "" {
				return fmt.Errorf("tool #%d: %w", i+1, err)
			}
			return fmt.Errorf("tool %q: %w", def.Name, err)
		}
		p.byName[def.Name] = t
	}
	return nil
}

// compileTool checks one definition and compiles its schemas.
func compileTool(def abi.Tool) (*tool, error) {
	switch {
	case def.Name == "":
		return nil, errors.New("name is missing")
	case !abi.ValidToolName(def.Name):
		return nil, fmt.Errorf("name must be 1 to %d characters of [A-Za-z0-9_.-]", abi.MaxToolNameLen)
	}
	t := &tool{def: def}
	if isAbsent(def.InputSchema) {
		return nil, errors.New("inputSchema is missing")
	}
	// Compiling first is the quick way: a schema is usually found compiled
	// already, by its bytes, with ObjectType known, where decoding it again
	// to check its "type" costs 8 times as much. The checks run in their
	// order, so as to report the first problem, only for a schema that
	// fails.
	var err error
	if t.input, err = schema.Compile(def.InputSchema); err != nil || !t.input.ObjectType() {
		if terr := checkObjectType(def.InputSchema); terr != nil {
			return nil, terr
		}
		if err == nil {
			// Not expected: ObjectType and checkObjectType disagree.
			err = errors.New(`"type" is not "object"`)
		}
		return nil, fmt.Errorf("inputSchema: %w", err)
	}
	if !isAbsent(def.OutputSchema) {
		if err := decodeObject(def.OutputSchema, &struct{}{}); err != nil {
			return nil, fmt.Errorf("outputSchema: %w", err)
		}
		if t.output, err = schema.Compile(def.OutputSchema); err != nil {
			return nil, fmt.Errorf("outputSchema: %w", err)
		}
	}
	return t, nil
}

// checkObjectType checks that an input schema is a JSON object whose
// "type" is "object".
func checkObjectType(raw json.RawMessage) error {
	// A map, not a struct: encoding/json matches struct fields without
	// regard to case, but JSON Schema keywords are case-sensitive, and a
	// schema with "Type": "object" constrains nothing.
	var in map[string]json.RawMessage
	if err := decodeObject(raw, &in); err != nil {
		return fmt.Errorf("inputSchema: %w", err)
	}
	var typ any
	_ = json.Unmarshal(in["type"], &typ) // valid JSON, or absent: typ stays nil
	if typ != "object" {
		got, _ := json.Marshal(typ)
		return fmt.Errorf(`inputSchema must have "type": "object", not %s`, got)
	}
	return nil
}

// isAbsent reports whether a JSON field was left out or null.
func isAbsent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// decodeObject decodes the JSON object doc into v, strictly except for
// unknown fields, which it ignores for forward compatibility (ABI.md section
// 4). Unlike encoding/json alone, it refuses invalid UTF-8, which
// encoding/json would silently replace.
func decodeObject(doc []byte, v any) error {
	if !utf8.Valid(doc) {
		return errors.New("not valid UTF-8")
	}
	trimmed := bytes.TrimLeft(doc, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return errors.New("not a JSON object")
	}
	err := json.Unmarshal(doc, v)
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return fmt.Errorf("%s: got %s, want %s", te.Field, te.Value, jsonKind(te.Type))
	}
	if err != nil {
		return fmt.Errorf("not valid JSON: %w", err)
	}
	return nil
}

// jsonKind names the JSON type that decodes into a Go type.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Interface:
		return "any value"
	}
	return "number"
}
