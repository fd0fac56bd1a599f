// Command clientfeatures is the example of the MCP client features a wasmcp
// tool can use (ABI.md section 5), through the Go guest SDK:
//
//	trigger-long-running-operation  {"duration":2,"steps":5}  -> progress notifications, then a summary
//	sample-llm                      {"prompt":"2+2?"}          -> asks the client's model (sampling)
//	elicit-favorite-color           {}                         -> asks the user (elicitation)
//	log-messages                    {"message":"hi"}           -> one log line per level
//
// Guest clocks are deterministic fakes, so the long-running tool does real
// computation in steps rather than sleeping, and checks Cancelled between
// them. Sampling and elicitation need a client that declared those
// capabilities; with another, the tools fail with a tool error saying so.
//
// Build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o clientfeatures.wasm .
package main

// main is required by the build; a -buildmode=c-shared module never runs it.
func main() {}
