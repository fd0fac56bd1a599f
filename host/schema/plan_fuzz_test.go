package schema

import (
	"bytes"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// FuzzPlan checks plans against jsonschema on schemas and documents made
// from the fuzzer's bytes (see gen): schemas of the subset a plan handles,
// with now and then a keyword just outside it, and documents shaped by the
// schema so that about half are valid. A schema of the subset must get a
// plan, one outside must not, and a plan must decide every document as
// jsonschema does: above all, it must never accept one that jsonschema
// refuses.
func FuzzPlan(f *testing.F) {
	for _, seed := range []string{
		"", "\x00", "\x05\x01\x02\x03\x04\x05\x06\x07\x08\x09",
		"\x03\x00\x01\x02\x03\x00\x01\x02\x03\x00\x01\x02",
		"\x04\x01\x00\x02\x01\x03\x00\x04\x01\x05\x00\x06\x07\x08\x09\x0a\x0b\x0c",
		"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4\xf3\xf2\xf1\xf0",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkPlan(t, data) })
}

// TestPlanAgrees is FuzzPlan on random bytes, so that every run of the
// tests checks a few thousand schemas.
func TestPlanAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	var planned, valid, invalid, walked int
	for range n {
		data := make([]byte, 16+r.IntN(96))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		c := checkPlan(t, data)
		if c.planned {
			planned, valid, invalid, walked = planned+1, valid+c.valid, invalid+c.invalid, walked+c.walked
		}
	}
	t.Logf("%d of %d schemas got a plan; their documents: %d valid (%d of them accepted from the bytes), %d invalid",
		planned, n, valid, walked, invalid)
	// Most schemas are of the subset, and their documents are valid and
	// invalid in good measure, and validDocument accepts most valid ones
	// itself: otherwise the generator went wrong, or the byte walk declines
	// what it should handle, and the checks checked little.
	if planned < n/3 || valid < planned || invalid < planned/2 || walked < valid/2 {
		t.Errorf("%d of %d schemas got a plan; their documents: %d valid (%d accepted from the bytes), %d invalid",
			planned, n, valid, walked, invalid)
	}
}

// planCheck is what checkPlan checked: whether the schema got a plan, how
// many documents were valid and invalid, and how many valid ones the plan
// accepted from their bytes (validDocument).
type planCheck struct {
	planned                bool
	valid, invalid, walked int
}

