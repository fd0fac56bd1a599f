package main

import (
	_ "embed"

	"github.com/wasmcp/wasmcp/abi"
	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
)

// playgroundHTML is the playground's view: view/index.html and view/main.js
// with the MCP Apps SDK bundled in, written by view/build.mjs (make views).
//
//go:embed playground.html
var playgroundHTML string

const playgroundURI = "ui://jq/playground"

// PlaygroundArgs are the jq_playground tool's arguments: what the
// playground opens with.
type PlaygroundArgs struct {
	Filter    string `json:"filter,omitempty" description:"The jq filter to start with."`
	InputText string `json:"input_text,omitempty" description:"The input to start with, as JSON text (one or more JSON values)."`
	Slurp     bool   `json:"slurp,omitempty" description:"Start with slurp on: all input values in one array."`
}

// openPlayground answers the model; the host shows the view, which runs the
// filter itself through the jq tool.
func openPlayground(PlaygroundArgs) (string, error) {
	return "The jq playground is open for the user with this filter and input. " +
		"They can edit both and see the results as they type; the results come from the jq tool.", nil
}

func init() {
	// The view declares no _meta.ui.csp: it is self-contained and reaches
	// nothing but the host, so clients serve it with no network access.
	size := int64(len(playgroundHTML))
	wasmcp.AddResource(wasmcp.Resource{
		URI:         playgroundURI,
		Name:        "jq-playground",
		Title:       "jq playground",
		Description: "An interactive jq playground: a filter, JSON input and the live result, run by the jq tool.",
		MimeType:    abi.AppMimeType,
		Size:        &size,
	}, func() (string, error) { return playgroundHTML, nil })

	wasmcp.AddTool("jq_playground", "Opens an interactive jq playground for the user, an MCP App: a filter field, "+
		"a JSON input and the live result, run by the jq tool as they type. Use it when the user wants to explore "+
		"their data or work out a filter themselves; to transform data yourself, call jq. Clients that cannot "+
		"show apps get only this tool's text.",
		openPlayground, wasmcp.Title("jq playground"), wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false),
		wasmcp.Meta(map[string]any{"ui": map[string]any{"resourceUri": playgroundURI}}))
}
