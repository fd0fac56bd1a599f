package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/sdk-guest/go/wasmcptest"
)

func TestRegexMatch(t *testing.T) {
	var out MatchOutput
	wasmcptest.Call(t, "regex_match", `{"pattern":"(?P<key>\\w+)=(\\d+)?","text":"é a=1 b= c=3","all":true}`).Decode(t, &out)
	if !out.Matched || len(out.Matches) != 3 || out.Truncated {
		t.Fatalf("matches: %+v", out)
	}
	m := out.Matches[0]
	// "é " is two characters but three bytes: offsets count characters.
	if m.Text != "a=1" || m.Start != 2 || m.End != 5 {
		t.Errorf("first match: %+v", m)
	}
	want := []Group{{Name: "key", Matched: true, Text: "a", Start: 2, End: 3}, {Matched: true, Text: "1", Start: 4, End: 5}}
	if len(m.Groups) != 2 || m.Groups[0] != want[0] || m.Groups[1] != want[1] {
		t.Errorf("groups: %+v, want %+v", m.Groups, want)
	}
	if g := out.Matches[1].Groups[1]; g.Matched || g.Start != -1 || g.End != -1 || g.Text != "" {
		t.Errorf("unmatched optional group: %+v", g)
	}

	wasmcptest.Call(t, "regex_match", `{"pattern":"\\d","text":"a1b2c3"}`).Decode(t, &out)
	if len(out.Matches) != 1 || out.Matches[0].Text != "1" || out.Truncated {
		t.Errorf("first only: %+v", out)
	}
	wasmcptest.Call(t, "regex_match", `{"pattern":"\\d","text":"a1b2c3","all":true,"max_matches":2}`).Decode(t, &out)
	if len(out.Matches) != 2 || !out.Truncated {
		t.Errorf("max_matches: %+v", out)
	}
	wasmcptest.Call(t, "regex_match", `{"pattern":"z","text":"abc"}`).Decode(t, &out)
	if out.Matched || len(out.Matches) != 0 {
		t.Errorf("no match: %+v", out)
	}
}

func TestRegexFlags(t *testing.T) {
	var out MatchOutput
	wasmcptest.Call(t, "regex_match", `{"pattern":"^b.c$","text":"a\nB\nC","all":true,"ignore_case":true,"multiline":true,"dot_all":true}`).Decode(t, &out)
	if len(out.Matches) != 1 || out.Matches[0].Text != "B\nC" {
		t.Errorf("flags ims: %+v", out)
	}
	wasmcptest.Call(t, "regex_match", `{"pattern":"^b.c$","text":"a\nB\nC","all":true}`).Decode(t, &out)
	if out.Matched {
		t.Errorf("no flags matched: %+v", out)
	}
}

func TestRegexReplace(t *testing.T) {
	tests := []struct {
		args string
		want ReplaceOutput
	}{
		{`{"pattern":"(\\w+)@(\\w+)","text":"ann@x bob@y","replacement":"${2}:$1"}`, ReplaceOutput{"x:ann y:bob", 2}},
		{`{"pattern":"(?P<n>\\d+)","text":"a1 b22","replacement":"<${n}>"}`, ReplaceOutput{"a<1> b<22>", 2}},
		{`{"pattern":"\\d","text":"1 2 3","replacement":"$$x","max_replacements":2}`, ReplaceOutput{"$x $x 3", 2}},
		{`{"pattern":"\\d","text":"1 2","replacement":"$1$$","literal":true}`, ReplaceOutput{"$1$$ $1$$", 2}},
		{`{"pattern":"x*","text":"ab","replacement":"-"}`, ReplaceOutput{"-a-b-", 3}},
		{`{"pattern":"Q","text":"none","replacement":"-","ignore_case":true}`, ReplaceOutput{"none", 0}},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			var out ReplaceOutput
			wasmcptest.Call(t, "regex_replace", tt.args).Decode(t, &out)
			if out != tt.want {
				t.Errorf("%s: %+v, want %+v", tt.args, out, tt.want)
			}
		})
	}
}

func TestRegexErrors(t *testing.T) {
	for tool, extra := range map[string]string{"regex_match": "", "regex_replace": `,"replacement":""`} {
		t.Run(tool, func(t *testing.T) {
			res := wasmcptest.Call(t, tool, `{"pattern":"(a","text":"a"`+extra+`}`)
			if !res.IsError || !strings.Contains(res.Text(), "invalid pattern: error parsing regexp: missing closing )") {
				t.Errorf("%s: %+v", tool, res)
			}
			// Backreferences are not RE2.
			res = wasmcptest.Call(t, tool, `{"pattern":"(a)\\1","text":"aa"`+extra+`}`)
			if !res.IsError || !strings.Contains(res.Text(), "invalid escape sequence") {
				t.Errorf("%s backreference: %+v", tool, res)
			}
		})
	}
	if res := wasmcptest.Call(t, "regex_match", `{"pattern":"","text":"a"}`); !res.IsError {
		t.Errorf("empty pattern accepted")
	}
}
