package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"unicode/utf8"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/schema"
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
	for i := range d.Tools {
		// "outputSchema": null means no schema, as many encoders write an
		// absent one; served as null, the TypeScript SDK's client refuses
		// the whole tools/list.
		if isAbsent(d.Tools[i].OutputSchema) {
			d.Tools[i].OutputSchema = nil
		}
	}
	p.requested = d.Permissions
	p.byName = make(map[string]*tool, len(d.Tools))
	guests := make(map[string]bool, len(d.Tools))
	for i, def := range d.Tools {
		t, err := compileTool(def)
		if err == nil && guests[def.Name] {
			err = errors.New("defined twice")
		}
		if err != nil {
			if def.Name == "" {
				return fmt.Errorf("tool #%d: %w", i+1, err)
			}
			return fmt.Errorf("tool %q: %w", def.Name, err)
		}
		guests[def.Name] = true
		// The policy's surface: served or not, and under which name.
		served, ok := p.surface.Serve(def.Name)
		if !ok {
			continue
		}
		switch {
		case !abi.ValidToolName(served):
			return fmt.Errorf("tool %q: the policy serves it as %q, which is not a tool name", def.Name, served)
		case abi.Reserved(served):
			return fmt.Errorf("tool %q: the name %s is the server's own (progressive discovery): rename it in the module or in the policy's tools section", def.Name, served)
		case p.byName[served] != nil:
			return fmt.Errorf("tool %q: the policy serves it as %q, the name of another of the plugin's tools", def.Name, served)
		}
		t.guest = def.Name
		t.def.Name = served
		p.byName[served] = t
		p.tools = append(p.tools, t.def)
	}
	if err := p.defineOffers(&d); err != nil {
		return fmt.Errorf("describe document: %w", err)
	}
	return nil
}

// compileTool checks one definition and compiles its schemas.
func compileTool(def abi.Tool) (*tool, error) {
	if err := abi.ValidateTool(&def); err != nil {
		return nil, err
	}
	t := &tool{def: def}
	if isAbsent(def.InputSchema) {
		return nil, errors.New("inputSchema is missing")
	}
	var err error
	if err = checkSchemaShape(def.InputSchema); err == nil {
		t.input, err = schema.Compile(def.InputSchema)
	}
	if err != nil {
		return nil, fmt.Errorf("inputSchema: %w", err)
	}
	if def.OutputSchema != nil {
		if err = checkSchemaShape(def.OutputSchema); err == nil {
			t.output, err = schema.CompileOutput(def.OutputSchema)
		}
		if err != nil {
			return nil, fmt.Errorf("outputSchema: %w", err)
		}
	}
	return t, nil
}

// checkSchemaShape checks what MCP and the official SDKs require of a
// tool's input and output schemas beyond JSON Schema itself: an object
// whose "type" is "object", whose "properties", if any, are each an object,
// and whose "required", if any, lists strings. The TypeScript SDK refuses a
// whole tools/list in which one schema breaks this (a boolean property
// schema such as {"a": true} among them), so one module would take every
// other module's tools away from that client.
func checkSchemaShape(raw json.RawMessage) error {
	// A map, not a struct: encoding/json matches struct fields without
	// regard to case, but JSON Schema keywords are case-sensitive, and a
	// schema with "Type": "object" constrains nothing.
	var in map[string]json.RawMessage
	if err := decodeObject(raw, &in); err != nil {
		return err
	}
	var typ any
	_ = json.Unmarshal(in["type"], &typ) // valid JSON, or absent: typ stays nil
	if typ != "object" {
		got, _ := json.Marshal(typ)
		return fmt.Errorf(`must have "type": "object", not %s`, got)
	}
	if p, ok := in["properties"]; ok {
		var props map[string]json.RawMessage
		if err := json.Unmarshal(p, &props); err != nil || props == nil {
			return errors.New(`"properties" is not an object`)
		}
		for name, v := range props {
			if v := bytes.TrimSpace(v); len(v) == 0 || v[0] != '{' {
				return fmt.Errorf(`property %q: the schema must be an object (write {} for true); got %s`, name, truncate(v))
			}
		}
	}
	if r, ok := in["required"]; ok {
		var names []string
		if err := json.Unmarshal(r, &names); err != nil || names == nil {
			return errors.New(`"required" is not an array of strings`)
		}
	}
	return nil
}

// truncate keeps a JSON value quoted in an error short.
func truncate(v []byte) []byte {
	if len(v) > 64 {
		return append(v[:64:64], "..."...)
	}
	return v
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
