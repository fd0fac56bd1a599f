// Command text is a wasmcp plugin of text tools: regex_match and
// regex_replace (Go's RE2 regular expressions, linear time whatever the
// pattern), text_stats, and unified_diff (a line diff in the format of
// diff -u, computed with Myers' algorithm). Build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o text.wasm .
package main

import (
	"github.com/wasmcp/wasmcp/plugins/text/diff"
	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
)

// DiffArgs are the arguments of unified_diff.
type DiffArgs struct {
	A       string `json:"a" description:"The old text."`
	B       string `json:"b" description:"The new text."`
	Context *int   `json:"context,omitempty" description:"Unchanged lines shown around each change." jsonschema:"minimum=0,maximum=1000,default=3"`
	LabelA  string `json:"label_a,omitempty" description:"Name of the old text in the --- header line." jsonschema:"default=a"`
	LabelB  string `json:"label_b,omitempty" description:"Name of the new text in the +++ header line." jsonschema:"default=b"`
}

// DiffOutput is the structured result of unified_diff.
type DiffOutput struct {
	Diff      string `json:"diff" description:"The diff in unified format; empty when the texts are equal."`
	Identical bool   `json:"identical" description:"Whether the texts are equal."`
	Hunks     int    `json:"hunks" description:"Number of @@ hunks."`
	Added     int    `json:"added" description:"Lines only in the new text."`
	Removed   int    `json:"removed" description:"Lines only in the old text."`
	Minimal   bool   `json:"minimal" description:"False when the texts were too different for an exhaustive search within the work limit: the diff is then correct but may change more lines than necessary."`
}

func init() {
	hints := []wasmcp.ToolOption{wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false)}
	wasmcp.AddTool("regex_match", "Finds matches of a regular expression (RE2 syntax) in a text, with capture groups and character offsets.",
		regexMatch, hints...)
	wasmcp.AddTool("regex_replace", "Replaces matches of a regular expression (RE2 syntax) in a text; the replacement may refer to groups as $1 or ${name}.",
		regexReplace, hints...)
	wasmcp.AddTool("text_stats", "Counts the bytes, characters, lines, words and character classes of a text.",
		textStats, hints...)
	wasmcp.AddTool("unified_diff", "Compares two texts line by line and returns the differences in unified diff format (as diff -u).",
		unifiedDiff, append(hints, wasmcp.OutputSchemaOf[DiffOutput]())...)
}

func unifiedDiff(in DiffArgs) (*wasmcp.Result, error) {
	context := 3
	if in.Context != nil {
		context = *in.Context
	}
	labelA, labelB := in.LabelA, in.LabelB
	if labelA == "" {
		labelA = "a"
	}
	if labelB == "" {
		labelB = "b"
	}
	d := diff.Unified(in.A, in.B, context, labelA, labelB)
	out := DiffOutput{Diff: d.Text, Hunks: d.Hunks, Added: d.Added, Removed: d.Removed, Minimal: d.Minimal}
	out.Identical = out.Hunks == 0
	// The diff itself is the readable content; the host's JSON mirror of the
	// structured result would escape every newline.
	text := out.Diff
	if out.Identical {
		text = "The texts are identical."
	}
	res := wasmcp.Structured(out)
	res.Content = []wasmcp.Content{wasmcp.Text(text)}
	return res, nil
}

// main is required by the build; a -buildmode=c-shared module never runs it.
func main() {}
