package main

import (
	"fmt"
	"testing"

	"github.com/wasmcp/wasmcp/sdk-guest/go/wasmcptest"
)

func TestTextStats(t *testing.T) {
	tests := []struct {
		text string
		want Stats
	}{
		{"", Stats{}},
		{"Hello, wörld!\n\n  \r\nlast 42", Stats{
			Bytes: 27, Characters: 26, Lines: 4, Words: 4, BlankLines: 2, LongestLine: 13,
			Letters: 14, Digits: 2, Spaces: 8, Punctuation: 2, CRLFLines: 1,
		}},
		{"a\nb\n", Stats{Bytes: 4, Characters: 4, Lines: 2, Words: 2, LongestLine: 1, Letters: 2, Spaces: 2, EndsWithNewline: true}},
		{"日本語 テキスト", Stats{Bytes: 22, Characters: 8, Lines: 1, Words: 2, LongestLine: 8, Letters: 7, Spaces: 1}},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			var got Stats
			wasmcptest.Call(t, "text_stats", map[string]string{"text": tt.text}).Decode(t, &got)
			if got != tt.want {
				t.Errorf("%q:\n got %+v\nwant %+v", tt.text, got, tt.want)
			}
		})
	}
	if res := wasmcptest.Call(t, "text_stats", `{}`); !res.IsError {
		t.Errorf("missing text accepted")
	}
}

func TestTools(t *testing.T) {
	var names []string
	for _, tool := range wasmcptest.Tools(t) {
		names = append(names, tool.Name)
		if tool.OutputSchema == nil {
			t.Errorf("%s has no output schema", tool.Name)
		}
	}
	if len(names) != 4 {
		t.Errorf("tools %v", names)
	}
}
