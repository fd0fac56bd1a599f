package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// portableTable is testdata/portable.json: patterns and schemas the host
// must accept, and those it must refuse with the error given. js_test.go
// holds the accepted ones against JavaScript and ajv.
type portableTable struct {
	Patterns struct {
		Portable []string          `json:"portable"`
		Refused  map[string]string `json:"refused"`
	} `json:"patterns"`
	Schemas struct {
		Portable map[string]json.RawMessage `json:"portable"`
		Refused  map[string]struct {
			Schema json.RawMessage `json:"schema"`
			Error  string          `json:"error"`
		} `json:"refused"`
	} `json:"schemas"`
}

func readPortableTable(tb testing.TB) portableTable {
	tb.Helper()
	b, err := os.ReadFile("testdata/portable.json")
	if err != nil {
		tb.Fatal(err)
	}
	var table portableTable
	if err := json.Unmarshal(b, &table); err != nil {
		tb.Fatalf("testdata/portable.json: %v", err)
	}
	return table
}

func TestCheckPattern(t *testing.T) {
	table := readPortableTable(t)
	for i, p := range table.Patterns.Portable {
		t.Run(fmt.Sprintf("portable-%d", i), func(t *testing.T) {
			if err := checkPattern(p); err != nil {
				t.Errorf("checkPattern(%q) = %v, want nil", p, err)
			}
		})
	}
	for i, p := range slices.Sorted(maps.Keys(table.Patterns.Refused)) {
		t.Run(fmt.Sprintf("refused-%d", i), func(t *testing.T) {
			want := table.Patterns.Refused[p]
			if err := checkPattern(p); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("checkPattern(%q) = %v, want an error containing %q", p, err, want)
			}
		})
	}
}

// FuzzCheckPattern: checkPattern never panics, accepts only what Go's
// regexp compiles, and accepts a portable pattern made part of a larger one
// (whose tokens are the same) whenever Go compiles that.
func FuzzCheckPattern(f *testing.F) {
	table := readPortableTable(f)
	for _, p := range table.Patterns.Portable {
		f.Add(p)
	}
	for p := range table.Patterns.Refused {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		err := checkPattern(p)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("checkPattern(%q): empty error", p)
			}
			return
		}
		if _, err := regexp.Compile(p); err != nil {
			t.Fatalf("checkPattern accepted %q, which Go refuses: %v", p, err)
		}
		for _, q := range []string{"(?:" + p + ")", "x|" + p, "[a]" + p + "(b)"} {
			if _, err := regexp.Compile(q); err == nil {
				if err := checkPattern(q); err != nil {
					t.Fatalf("checkPattern accepted %q but not %q: %v", p, q, err)
				}
			}
		}
	})
}
