// Command jq is a wasmcp plugin with one tool, jq, that runs a jq filter on
// JSON input with gojq (github.com/itchyny/gojq), a pure-Go implementation of
// jq 1.7. Build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o jq.wasm .
//
// The plugin reads nothing but its arguments: the filter cannot reach files,
// the environment ($ENV is empty) or the network, and `now` returns the
// sandbox's fixed clock.
package main

import (
	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
)

func init() {
	wasmcp.AddTool("jq", "Runs a jq filter on JSON input and returns every value the filter outputs. "+
		"The dialect is gojq's (jq 1.7; object keys come out sorted). Give the input as a JSON value in `input`, "+
		"or as JSON text in `input_text` (which may hold several values, processed in turn); with neither, the input is null.",
		// Numbers keep their exact text (json.Number, which gojq reads), so
		// that large integers pass through unchanged.
		run, wasmcp.UseNumber(), wasmcp.Title("jq"), wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))
}

// main is required by the build; a -buildmode=c-shared module never runs it.
func main() {}
