package guest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
)

// TestReadRoutesAsTheHost checks the order in which templates are tried:
// the longest text before the first expression first, then registration
// order.
func TestReadRoutesAsTheHost(t *testing.T) {
	prefixMatch := func(prefix string) MatchFunc {
		return func(uri string) (map[string]string, bool) {
			return nil, strings.HasPrefix(uri, prefix)
		}
	}
	reader := func(name string) ReadFunc {
		return func(string, map[string]string) ([]abi.ResourceContents, error) {
			return []abi.ResourceContents{{Text: &name}}, nil
		}
	}
	for _, tt := range []struct{ template, name string }{
		{"g://{+p}", "short"},
		{"g://x/{a}", "first of two"},
		{"g://x/{+b}", "second of two"},
		{"g://x/y/{c}", "longest"},
	} {
		prefix := abi.TemplatePrefix(tt.template)
		if err := RegisterTemplate(abi.ResourceTemplate{URITemplate: tt.template, Name: tt.name}, nil, prefixMatch(prefix), reader(tt.name), nil); err != nil {
			t.Fatal(err)
		}
	}
	for uri, want := range map[string]string{
		"g://z":     "short",
		"g://x/1":   "first of two",
		"g://x/y/1": "longest",
	} {
		var r abi.ReadResult
		if err := json.Unmarshal(Read(uri), &r); err != nil || r.Error != nil || *r.Contents[0].Text != want || r.Contents[0].URI != uri {
			t.Errorf("%s: %+v (%v), want %q", uri, r, err, want)
		}
	}
}
