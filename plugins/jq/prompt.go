package main

import (
	"strings"

	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
)

// filterFor is the jq_filter_for prompt: it asks the model to write a jq
// filter for a transformation the user describes, and to check it with the
// jq tool on a sample before answering.
func filterFor(args map[string]string) ([]wasmcp.PromptMessage, error) {
	var b strings.Builder
	b.WriteString("Write a jq filter that does this:\n\n")
	b.WriteString(args["transformation"])
	b.WriteString("\n\n")
	if sample := strings.TrimSpace(args["sample"]); sample != "" {
		b.WriteString("Here is a sample of the input:\n\n```json\n")
		b.WriteString(sample)
		b.WriteString("\n```\n\nRun the filter on the sample with the jq tool and fix it until the output is right. ")
	} else {
		b.WriteString("Make up a small sample input, run the filter on it with the jq tool and fix it until the output is right. ")
	}
	b.WriteString("Then answer with the filter in a code block and one sentence on how it works. " +
		"The tool runs gojq (jq 1.7): prefer standard jq built-ins.")
	return []wasmcp.PromptMessage{wasmcp.UserMessage(wasmcp.Text(b.String()))}, nil
}

func init() {
	wasmcp.AddPrompt(wasmcp.Prompt{
		Name:        "jq_filter_for",
		Title:       "Write a jq filter",
		Description: "Asks the model to write a jq filter for a transformation you describe, tested with the jq tool.",
		Arguments: []wasmcp.PromptArgument{
			{Name: "transformation", Title: "Transformation", Description: "What the filter should do, in words: \"the names of the items that cost more than 10\".", Required: true},
			{Name: "sample", Title: "Sample input", Description: "Some of the JSON the filter will run on."},
		},
	}, filterFor)
}
