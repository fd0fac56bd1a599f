package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/sdk-guest/go/wasmcptest"
)

type result struct {
	Results   []json.RawMessage `json:"results"`
	Truncated bool              `json:"truncated"`
}

func call(t *testing.T, args any) (result, *wasmcptest.Result) {
	t.Helper()
	res := wasmcptest.Call(t, "jq", args)
	var out result
	if !res.IsError {
		res.Decode(t, &out)
	}
	return out, res
}

func joined(out result) string {
	parts := make([]string, len(out.Results))
	for i, r := range out.Results {
		parts[i] = string(r)
	}
	return strings.Join(parts, " ")
}

func TestFilters(t *testing.T) {
	tests := []struct {
		name string
		args string
		want string
	}{
		{"identity", `{"filter":".","input":{"b":1,"a":[true,null]}}`, `{"a":[true,null],"b":1}`},
		{"select", `{"filter":".items[] | select(.price > 10) | .name","input":{"items":[{"name":"a","price":5},{"name":"b","price":20},{"name":"c","price":11.5}]}}`, `"b" "c"`},
		{"null input", `{"filter":"[1,2] | add"}`, `3`},
		{"input null value", `{"filter":". == null","input":null}`, `true`},
		{"stream", `{"filter":".a","input_text":"{\"a\":1} {\"a\":2}\n{\"a\":3}"}`, `1 2 3`},
		{"slurp", `{"filter":"map(.a) | add","input_text":"{\"a\":1} {\"a\":2}","slurp":true}`, `3`},
		{"slurp nothing", `{"filter":"length","slurp":true}`, `0`},
		{"vars", `{"filter":"[.[] | select(. > $min)] | length","input":[1,5,9],"vars":{"min":4}}`, `2`},
		{"big integer kept", `{"filter":".","input":123456789012345678901234567890}`, `123456789012345678901234567890`},
		{"big arithmetic", `{"filter":". + 1","input_text":"9007199254740993"}`, `9007199254740994`},
		{"nan and infinity", `{"filter":"[nan, infinite, -infinite]"}`, `[null,1.7976931348623157e+308,-1.7976931348623157e+308]`},
		{"unicode", `{"filter":"\"é\" + .","input":"😀"}`, `"é😀"`},
		{"empty", `{"filter":"empty","input":1}`, ``},
		{"halt", `{"filter":"1, halt, 2"}`, `1`},
		{"env is empty", `{"filter":"$ENV | length"}`, `0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, res := call(t, tt.args)
			if res.IsError {
				t.Fatalf("error: %s", res.Text())
			}
			if got := joined(out); got != tt.want || out.Truncated {
				t.Errorf("results %s (truncated %v), want %s", got, out.Truncated, tt.want)
			}
		})
	}
}

func TestMaxResults(t *testing.T) {
	out, res := call(t, `{"filter":"repeat(1)","max_results":3}`)
	if res.IsError || joined(out) != "1 1 1" || !out.Truncated {
		t.Errorf("repeat: %s %v %s", joined(out), out.Truncated, res.Text())
	}
	out, _ = call(t, `{"filter":"range(5)","max_results":5}`)
	if len(out.Results) != 5 || out.Truncated {
		t.Errorf("exactly max_results: %d results, truncated %v", len(out.Results), out.Truncated)
	}
	out, _ = call(t, `{"filter":"range(2000)"}`)
	if len(out.Results) != defaultMaxResults || !out.Truncated {
		t.Errorf("default limit: %d results, truncated %v", len(out.Results), out.Truncated)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		args string
		want string
	}{
		{"syntax", `{"filter":".a | | .b"}`, `jq: syntax error at byte 6 of the filter: unexpected token "|"`},
		{"unterminated", `{"filter":"\"abc"}`, "jq: syntax error at byte 4 of the filter: unterminated string literal"},
		{"compile", `{"filter":"nosuchfunction(1)"}`, "jq: compile error: function not defined: nosuchfunction/1"},
		{"undefined variable", `{"filter":"$nope"}`, "jq: compile error: variable not defined: $nope"},
		{"runtime", `{"filter":".[] | .a","input":[{"a":1},"x"]}`, `jq: error after 1 results: expected an object but got: string ("x")`},
		{"error function", `{"filter":"error(\"custom\")"}`, "jq: error after 0 results: error: custom"},
		{"halt_error", `{"filter":"\"bye\" | halt_error"}`, "jq: halt_error (exit code 5) after 0 results: bye"},
		{"both inputs", `{"filter":".","input":1,"input_text":"1"}`, "give input or input_text, not both"},
		{"bad input_text", `{"filter":".","input_text":"{\"a\":1} {oops"}`, "input_text: value 2 (at byte 7) is not valid JSON"},
		{"bad variable name", `{"filter":".","vars":{"1x":1}}`, `variable name "1x"`},
		{"empty filter", `{"filter":""}`, "invalid arguments"},
		{"limit too big", `{"filter":".","max_results":100001}`, "invalid arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, res := call(t, tt.args)
			if !res.IsError || !strings.Contains(res.Text(), tt.want) {
				t.Errorf("result %q (isError %v), want an error containing %q", res.Text(), res.IsError, tt.want)
			}
		})
	}
}

func TestDefinition(t *testing.T) {
	tools := wasmcptest.Tools(t)
	if len(tools) != 2 || tools[0].Name != "jq" || tools[1].Name != "jq_playground" {
		t.Fatalf("tools: %+v", tools)
	}
	want := `{"type":"object","properties":{"results":{"type":["array","null"],"description":"Every value the filter output, in order.","items":{}},"truncated":{"type":"boolean","description":"True when the filter had more results than max_results."}},"required":["results","truncated"],"additionalProperties":false}`
	if got := string(tools[0].OutputSchema); got != want {
		t.Errorf("output schema:\n got %s\nwant %s", got, want)
	}
}

func TestYieldingContextIsNeverDone(t *testing.T) {
	var c yieldingContext
	for range 1 << 17 {
		if c.Done() != nil {
			t.Fatal("Done returned a channel")
		}
	}
	if c.Err() != nil || c.steps != 1<<17 {
		t.Errorf("err %v, steps %d", c.Err(), c.steps)
	}
}