// checkPlan makes a schema and documents from data and checks the plan, if
// any, against jsonschema: what it says of a decoded document, and what it
// says reading the document's bytes, of each document and of mutations of
// it that need not be JSON.
func checkPlan(t *testing.T, data []byte) (c planCheck) {
	g := &gen{b: data}
	sdoc := g.schema(0, true)
	raw, err := json.Marshal(sdoc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compile(raw)
	if err != nil {
		return c // not a valid schema: nothing to plan
	}
	if (s.plan != nil) == g.outside {
		t.Fatalf("schema %s: plan %v, but outside the subset: %v", raw, s.plan != nil, g.outside)
	}
	for range 4 {
		doc, err := json.Marshal(g.doc(sdoc, 0))
		if err != nil {
			t.Fatal(err)
		}
		v, err := decode(doc)
		if err != nil {
			t.Fatalf("decode %s: %v", doc, err)
		}
		want := s.compiled.Validate(v) == nil
		if s.plan != nil {
			if got := s.plan.valid(v); got != want {
				t.Fatalf("schema %s, document %s: plan says valid %v, jsonschema %v", raw, doc, got, want)
			}
			if s.plan.validDocument(doc) {
				if !want {
					t.Fatalf("schema %s, document %s: valid from its bytes, jsonschema says invalid", raw, doc)
				}
				c.walked++
			}
			for _, m := range mutations(doc, g) {
				checkWalk(t, raw, s, m)
			}
		}
		if got := s.Validate(doc) == nil; got != want {
			t.Fatalf("schema %s, document %s: Validate says valid %v, jsonschema %v", raw, doc, got, want)
		}
		if want {
			c.valid++
		} else {
			c.invalid++
		}
	}
	c.planned = s.plan != nil
	return c
}

// mutations returns variants of doc that the generator's bytes choose: cut
// short, a byte replaced, a byte inserted, a member repeated, spaced out.
func mutations(doc []byte, g *gen) [][]byte {
	if len(doc) == 0 {
		return nil
	}
	at := g.n(len(doc))
	interesting := []byte("\"\\{}[],:-+.eE0u \x01\x80\xff")
	c := interesting[g.n(len(interesting))]
	out := [][]byte{
		doc[:at],
		append(append(bytes.Clone(doc[:at]), c), doc[at+1:]...),
		append(append(bytes.Clone(doc[:at]), c), doc[at:]...),
		bytes.ReplaceAll(doc, []byte(":"), []byte(" : ")),
		// The same string, escaped: its bytes are no longer its value.
		bytes.Replace(doc, []byte("a"), []byte(`\u0061`), 1),
	}
	// {"a":1,...} -> {"a":1,"a":1,...}: a repeated name.
	if i := bytes.IndexByte(doc, ','); doc[0] == '{' && i > 0 {
		out = append(out, append(append(bytes.Clone(doc[:i+1]), doc[1:i+1]...), doc[i+1:]...))
	}
	return out
}

// checkWalk checks that validDocument says true of doc only if decode
// accepts it and the plan accepts its value (and so jsonschema does).
func checkWalk(t *testing.T, raw []byte, s *Schema, doc []byte) {
	t.Helper()
	if !s.plan.validDocument(doc) {
		return
	}
	v, err := decode(doc)
	if err != nil {
		t.Fatalf("schema %s, document %q: valid from its bytes, but decode refuses it: %v", raw, doc, err)
	}
	if !s.plan.valid(v) || s.compiled.Validate(v) != nil {
		t.Fatalf("schema %s, document %q: valid from its bytes, but not decoded", raw, doc)
	}
}

// gen makes schemas and documents from a fuzzer's bytes, each byte a
// choice. Once the bytes run out every choice is the first, and no
// optional part is added, so that every input makes a finite schema.
type gen struct {
	b []byte
	// outside: the schema uses something a plan does not handle.
	outside bool
}

func (g *gen) n(k int) int {
	if len(g.b) == 0 {
		return 0
	}
	c := int(g.b[0]) % k
	g.b = g.b[1:]
	return c
}

// maybe is true one time in k, and never once the bytes run out.
func (g *gen) maybe(k int) bool { return len(g.b) > 0 && g.n(k) == 0 }

func pick[T any](g *gen, from []T) T { return from[g.n(len(from))] }

// The pools values are drawn from, small so that documents often match
// schemas. Numbers are written as text, as schemas and documents have
// them: integers written as decimals or with exponents, numbers around the
// int64 range, where the plan reads numbers another way, and beyond the
// range of float64.
var (
	names    = []string{"a", "b", "c", "é", "a b"}
	strs     = []string{"", "a", "ab", "abc", "é", "aé", "日本語", "😀", "b", "12", "a\nb"}
	nums     = []string{"0", "-0", "1", "-1", "2", "3", "10", "1.0", "1e0", "1e2", "1E+2", "1.5", "0.1", "1e-1", "2.50", "-1.5", "4503599627370496", "9007199254740993", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "123456789012345678", "1234567890123456789", "1e400", "-1e-400", "0.30000000000000004", "99999999999999999999.5"}
	counts   = []string{"0", "1", "2", "3", "1.0", "2e0", "18446744073709551617", "10000000000000000000"}
	patterns = []string{"^a", "b$", "é", "^[0-9]*$", "", "^.{2}$"}
	typeList = []string{"null", "boolean", "number", "integer", "string", "array", "object"}
	formats  = []string{"date-time", "uri", "email", "regex", "no-such-format"}
	dialects = []string{"https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft/2020-12/schema#"}
	// Dialects other than 2020-12 have no plan.
	otherDialects = []string{"http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2019-09/schema", "http://json-schema.org/draft-04/schema#"}
)

const maxGenDepth = 3

// schema makes a schema: a boolean one at times, otherwise an object of a
// few keywords.
func (g *gen) schema(depth int, root bool) any {
	if !root && g.maybe(8) {
		return g.n(2) == 0
	}
	s := map[string]any{}
	if root && g.maybe(4) {
		if g.maybe(3) {
			s["$schema"], g.outside = pick(g, otherDialects), true
		} else {
			s["$schema"] = pick(g, dialects)
		}
	}
	for range 1 + g.n(5) {
		g.keyword(s, depth)
	}
	return s
}

// keyword adds a keyword to s, unless s has it already.
func (g *gen) keyword(s map[string]any, depth int) {
	var k string
	var v any
	sub := func() any {
		if depth >= maxGenDepth {
			return map[string]any{}
		}
		return g.schema(depth+1, false)
	}
	// Whether s is outside the subset so far: a keyword that is not added
	// does not count, nor do its subschemas.
	before := g.outside
	outside := false
	c := g.n(64)
	if c >= 24 {
		c %= 17 // keywords of the subset, most of the time
	}
	switch c {
	case 0, 1:
		k = "type"
		if g.maybe(3) {
			i := g.n(len(typeList))
			v = []string{typeList[i], typeList[(i+1+g.n(len(typeList)-1))%len(typeList)]}
		} else {
			v = pick(g, typeList)
		}
	case 2, 3:
		k = "properties"
		props := map[string]any{}
		for range 1 + g.n(3) {
			name, was := pick(g, names), g.outside
			if p := sub(); props[name] == nil {
				props[name] = p
			} else {
				g.outside = was // a repeated name replaces nothing
			}
		}
		v = props
	case 4:
		k, v = "required", []string{pick(g, names)}
	case 5:
		k = "additionalProperties"
		if g.maybe(2) {
			v = g.n(2) == 0
		} else {
			v = sub()
		}
	case 6:
		k, v = "items", sub()
	case 7:
		k = "enum"
		var e []any
		for range 1 + g.n(3) {
			e = append(e, g.scalar())
		}
		if g.maybe(6) {
			e, outside = append(e, []any{g.scalar()}), true
		}
		v = e
	case 8:
		k, v = "const", g.scalar()
		if g.maybe(6) {
			v, outside = map[string]any{"a": v}, true
		}
	case 9, 10:
		k, v = pick(g, []string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}), json.Number(pick(g, counts))
	case 11, 12:
		k, v = pick(g, []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}), json.Number(pick(g, nums))
	case 13:
		k, v = "pattern", pick(g, patterns)
	case 14:
		k, v = "format", pick(g, formats)
	case 15, 16:
		k = pick(g, []string{"title", "description", "$comment", "default", "examples", "deprecated", "readOnly", "writeOnly"})
		switch k {
		case "default":
			v = g.scalar()
		case "examples":
			v = []any{g.scalar()}
		case "deprecated", "readOnly", "writeOnly":
			v = g.n(2) == 0
		default:
			v = pick(g, strs)
		}
	default:
		// Keywords a plan does not handle.
		outside = true
		switch c {
		case 17:
			k, v = "$ref", "#"
		case 18:
			k = pick(g, []string{"anyOf", "allOf", "oneOf", "prefixItems"})
			v = []any{sub()}
		case 19:
			k, v = pick(g, []string{"not", "contains", "propertyNames", "if", "unevaluatedProperties", "unevaluatedItems"}), sub()
		case 20:
			k, v = "patternProperties", map[string]any{pick(g, patterns): sub()}
		case 21:
			k, v = pick(g, []string{"uniqueItems", "x-unknown"}), true
		case 22:
			k, v = "multipleOf", json.Number(pick(g, []string{"2", "0.5"}))
		default:
			k = pick(g, []string{"$defs", "dependentRequired", "$id"})
			v = map[string]any{"$defs": map[string]any{"a": map[string]any{}}, "dependentRequired": map[string]any{"a": []string{"b"}}, "$id": "https://example.com/s"}[k]
		}
	}
	if _, ok := s[k]; ok {
		g.outside = before
		return
	}
	s[k] = v
	g.outside = g.outside || outside
}

