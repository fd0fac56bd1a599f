// Package wasmcp is the Go SDK for wasmcp tools: a Go main package that
// registers typed handlers becomes a WebAssembly module that the wasmcp host
// serves as MCP tools, and as resources and prompts beside them.
//
//	package main
//
//	import (
//		"fmt"
//
//		wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
//	)
//
//	type SumArgs struct {
//		A float64 `json:"a" description:"First number."`
//		B float64 `json:"b" description:"Second number."`
//	}
//
//	func init() {
//		wasmcp.AddTool("sum", "Adds two numbers.", func(in SumArgs) (string, error) {
//			return fmt.Sprint(in.A + in.B), nil
//		}, wasmcp.ReadOnly())
//	}
//
//	func main() {}
//
// Build it with the standard toolchain (TinyGo is not needed):
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o sum.wasm .
//
// The SDK, the module github.com/wasmcp/wasmcp/sdk-guest/go, is not
// published: a project takes it, and the module github.com/wasmcp/wasmcp/abi
// that it shares with the server, from a wasmcp source tree through replace
// directives in its go.mod. "wasmcp new --lang go NAME" writes such a
// project.
//
// # Registration happens in init
//
// With -buildmode=c-shared on wasip1, the module is a WASI reactor: its
// _initialize export runs the runtime and every package's init functions,
// and main is never called (see runtime.main: "A program compiled with
// -buildmode=c-archive or c-shared has a main, but it is not executed").
// Register tools, resources and prompts in init; main must exist and is
// best left empty. A registration problem (a bad name, a duplicate, a type
// with no schema) panics in init, which fails the module's load; the message is logged to
// the host first, because a guest's standard error is discarded.
//
// # Handlers
//
// A handler is func(In) (Out, error). The host has already validated the
// arguments against the input schema, so decoding into In fails only when an
// explicit InputSchema is looser than the Go type. Out
// decides the result (see AddTool): a string is one text block, a *Result is
// used as built (NewResult, Text, Image, Audio, ResourceLink, EmbeddedText,
// EmbeddedBlob, Structured, Error, Errorf), and any struct or map is
// structured content with a derived output schema. A returned error, and a
// recovered panic, give a result with isError set and the error's text; the
// instance stays healthy.
//
// Handlers take no context.Context, on purpose: importing package context
// links package time's formatting and parsing into the module, a
// noticeable part of a small tool. A call's deadline is enforced by the host,
// which stops the instance; facilities scoped to the current call (logging
// today, progress and cancellation in later ABI revisions) are package
// functions, since an instance runs one call at a time.
//
// # Schemas
//
// Input and output schemas (JSON Schema 2020-12) are derived from In and Out
// by reflection, following encoding/json: a field's name comes from its json
// tag, "-" and unexported fields are skipped, fields of untagged embedded
// structs are promoted. A field is required unless its json tag has
// omitempty or omitzero. Structs are closed ("additionalProperties": false),
// maps are objects of their element schema, slices and arrays are arrays,
// []byte is a base64 string, pointers are their element, json.RawMessage and
// interfaces are any value, types with their own MarshalJSON/UnmarshalJSON
// are any value and encoding.TextMarshaler types are strings. In output
// schemas, a nil pointer, slice or map without omitempty may be null, since
// that is what encoding/json writes. Integers of 8 to 32 bits get their
// range as minimum and maximum, unsigned integers a minimum of 0. A struct
// with no fields gives {"type":"object","additionalProperties":false}.
// Recursive types have no derived schema: use InputSchema or OutputSchema.
//
// Two tags describe a field further:
//
//	description:"Free text shown to the model."
//	jsonschema:"keyword,keyword=value,..."
//
// The jsonschema keywords are:
//
//	required, optional            override the omitempty rule
//	title=T
//	default=V                     a string for string fields, else a JSON value: default=3, default=true
//	enum=a|b|c                    strings literally; for other types JSON values: enum=1|2|3
//	minimum=N, maximum=N, exclusiveMinimum=N, exclusiveMaximum=N, multipleOf=N
//	minLength=N, maxLength=N, pattern=RE, format=F   (strings)
//	minItems=N, maxItems=N, uniqueItems               (arrays)
//
// Keywords about values (enum, the numeric bounds, the string keywords)
// apply to the items when the field is an array, so []string with
// `jsonschema:"enum=a|b"` is an array of "a" and "b". In a value, "\," is a
// literal comma and "\|" a literal pipe; other backslashes are literal. Go's
// tag quoting doubles every backslash, so a pattern of ^\d{1,3}$ is written
//
//	`json:"code" jsonschema:"pattern=^\\d{1\\,3}$"`
//
// An unknown keyword, or one that does not fit the field's type, is a
// registration error. Patterns are checked by the host when it loads the
// module (and by wasmcptest), not by the SDK, which keeps package regexp
// out of modules that do not use it.
//
// # Resources and prompts
//
// AddResource registers a resource by its definition and a function that
// returns its contents: a string for text, a []byte for binary contents
// (sent as base64), or []ResourceContents for several items.
// AddResourceTemplate registers a family of resources by an RFC 6570 URI
// template; the SDK matches the URI a client reads against the templates,
// the longest text before the first expression first, as the host routes
// URIs, and calls the first that matches with the variables' values:
//
//	wasmcp.AddResourceTemplate(wasmcp.ResourceTemplate{URITemplate: "notes://{id}", Name: "note"},
//		func(uri string, vars map[string]string) (string, error) { ... vars["id"] ... })
//
// The matcher reads every operator of RFC 6570 levels 1 to 3 and the prefix
// modifier of level 4; the explode modifier ({list*}) is refused at
// registration, since a list has no single value to hand over ({+path}
// takes a value holding '/'). Values are percent-decoded, and a value that
// stands for path segments never has a "." or ".." segment: the URI then
// matches nothing, so that a template cannot be led outside its prefix.
//
// AddPrompt registers a prompt; its function gets the arguments as a
// map[string]string, which the host has checked against the definition
// (required ones present, no others), and returns messages (UserMessage,
// AssistantMessage, holding any content block). Complete attaches a
// Completer to an argument of a prompt or a variable of a template, and
// Choices completes from a fixed list.
//
// A read, prompt or completion that fails returns an error, which the client
// gets as a JSON-RPC error with the error's text: wrap ErrNotFound for
// "resource not found" (-32002), ErrInvalidParams for invalid params
// (-32602); anything else, and a recovered panic, is an internal error.
//
// Every module exports wasmcp_read, wasmcp_prompt and wasmcp_complete; in a
// module without resources or prompts they answer "not found", "unknown
// prompt" and no values, and link none of the code that serves them.
//
// # Logging
//
// Log, Logf, Debug, Info and Warn send a line to the host through the "log"
// import; the host records it with the plugin's name. Error-level lines are
// Log(LevelError, msg): Error itself builds a tool error result. Run
// natively, log lines go to standard error.
//
// # Testing
//
// Tools run natively: package wasmcptest calls them through the same JSON
// path the module uses, checks arguments and results against their schemas
// as the host does, and captures log lines:
//
//	res := wasmcptest.Call(t, "sum", map[string]any{"a": 1, "b": 2})
//	if res.Text() != "3" { t.Fatal(res.Text()) }
//
// wasmcptest.Read, GetPrompt and Complete do the same for resources,
// prompts and completions, refusing what the host refuses before the guest
// runs (a missing required argument, a URI with a dot segment) and failing
// the test on a document the host would refuse.
//
// Only the file guest_wasip1.go is specific to WebAssembly.
//
// # Memory
//
// The host calls wasmcp_alloc once before each call, for its input (a tool's
// name and arguments, a URI, ...). The SDK hands out a buffer that stays referenced (so the
// collector cannot free it) until the call has consumed it; a buffer up to
// 64 KiB is reused by the next call, a larger one is dropped after its call.
// A returned document stays referenced until the next export call, by which
// time the host has copied it.
//
// Go on WebAssembly has no threads and no preemption, and in a reactor Go
// runs only while an export does. The collector's background work therefore
// runs only when the calling goroutine yields; without that, a collection
// started by an allocation stalls and the heap grows with every call
// (measured: 150 calls that each allocate 8 MiB of garbage left 935 MiB of
// memory; with the policy below, 44 MiB). So after every call the SDK
// yields once (runtime.Gosched), which lets a pending collection finish, and
// after every 4 MiB of arguments and results it runs a full collection
// (runtime.GC) so that large buffers are freed
// before the next large call. A tool that allocates heavily in one long call
// should call runtime.Gosched now and then for the same reason. Arguments of
// 64 KiB or more are decoded with the collector off: nearly all that
// decoding allocates is the arguments' value, which the tool keeps, so
// collecting during it would cost time and free little.
//
// # Sandbox
//
// By default the host gives a module no files, no environment, no network,
// and a clock and random source that are deterministic: time.Now and
// crypto/rand return the same values in every instance. Do not use them for
// unique identifiers or secrets. A module asks for more with
// RequestPermissions, in init; the operator's policy decides what it gets.
//
// # Network
//
// HTTP makes one request through the host, which checks it against the
// operator's net policy for the plugin (the origins the module asked for
// and the policy allows; no private addresses unless the policy says so)
// and adds any credentials the policy attaches, which the tool never sees.
// Package nethttp puts net/http's Client on top, at the cost of several
// megabytes of module:
//
//	import _ "github.com/wasmcp/wasmcp/sdk-guest/go/nethttp"
//
//	func init() {
//		wasmcp.RequestPermissions(wasmcp.Permissions{Net: []string{"https://api.github.com"}})
//	}
//
//	... resp, err := http.Get("https://api.github.com/repos/golang/go")
//
// A refused request fails with an error matching ErrDenied whose text names
// the rule. Waiting for the network counts against the call's deadline.
// In tests, wasmcptest.ServeHTTP answers the requests from a handler.
package wasmcp
