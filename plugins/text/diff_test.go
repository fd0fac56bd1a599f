package main

import (
	"testing"

	"github.com/wasmcp/wasmcp/sdk-guest/go/wasmcptest"
)

func TestUnifiedDiff(t *testing.T) {
	res := wasmcptest.Call(t, "unified_diff", `{"a":"a\nb\nc\nd\n","b":"a\nc\nd\ne\nf\n","label_a":"old.txt","label_b":"new.txt"}`)
	var out DiffOutput
	res.Decode(t, &out)
	want := "--- old.txt\n+++ new.txt\n@@ -1,4 +1,5 @@\n a\n-b\n c\n d\n+e\n+f\n"
	if out.Diff != want || out.Added != 2 || out.Removed != 1 || out.Hunks != 1 || out.Identical || !out.Minimal {
		t.Errorf("got %+v, want diff %q", out, want)
	}
	if res.Text() != want {
		t.Errorf("text content %q, want the diff", res.Text())
	}
	res = wasmcptest.Call(t, "unified_diff", map[string]any{"a": "x\n", "b": "x\n"})
	res.Decode(t, &out)
	if !out.Identical || out.Diff != "" || res.Text() != "The texts are identical." {
		t.Errorf("identical texts: %+v, text %q", out, res.Text())
	}
	if res := wasmcptest.Call(t, "unified_diff", `{"a":"","b":"","context":-1}`); !res.IsError {
		t.Errorf("negative context accepted")
	}
}
