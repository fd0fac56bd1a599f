module github.com/wasmcp/wasmcp/e2e/conformance/plugin

go 1.26.8

require (
	github.com/wasmcp/wasmcp/abi v0.0.0
	github.com/wasmcp/wasmcp/sdk-guest/go v0.0.0
)

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	golang.org/x/text v0.42.0 // indirect
)

// The guest SDK and the contract come from this source tree.
replace (
	github.com/wasmcp/wasmcp/abi => ../../../abi
	github.com/wasmcp/wasmcp/sdk-guest/go => ../../../sdk-guest/go
)
