// Package wire is what the MCP adapter puts in front of go-sdk's transports
// for what go-sdk v1.8.0 does not do, or does wrongly, on the wire. Each part
// names what it waits for, so that it goes when go-sdk does that itself;
// once all have gone, so does this directory.
//
// A JSON-RPC pre-reader (jsonrpc.go) checks each message before go-sdk
// decodes it, on stdio and over HTTP:
//   - a line that is not a JSON-RPC message is answered with -32700 or
//     -32600, where go-sdk ends the stdio session (go-sdk #1209);
//   - a request id go-sdk would answer with other bytes (1.5 as 1,
//     9007199254740993 as ...992, "\u0041" as "A") is refused with -32600
//     and id null (open go-sdk PRs #1178 and #1253);
//   - a member named twice, or nesting deeper than go-sdk reads, is refused
//     rather than read one way here and another there.
//
// Stdio (stdio.go) is go-sdk's IOTransport with two decorators:
//   - lineFilter, on its input, answers the lines the pre-reader refuses
//     and passes the others on. It trims white space around a line, which
//     go-sdk reads as the start of another value, ending the session; it
//     passes a batch's notifications as lines of their own, since go-sdk
//     never answers a batch holding one (go-sdk #1256, fixed after
//     v1.8.0); and it stops reading while the most calls allowed are
//     unanswered, which go-sdk does not bound.
//   - stdioConn, around go-sdk's connection, drops the answer to a call the
//     client cancelled, which MCP says not to send (go-sdk #1235, #1259),
//     and, when the input ends, lets the calls in flight finish and be
//     answered, where go-sdk closes at once (go-sdk #1061).
//
// Over HTTP (http.go), a handler in front of go-sdk's reads each request
// body within a time limit, which go-sdk does not bound, checks its
// messages with the pre-reader, and answers a method the server does not
// have with JSON-RPC -32601, where go-sdk answers a 2025-era session with a
// plain-text 400; we know of no go-sdk issue for either. The same handler
// asks the adapter whether an initialize may open a session (it caps them,
// closing idle ones to make room) and refuses new work while the server
// drains: go-sdk has neither, and both need the request the pre-reader
// decoded.
//
// Two parts are not workarounds and move up into the adapter when the rest
// goes: the protocol eras (era.go), which the adapter reads too, and
// Marshal, go-sdk's encoding, with which the adapter writes tools/list.
package wire
