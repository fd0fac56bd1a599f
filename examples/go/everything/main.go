// Command everything is the seed example of a wasmcp tool module in Go. Its
// tools mirror those of the MCP "everything" reference server, so a client
// can be tested against known results:
//
//	echo                    {"message":"hi"}              -> "Echo: hi"
//	get-sum                 {"a":7,"b":5}                 -> "The sum of 7 and 5 is 12."
//	get-structured-content  {"location":"Chicago"}        -> structured weather, with an output schema
//	get-tiny-image          {}                            -> text, a 16x16 PNG, text
//	get-resource-links      {"count":2}                   -> text and resource links
//	get-error               {"message":"why"}             -> isError: true
//
// Build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o everything.wasm .
//
// Tools are registered in init because main never runs in a c-shared module.
package main

// main is required by the build; a -buildmode=c-shared module never runs it.
func main() {}
