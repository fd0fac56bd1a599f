package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"
)

// Tool schemas go to clients as they are written, and the official clients
// compile them with validators of their own: the TypeScript SDK's client
// compiles every outputSchema of a tools/list with ajv (draft-07, strict
// off), and throws on the whole list if one does not compile, so that one
// module would take every other module's tools away from it. checkPortable
// refuses, once the host has compiled a schema, what ajv cannot compile or
// would read differently (ABI.md section 4 lists the rules):
//
//   - "$schema" only at the root, naming draft-07 or 2020-12;
//   - no identifiers ("$id", "$anchor", "$dynamicAnchor"), wherever ajv
//     looks for them: it keeps the identifiers of every schema a client
//     compiles in one registry, so that a second tool with the same "$id"
//     gets the first one's validator, or the list throws; and no "id",
//     draft-04's "$id", which ajv refuses;
//   - "$ref" and "$dynamicRef" are "#" and a JSON Pointer to a subschema of
//     the document, such as "#/$defs/name";
//   - keyword values of the types ajv requires, "enum" not empty, and
//     "nullable" (an OpenAPI keyword ajv knows) only beside "type", never
//     false beside type "null";
//   - patterns both Go and JavaScript read alike (see checkPattern);
//   - at most maxDepth nested subschemas, following references: ajv
//     compiles recursively, and overflows its stack on deep schemas.
//
// Every subschema either the host or ajv may read is checked, including
// those under keywords one dialect ignores.
func checkPortable(doc any, output bool) error {
	if err := findIdentifier(doc, ""); err != nil {
		return err
	}
	g := &graph{byPointer: map[string]int{}, output: output}
	if err := g.add(doc, 1); err != nil {
		return err
	}
	for _, r := range g.refs {
		target, err := g.resolve(r.ref)
		if err != nil {
			return fmt.Errorf("at %s: %w", pointer(r.at), err)
		}
		g.nodes[r.from].edges = append(g.nodes[r.from].edges, target)
	}
	_, err := g.height(0, 1)
	return err
}

// maxDepth is how deep subschemas may nest in each other, following
// references: the one in "properties" of the root is at depth 2. Tool
// schemas need a few levels, far fewer than overflow ajv's recursion.
const maxDepth = 64

// Dialects a schema may name in "$schema", as santhosh-tekuri/jsonschema
// matches them: without "http://" or "https://" and an empty fragment.
var dialects = map[string]bool{
	"json-schema.org/draft-07/schema":      true,
	"json-schema.org/draft/2020-12/schema": true,
}

// identifiers are the keywords that name a schema or a location in it.
var identifiers = []string{"$id", "$anchor", "$dynamicAnchor"}

