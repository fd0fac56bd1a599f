// Command fetch is a wasmcp plugin with one tool, fetch, that gets a web page
// through the host and returns it for a model to read, as the reference MCP
// fetch server does: HTML converted to Markdown (with html-to-markdown,
// github.com/JohannesKaufmann/html-to-markdown/v2), JSON and text as they
// are, long content in parts. Build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o fetch.wasm .
//
// The module asks for every origin ("*"), so that the operator's policy
// alone decides what it reaches: with {"plugins":{"fetch":{"net":
// ["https://example.org"]}}} it reaches example.org and nothing else, and
// without a policy nothing at all.
package main

import (
	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
)

func init() {
	wasmcp.RequestPermissions(wasmcp.Permissions{Net: []string{"*"}})
	wasmcp.AddTool("fetch", "Fetches a URL over HTTP or HTTPS and returns its contents: an HTML page as Markdown, "+
		"JSON and other text as they are (raw: true returns HTML as it is too). Long contents come in parts of "+
		"maxLength characters; the end of a part says which startIndex gets the next one. "+
		"The operator's network policy decides which sites are reachable; a refused URL is an error naming the rule.",
		fetch, wasmcp.Title("Fetch"), wasmcp.ReadOnly())
}

// main is required by the build; a -buildmode=c-shared module never runs it.
func main() {}
