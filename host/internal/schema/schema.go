// Package schema compiles the JSON Schemas of tool definitions and validates
// documents against them, with messages a model can read and act on.
//
// A schema follows the dialect its "$schema" names, draft-07 or 2020-12;
// without one it is 2020-12, as MCP specifies. A schema may only refer to
// itself: every reference to another document, remote or local, is refused
// when the schema compiles, so that loading a tool never touches the
// network or the filesystem. Beyond what JSON Schema requires, a schema
// must also compile in the validators of the official MCP clients, and
// mean the same there (portable.go, pattern.go).
//
// Numbers in schemas and documents must have an exponent within ±400: the
// validator computes with exact rationals, whose cost grows with the
// exponent, and a bound keeps a hostile document from buying seconds of CPU
// with a few bytes. Objects in schemas and documents must not repeat a
// member name: parsers differ on which value counts.
package schema

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// location is the URL a schema is compiled under. Relative references in a
// schema without "$id" resolve against it, and are refused like any other.
const location = "wasmcp:///schema.json"

// maxProblems is how many validation problems an error lists; a model needs
// the first few to correct its input, not a page of them.
const maxProblems = 5

// Schema is a compiled JSON Schema. It is safe for concurrent use.
type Schema struct {
	compiled   *jsonschema.Schema
	objectType bool
}

// Compile compiles the schema document raw. Documents with the same bytes,
// or the same JSON once object members are sorted and spacing is ignored,
// share one compiled form, kept only while a Schema of it is in use (see
// cache.go).
func Compile(raw json.RawMessage) (*Schema, error) { return compileWith(compiled, raw) }

// CompileOutput compiles the output schema document raw, which is held to
// what the official clients check of a result: "format" is asserted, as
// their validators do, and a fractional "multipleOf", which they check in
// floating point (19.99 is not a multiple of 0.01 there), is refused. A
// result they would refuse never reaches them as one (the call fails with
// a tool error instead).
func CompileOutput(raw json.RawMessage) (*Schema, error) { return compileWith(compiledOutput, raw) }

func compileWith(c *cache, raw json.RawMessage) (*Schema, error) {
	d, err := c.get(raw)
	if err != nil {
		return nil, err
	}
	return &Schema{compiled: d.sch, objectType: d.objectType}, nil
}

// ObjectType reports whether the document is an object whose "type" is
// the string "object", as MCP requires of a tool's input schema. It is
// known from the compilation, so that checking it costs nothing more.
func (s *Schema) ObjectType() bool { return s.objectType }

// decodeSchema decodes a schema document, with the errors Compile gives.
func decodeSchema(raw []byte) (any, error) {
	doc, err := decode(raw)
	if se, ok := errors.AsType[*syntaxError](err); ok {
		return nil, fmt.Errorf("schema is not valid JSON: %w", se.err)
	} else if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return doc, nil
}

// compileDoc compiles a decoded schema document, an output schema's if
// output is set.
func compileDoc(doc any, output bool) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if output {
		c.AssertFormat()
	}
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(location, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(location)
	if err != nil {
		return nil, errors.New(strings.ReplaceAll(compileMessage(err), location, "schema"))
	}
	if err := checkPortable(doc, output); err != nil {
		return nil, err
	}
	return sch, nil
}

// refuseLoader is the loader of every compiler: the only documents a schema
// may use are itself and the meta-schemas built into jsonschema, which are
// found before any loader is asked.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("references to other documents are not allowed (%s)", url)
}

// compileMessage words a compile error without jsonschema's wrapping of
// the loader error, whose own message already says what went wrong.
func compileMessage(err error) string {
	if le, ok := errors.AsType[*jsonschema.LoadURLError](err); ok {
		return le.Err.Error()
	}
	if se, ok := errors.AsType[*jsonschema.SchemaValidationError](err); ok {
		if ve, ok := errors.AsType[*jsonschema.ValidationError](se.Err); ok {
			return "schema is not valid against its meta-schema: " + problems(ve)
		}
	}
	return err.Error()
}

// Validate validates the JSON document doc. Whatever the schema says, an
// object with two members of the same name is refused, since parsers differ
// on which one counts (`duplicate key "a" at /x`), and so is a number with an
// exponent beyond ±400 (see maxExponent). Otherwise the error lists the
// first problems, one per location, such as
//
//	at /count: got string, want integer; at (root): missing property 'name'
func (s *Schema) Validate(doc json.RawMessage) error {
	v, err := decode(doc)
	if err != nil {
		return err
	}
	if err := s.compiled.Validate(v); err != nil {
		if ve, ok := errors.AsType[*jsonschema.ValidationError](err); ok {
			return errors.New(problems(ve))
		}
		return err
	}
	return nil
}

// problems lists the leaves of the detailed output of a validation error:
// the specific failures ("got string, want integer") rather than the
// keywords that group them ("allOf failed", "$ref failed"), deduplicated,
// sorted by location, at most maxProblems.
func problems(ve *jsonschema.ValidationError) string {
	type problem struct{ at, msg string }
	var found []problem
	var walk func(jsonschema.OutputUnit)
	walk = func(u jsonschema.OutputUnit) {
		if u.Error != nil {
			if ap, ok := u.Error.Kind.(*kind.AdditionalProperties); ok {
				slices.Sort(ap.Properties) // collected in map order
			}
			found = append(found, problem{u.InstanceLocation, u.Error.String()})
		}
		for _, c := range u.Errors {
			walk(c)
		}
	}
	walk(*ve.DetailedOutput())
	// jsonschema visits properties in map order: sort so that the same
	// document always gets the same message.
	slices.SortFunc(found, func(a, b problem) int {
		return cmp.Or(strings.Compare(a.at, b.at), strings.Compare(a.msg, b.msg))
	})
	// Deduplicated once sorted: a document can have millions of problems,
	// too many to compare each with all the others.
	found = slices.Compact(found)
	lines := make([]string, len(found))
	for i, p := range found {
		lines[i] = "at " + pointer(p.at) + ": " + p.msg
	}
	if n := len(lines); n > maxProblems {
		lines = append(lines[:maxProblems], fmt.Sprintf("and %d more", n-maxProblems))
	}
	return strings.Join(lines, "; ")
}

// pointer names the root of a document, whose JSON Pointer is empty.
func pointer(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}
