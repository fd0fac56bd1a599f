package host_test

import (
	"context"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
)

// A URI whose template variable would hold a dot segment is refused before
// the guest runs, also where a reserved expansion ({+path}) takes the URI's
// "?" or "#" into the value: the guest decodes the variable, not the URI.
// A query variable ({?q}) is no path, and may hold dots.
func TestOffersDotSegmentInVariable(t *testing.T) {
	ctx := context.Background()
	const describe = `{"resourceTemplates":[{"uriTemplate":"files:///{+path}","name":"files"},
		{"uriTemplate":"search://{id}{?q}","name":"search"}]}`
	const read = `{"contents":[{"uri":"files:///x","text":"x"}]}`
	dir := t.TempDir()
	place(t, dir, "files.wasm", offerModule(t, []byte(describe), "x", map[string]string{abi.ExportRead: read}))
	h := newHost(t, dir, nil, testConfig(t))
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		uri  string
		code int // 0: served
	}{
		{"files:///docs/a.md", 0},
		{"files:///docs/a.md?v=2", 0},
		{"files:///docs?/../../etc/passwd", abi.CodeInvalidParams},
		{"files:///docs#/../../etc/passwd", abi.CodeInvalidParams},
		{"files:///docs?x=%2F..%2F..%2Fetc", abi.CodeInvalidParams},
		{"search://a?q=..", 0},
	} {
		t.Run(tc.uri, func(t *testing.T) {
			_, _, err := h.ReadResource(ctx, tc.uri, host.Request{})
			if tc.code == 0 {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			checkRequestError(t, err, nil, tc.code)
		})
	}
}
