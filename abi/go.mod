module github.com/wasmcp/wasmcp/abi

go 1.26.8
