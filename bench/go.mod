module github.com/wasmcp/wasmcp/bench

go 1.26.8

require (
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/itchyny/gojq v0.12.20
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/tetratelabs/wazero v1.12.0
	github.com/wasmcp/wasmcp v0.0.0
	github.com/wasmcp/wasmcp/abi v0.0.0
	github.com/wasmcp/wasmcp/sdk-guest/go v0.0.0
	golang.org/x/oauth2 v0.37.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dylibso/observe-sdk/go v0.0.0-20240819160327-2d926c5d788a // indirect
	github.com/extism/go-sdk v1.7.1
	github.com/fsnotify/fsnotify v1.10.1 // indirect
	github.com/gobwas/glob v0.2.3 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/ianlancetaylor/demangle v0.0.0-20240805132620-81f5be970eca // indirect
	github.com/itchyny/timefmt-go v0.1.9 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/tetratelabs/wabin v0.0.0-20230304001439-f6f874872834 // indirect
	github.com/wasmcp/wasmcp/plugins v0.0.0
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.opentelemetry.io/otel v1.47.0 // indirect
	go.opentelemetry.io/otel/metric v1.47.0 // indirect
	go.opentelemetry.io/otel/trace v1.47.0 // indirect
	go.opentelemetry.io/proto/otlp v1.11.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

// The bench measures the wasmcp of this working tree, with its guest SDK,
// contract and first-party plugins (the native diff of plugins/text).
replace (
	github.com/wasmcp/wasmcp => ../
	github.com/wasmcp/wasmcp/abi => ../abi
	github.com/wasmcp/wasmcp/plugins => ../plugins
	github.com/wasmcp/wasmcp/sdk-guest/go => ../sdk-guest/go
)