// scalar is a value of an enum or a const.
func (g *gen) scalar() any {
	switch g.n(5) {
	case 0:
		return nil
	case 1:
		return g.n(2) == 0
	case 2, 3:
		return pick(g, strs)
	}
	return json.Number(pick(g, nums))
}

// doc makes a document for schema s: one that follows s, mostly, with a
// part that does not at times, or one that ignores s.
func (g *gen) doc(s any, depth int) any {
	m, _ := s.(map[string]any)
	if m == nil || depth > maxGenDepth+1 || g.maybe(6) {
		return g.anyValue(depth)
	}
	if e, ok := m["enum"].([]any); ok && g.maybe(2) {
		return pick(g, e)
	}
	if c, ok := m["const"]; ok && g.maybe(2) {
		return c
	}
	var t string
	switch ts := m["type"].(type) {
	case string:
		t = ts
	case []string:
		t = pick(g, ts)
	default:
		t = pick(g, typeList)
	}
	switch t {
	case "object":
		props, _ := m["properties"].(map[string]any)
		obj := map[string]any{}
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if g.maybe(2) {
				obj[name] = g.doc(props[name], depth+1)
			}
		}
		if req, ok := m["required"].([]string); ok && !g.maybe(4) {
			for _, name := range req {
				if _, ok := obj[name]; !ok {
					obj[name] = g.doc(props[name], depth+1)
				}
			}
		}
		if g.maybe(4) {
			obj[pick(g, names)] = g.doc(m["additionalProperties"], depth+1)
		}
		return obj
	case "array":
		arr := []any{}
		for range g.n(4) {
			arr = append(arr, g.doc(m["items"], depth+1))
		}
		return arr
	case "string":
		return pick(g, strs)
	case "number", "integer":
		return json.Number(pick(g, nums))
	case "boolean":
		return g.n(2) == 0
	}
	return nil
}

// anyValue makes a value of any type.
func (g *gen) anyValue(depth int) any {
	switch g.n(7) {
	case 0:
		if depth <= maxGenDepth {
			return map[string]any{pick(g, names): g.anyValue(depth + 1)}
		}
	case 1:
		if depth <= maxGenDepth {
			return []any{g.anyValue(depth + 1)}
		}
	case 2:
		return pick(g, strs)
	case 3, 4:
		return json.Number(pick(g, nums))
	}
	return g.scalar()
}
