module github.com/wasmcp/wasmcp/plugins

go 1.26.8

require (
	github.com/JohannesKaufmann/html-to-markdown/v2 v2.5.2
	github.com/itchyny/gojq v0.12.20
	github.com/wasmcp/wasmcp/abi v0.0.0
	github.com/wasmcp/wasmcp/sdk-guest/go v0.0.0
)

require (
	github.com/JohannesKaufmann/dom v0.3.1 // indirect
	github.com/itchyny/timefmt-go v0.1.9 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	golang.org/x/net v0.59.0 // indirect
	golang.org/x/text v0.42.0 // indirect
)

// The guest SDK and the contract come from this source tree.
replace (
	github.com/wasmcp/wasmcp/abi => ../abi
	github.com/wasmcp/wasmcp/sdk-guest/go => ../sdk-guest/go
)

// npm installs the jq playground's build tools here (make views).
ignore ./jq/view/node_modules
