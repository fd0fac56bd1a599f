module github.com/wasmcp/wasmcp/examples/extism/go

go 1.26.8

require github.com/extism/go-pdk v1.1.3
