// Command guest is the module wasm_test.go builds to exercise the SDK's
// WebAssembly glue under a real runtime.
package main

import (
	"strings"

	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
)

type text struct {
	Text string `json:"text"`
}

var sink [][]byte

func init() {
	wasmcp.AddTool("echo", "Echoes text.", func(in text) (string, error) {
		wasmcp.Info("echo " + in.Text)
		return "Echo: " + in.Text, nil
	})
	wasmcp.AddTool("size", "Measures text.", func(in text) (struct {
		Bytes int `json:"bytes"`
	}, error) {
		return struct {
			Bytes int `json:"bytes"`
		}{len(in.Text)}, nil
	})
	wasmcp.AddTool("upper", "Upper-cases text (a large result for a large input).", func(in text) (text, error) {
		return text{strings.ToUpper(in.Text)}, nil
	})
	wasmcp.AddTool("churn", "Allocates n MiB of garbage in 64 KiB pieces.", func(in struct {
		MiB int `json:"mib"`
	}) (string, error) {
		for i := 0; i < in.MiB*16; i++ {
			b := make([]byte, 64<<10)
			b[0] = byte(i)
			sink = append(sink, b)
			if len(sink) > 4 {
				sink = sink[1:]
			}
		}
		return "done", nil
	})
	wasmcp.AddTool("panic", "Panics.", func(struct{}) (string, error) {
		panic("on purpose")
	})
}

// main is required by the build but never runs in a c-shared module.
func main() {
	wasmcp.AddTool("from-main", "Never registered.", func(struct{}) (string, error) {
		return "", nil
	})
}
