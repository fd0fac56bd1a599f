// Command plugin is the conformance plugin: one wasmcp guest implementing the
// tool fixtures that the server scenarios of the official MCP conformance
// suite (@modelcontextprotocol/conformance) call, with the names, arguments
// and results the suite's scenario descriptions ask for. e2e/conformance/run.sh
// builds it into a temporary directory and serves only it; it lives outside
// plugins/ so that `make run` does not serve test fixtures.
//
// Guest clocks are deterministic fakes, so the ~50 ms pauses the suite
// suggests between log lines and progress reports are left out: the suite
// counts the notifications and checks their order, not their timing.
//
// Build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o conformance.wasm .
package main

// main is required by the build; a -buildmode=c-shared module never runs it.
func main() {}
