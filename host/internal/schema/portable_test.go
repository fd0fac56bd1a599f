package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestPortableSchemas(t *testing.T) {
	table := readPortableTable(t)
	for name, raw := range table.Schemas.Portable {
		t.Run(name, func(t *testing.T) {
			if _, err := Compile(raw); err != nil {
				t.Errorf("%s: Compile = %v, want success", name, err)
			}
		})
	}
	for name, c := range table.Schemas.Refused {
		t.Run(name, func(t *testing.T) {
			if _, err := Compile(c.Schema); err == nil || !strings.Contains(err.Error(), c.Error) {
				t.Errorf("%s: Compile = %v, want an error containing %q", name, err, c.Error)
			}
		})
	}
}

// nested is a schema whose deepest subschema is at depth d (the root is
// at 1).
func nested(d int) string { return nestedAround(d, `{"type":"string"}`) }

// nestedAround puts leaf at depth d, each level with a property after it.
func nestedAround(d int, leaf string) string {
	s := leaf
	for range d - 1 {
		s = `{"type":"object","properties":{"a":` + s + `,"z":{}}}`
	}
	return s
}

// refChain is a schema whose $defs refer to each other in a chain of n.
func refChain(n int) string {
	var defs []string
	for i := range n {
		defs = append(defs, fmt.Sprintf(`"d%d":{"type":"object","properties":{"x":{"$ref":"#/$defs/d%d"}}}`, i, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"d%d":{"type":"string"}`, n))
	return `{"type":"object","$defs":{` + strings.Join(defs, ",") + `},"properties":{"a":{"$ref":"#/$defs/d0"}}}`
}

// deepestAccepted is the largest n for which Compile accepts mk(n).
func deepestAccepted(t *testing.T, mk func(int) string) int {
	t.Helper()
	n := 1
	for ; n <= 4*maxDepth; n++ {
		if _, err := Compile(json.RawMessage(mk(n + 1))); err != nil {
			if !strings.Contains(err.Error(), fmt.Sprintf("more than %d deep", maxDepth)) {
				t.Fatalf("depth %d: %v", n+1, err)
			}
			return n
		}
	}
	t.Fatalf("a depth beyond %d is accepted", 4*maxDepth)
	return 0
}

// Subschemas nest at most maxDepth deep, counting through references; a
// reference back to a subschema on the way (recursion) ends the chain.
func TestPortableDepth(t *testing.T) {
	if n := deepestAccepted(t, nested); n != maxDepth {
		t.Errorf("nested: deepest accepted %d, want %d", n, maxDepth)
	}
	// Each link adds two levels (a def, its property) to the root's two.
	if n := deepestAccepted(t, refChain); n != (maxDepth-3)/2 {
		t.Errorf("reference chain: longest accepted %d, want %d", n, (maxDepth-3)/2)
	}
	// 30 levels, a reference, then 40 more, the deepest in the first of
	// two properties.
	via := `{"type":"object","$defs":{"deep":` + nestedAround(40, `{}`) + `},"properties":{"p":` + nestedAround(30, `{"$ref":"#/$defs/deep"}`) + `}}`
	if _, err := Compile(json.RawMessage(via)); err == nil || !strings.Contains(err.Error(), "following $ref, more than") {
		t.Errorf("70 levels through a reference: %v", err)
	}
	recursive := `{"type":"object","$defs":{"a":{"properties":{"b":{"$ref":"#/$defs/b"}}},"b":{"items":{"$ref":"#/$defs/a"}}},"properties":{"x":{"$ref":"#/$defs/a"},"y":{"$ref":"#"}}}`
	if _, err := Compile(json.RawMessage(recursive)); err != nil {
		t.Errorf("recursive schema: %v", err)
	}
}
