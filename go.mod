module github.com/wasmcp/wasmcp

go 1.26.8

require (
	github.com/JohannesKaufmann/html-to-markdown/v2 v2.5.2
	github.com/fsnotify/fsnotify v1.10.1
	github.com/itchyny/gojq v0.12.20
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/opencontainers/go-digest v1.0.0
	github.com/opencontainers/image-spec v1.1.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/tetratelabs/wazero v1.12.0
	github.com/wasmcp/wasmcp/sdk-guest/go v0.0.0
	golang.org/x/time v0.15.0
	oras.land/oras-go/v2 v2.7.0
)

require (
	github.com/JohannesKaufmann/dom v0.3.1 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/itchyny/timefmt-go v0.1.9 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/net v0.55.0 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
	golang.org/x/text v0.37.0 // indirect
)

// The Go guest SDK is a module of its own, the one tool projects require
// (wasmcp new writes their go.mod); plugins/ and examples/go/ use this copy.
replace github.com/wasmcp/wasmcp/sdk-guest/go => ./sdk-guest/go