// findIdentifier refuses an identifier in an object at, or in v, wherever
// ajv looks for them (json-schema-traverse, all keys): in every object
// value except those of keywords that hold data or numbers, and in arrays
// only under the keywords that hold schemas.
func findIdentifier(v any, at string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	for _, kw := range identifiers {
		if _, ok := m[kw]; ok {
			return fmt.Errorf(`at %s/%s: identifiers are not allowed: the TypeScript SDK's client registers them across every tool's schema, so that one can replace or refuse another; refer to a subschema as "#/$defs/name"`, at, escapePointer(kw))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		var err error
		switch v := m[k].(type) {
		case []any:
			if slices.Contains(arrayKeywords, k) {
				for i, e := range v {
					if err = findIdentifier(e, fmt.Sprintf("%s/%s/%d", at, k, i)); err != nil {
						break
					}
				}
			}
		case map[string]any:
			switch {
			case slices.Contains(mapKeywords, k):
				for _, name := range slices.Sorted(maps.Keys(v)) {
					if err = findIdentifier(v[name], at+"/"+escapePointer(k)+"/"+escapePointer(name)); err != nil {
						break
					}
				}
			case !slices.Contains(dataKeywords, k):
				err = findIdentifier(v, at+"/"+escapePointer(k))
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// dataKeywords are those whose values ajv never searches for identifiers.
var dataKeywords = []string{"const", "default", "enum", "exclusiveMaximum", "exclusiveMinimum", "format",
	"maxItems", "maxLength", "maxProperties", "maximum", "minItems", "minLength", "minProperties", "minimum",
	"multipleOf", "pattern", "required", "uniqueItems"}

// JSON kinds a keyword value may have, as a set.
type kinds uint8

const (
	kObject kinds = 1 << iota
	kArray
	kString
	kNumber
	kBoolean
	kSchema = kObject | kBoolean
)

// keywordKinds are the kinds of the values ajv's draft-07 vocabulary
// requires (a value of another kind makes ajv throw when it compiles), and
// those of the 2020-12 keywords that hold subschemas.
var keywordKinds = []struct {
	name  string
	kinds kinds
}{
	{"$ref", kString}, {"$dynamicRef", kString},
	{"type", kString | kArray}, {"nullable", kBoolean}, {"enum", kArray},
	{"multipleOf", kNumber}, {"maximum", kNumber}, {"minimum", kNumber},
	{"exclusiveMaximum", kNumber}, {"exclusiveMinimum", kNumber},
	{"maxLength", kNumber}, {"minLength", kNumber}, {"pattern", kString}, {"format", kString},
	{"maxProperties", kNumber}, {"minProperties", kNumber}, {"required", kArray},
	{"maxItems", kNumber}, {"minItems", kNumber}, {"uniqueItems", kBoolean},
	{"items", kSchema | kArray}, {"prefixItems", kArray}, {"allOf", kArray}, {"anyOf", kArray}, {"oneOf", kArray},
	{"properties", kObject}, {"patternProperties", kObject}, {"dependencies", kObject},
	{"dependentSchemas", kObject}, {"$defs", kObject}, {"definitions", kObject},
	{"additionalItems", kSchema}, {"additionalProperties", kSchema}, {"contains", kSchema},
	{"propertyNames", kSchema}, {"not", kSchema}, {"if", kSchema}, {"then", kSchema}, {"else", kSchema},
	{"unevaluatedItems", kSchema}, {"unevaluatedProperties", kSchema}, {"contentSchema", kSchema},
}

// Keywords whose value is a subschema, an array of them, or an object of
// them ("dependencies" also holds arrays of names, which are skipped).
var (
	schemaKeywords = []string{"additionalItems", "additionalProperties", "contains", "contentSchema",
		"else", "if", "items", "not", "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties"}
	arrayKeywords = []string{"allOf", "anyOf", "items", "oneOf", "prefixItems"}
	mapKeywords   = []string{"$defs", "definitions", "dependencies", "dependentSchemas", "patternProperties", "properties"}
)

// jsonTypes are the values of "type".
var jsonTypes = map[string]bool{"array": true, "boolean": true, "integer": true, "null": true,
	"number": true, "object": true, "string": true}

// graph holds the subschemas of a document, with edges to the subschemas
// in them and to the targets of their references.
type graph struct {
	output    bool // an output schema's (CompileOutput)
	nodes     []node
	byPointer map[string]int
	refs      []reference
	path      []string // reference tokens, escaped, of the value being read
}

type node struct {
	at     string // JSON Pointer
	edges  []int
	height int // 0 until known; -1 while on the path being measured
}

type reference struct {
	from int
	at   string
	ref  string
}

// add checks the subschema v, at g.path and depth, and those in it.
func (g *graph) add(v any, depth int) error {
	at := g.pointer()
	if depth > maxDepth {
		return fmt.Errorf("at %s: subschemas nest more than %d deep, which the official clients' validators cannot compile", pointer(at), maxDepth)
	}
	id := len(g.nodes)
	g.nodes = append(g.nodes, node{at: at})
	g.byPointer[at] = id
	if _, ok := v.(bool); ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("at %s: got %s, want a schema (an object or a boolean)", pointer(at), kindName(v))
	}
	if kw, err := check(m, depth, g.output); err != nil {
		return fmt.Errorf("at %s/%s: %w", at, escapePointer(kw), err)
	}
	for _, kw := range []string{"$ref", "$dynamicRef"} {
		if r, ok := m[kw].(string); ok {
			g.refs = append(g.refs, reference{id, at + "/" + kw, r})
		}
	}
	child := func(v any, tokens ...string) error {
		g.nodes[id].edges = append(g.nodes[id].edges, len(g.nodes))
		g.path = append(g.path, tokens...)
		err := g.add(v, depth+1)
		g.path = g.path[:len(g.path)-len(tokens)]
		return err
	}
	for _, kw := range schemaKeywords {
		if s, ok := m[kw]; ok && isSchema(s) {
			if err := child(s, kw); err != nil {
				return err
			}
		}
	}
	for _, kw := range arrayKeywords {
		a, _ := m[kw].([]any)
		for i, s := range a {
			if err := child(s, kw, fmt.Sprint(i)); err != nil {
				return err
			}
		}
	}
	for _, kw := range mapKeywords {
		o, _ := m[kw].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(o)) {
			if _, names := o[name].([]any); names && kw == "dependencies" {
				continue
			}
			if err := child(o[name], kw, escapePointer(name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// check applies the rules of one subschema to its own keywords, and
// returns the keyword that breaks one.
func check(m map[string]any, depth int, output bool) (string, error) {
	if n, ok := m["multipleOf"].(json.Number); ok && output {
		if f, err := n.Float64(); err == nil && f != math.Trunc(f) {
			return "multipleOf", fmt.Errorf("%s is fractional: the official clients' validators divide in floating point "+
				"and refuse multiples such as 19.99 of 0.01; use an integer, or none, in an output schema", n)
		}
	}
	if s, ok := m["$schema"]; ok {
		if depth > 1 {
			return "$schema", errors.New(`allowed only at the root`)
		}
		if !isDialect(s) {
			return "$schema", fmt.Errorf(`got %s, want draft-07 ("http://json-schema.org/draft-07/schema#") or 2020-12 ("https://json-schema.org/draft/2020-12/schema"), the dialects both the host and the official clients read alike`, quote(s))
		}
	}
	if _, ok := m["id"]; ok {
		return "id", errors.New(`draft-04's "$id" is not allowed: the TypeScript SDK's client cannot compile a schema with it`)
	}
	for _, kw := range keywordKinds {
		if v, ok := m[kw.name]; ok && kindOf(v)&kw.kinds == 0 {
			return kw.name, fmt.Errorf("got %s, want %s, as the official clients' validators require", kindName(v), kindNames(kw.kinds))
		}
	}
	if e, ok := m["enum"].([]any); ok && len(e) == 0 {
		return "enum", errors.New("must not be empty, or the TypeScript SDK's client cannot compile the schema")
	}
	types, err := typeNames(m["type"])
	if err != nil {
		return "type", err
	}
	if n, ok := m["nullable"]; ok {
		switch {
		case len(types) == 0:
			return "nullable", errors.New(`allowed only beside "type", or the TypeScript SDK's client cannot compile the schema`)
		case n == false && slices.Contains(types, "null"):
			return "nullable", errors.New(`false contradicts type "null"`)
		}
	}
	if p, ok := m["pattern"].(string); ok {
		if err := checkPattern(p); err != nil {
			return "pattern", err
		}
	}
	props, _ := m["patternProperties"].(map[string]any)
	for _, p := range slices.Sorted(maps.Keys(props)) {
		if err := checkPattern(p); err != nil {
			return "patternProperties", err
		}
	}
	return "", nil
}

// typeNames returns the names "type" lists, refusing one JSON does not
// have.
func typeNames(v any) ([]string, error) {
	var names []string
	switch v := v.(type) {
	case string:
		names = []string{v}
	case []any:
		for _, t := range v {
			s, _ := t.(string)
			names = append(names, s)
		}
	}
	for _, n := range names {
		if !jsonTypes[n] {
			return nil, fmt.Errorf("%q is not a JSON type", n)
		}
	}
	return names, nil
}

// resolve returns the subschema a reference names: "#" and a JSON
// Pointer, percent-decoded as ajv decodes it.
func (g *graph) resolve(ref string) (int, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	if ok {
		frag, _ = url.PathUnescape(frag)
	}
	if !ok || frag != "" && frag[0] != '/' {
		return 0, fmt.Errorf(`%q is not "#" followed by a JSON Pointer, such as "#/$defs/name"`, clip(ref))
	}
	tokens := strings.Split(frag, "/")[1:]
	for i, t := range tokens {
		tokens[i] = escapePointer(unescapePointer(t))
	}
	canon := ""
	if len(tokens) > 0 {
		canon = "/" + strings.Join(tokens, "/")
	}
	id, ok := g.byPointer[canon]
	if !ok {
		return 0, fmt.Errorf("%q does not name a subschema of this document", clip(ref))
	}
	return id, nil
}

// height measures the longest chain of subschemas from node n, on a path
// of length depth from the root, and refuses one beyond maxDepth. A
// reference back to a subschema on the path (a recursive schema) ends the
// chain, as it ends ajv's compilation.
func (g *graph) height(n, depth int) (int, error) {
	nd := &g.nodes[n]
	if depth > maxDepth {
		return 0, g.tooDeep(nd.at)
	}
	switch {
	case nd.height < 0:
		return 0, nil
	case nd.height == 0:
		nd.height = -1
		h := 0
		for _, c := range nd.edges {
			hc, err := g.height(c, depth+1)
			if err != nil {
				return 0, err
			}
			h = max(h, hc)
		}
		nd.height = h + 1
	}
	if depth-1+nd.height > maxDepth {
		return 0, g.tooDeep(nd.at)
	}
	return nd.height, nil
}

func (g *graph) tooDeep(at string) error {
	return fmt.Errorf("at %s: subschemas nest, following $ref, more than %d deep, which the official clients' validators cannot compile", pointer(at), maxDepth)
}

func (g *graph) pointer() string {
	if len(g.path) == 0 {
		return ""
	}
	return "/" + strings.Join(g.path, "/")
}

func isSchema(v any) bool {
	_, ok := v.(map[string]any)
	_, b := v.(bool)
	return ok || b
}

func isDialect(v any) bool {
	s, _ := v.(string)
	s, _ = strings.CutSuffix(s, "#")
	if rest, ok := strings.CutPrefix(s, "http://"); ok {
		s = rest
	} else {
		s, _ = strings.CutPrefix(s, "https://")
	}
	return dialects[s]
}

func kindOf(v any) kinds {
	switch v.(type) {
	case map[string]any:
		return kObject
	case []any:
		return kArray
	case string:
		return kString
	case json.Number:
		return kNumber
	case bool:
		return kBoolean
	}
	return 0
}

func kindName(v any) string {
	if v == nil {
		return "null"
	}
	return kindNames(kindOf(v))
}

func kindNames(k kinds) string {
	var names []string
	for _, n := range []struct {
		k    kinds
		name string
	}{{kObject, "object"}, {kArray, "array"}, {kString, "string"}, {kNumber, "number"}, {kBoolean, "boolean"}} {
		if k&n.k != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, " or ")
}

func quote(v any) string {
	b, _ := json.Marshal(v)
	return clip(string(b))
}

// unescapePointer decodes a JSON Pointer reference token.
var unescapePointer = strings.NewReplacer("~1", "/", "~0", "~").Replace
