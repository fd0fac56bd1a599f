module github.com/wasmcp/wasmcp/sdk-guest/go

go 1.26.8

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/tetratelabs/wazero v1.12.0
	github.com/wasmcp/wasmcp/abi v0.0.0
)

require (
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
)

// The SDK shares package abi, the contract's names and types, with the host.
// Both live in this source tree and are not published: a project using the
// SDK replaces both modules with their directories here (wasmcp new does).
replace github.com/wasmcp/wasmcp/abi => ../../abi
