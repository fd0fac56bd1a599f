// Command hash is a wasmcp plugin of byte tools: hash (digests and
// checksums), hmac (message authentication codes, with verification), and
// encode/decode (base64, base64url, hex, URL escaping). Every tool takes its
// input as text or as base64, so binary data can be passed too. Build it
// with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o hash.wasm .
//
// There is no UUID or random-token tool on purpose: the sandbox's random
// source is deterministic by default, so every instance would produce the
// same "random" values.
package main

import (
	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
)

func init() {
	hints := []wasmcp.ToolOption{wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false)}
	wasmcp.AddTool("hash", "Computes a cryptographic digest (SHA-2, SHA-3, SHA-1, MD5) or a checksum (CRC-32, Adler-32, FNV-1a) of text or base64 data.",
		hashTool, hints...)
	wasmcp.AddTool("hmac", "Computes an HMAC of a message with a secret key, and optionally checks it against an expected value in constant time.",
		hmacTool, hints...)
	wasmcp.AddTool("encode", "Encodes text or base64 data as base64, base64url, hex, or URL (query or path) escaping.",
		encodeTool, hints...)
	wasmcp.AddTool("decode", "Decodes base64, base64url, hex, or URL-escaped data; returns it as text when it is UTF-8, else as base64.",
		decodeTool, hints...)
}

// main is required by the build; a -buildmode=c-shared module never runs it.
func main() {}
