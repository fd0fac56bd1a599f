// Command go is the Go kernel (lang/kernel) as a wasmcp tool, work_go:
// {"kernel":"scan"|"diff","n":N} returns the checksum as text. Build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o work-go.wasm .
package main

import (
	"errors"
	"strconv"

	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"

	"github.com/wasmcp/wasmcp/bench/lang/kernel"
)

// Args are work_go's arguments.
type Args struct {
	Kernel string `json:"kernel" jsonschema:"enum=scan|diff"`
	N      int    `json:"n" jsonschema:"minimum=0"`
}

func init() {
	wasmcp.AddTool("work_go", "The bench's CPU-bound kernels in Go.", func(a Args) (string, error) {
		switch a.Kernel {
		case "scan":
			return strconv.FormatUint(kernel.Scan(a.N), 10), nil
		case "diff":
			return strconv.FormatUint(kernel.Diff(a.N), 10), nil
		}
		return "", errors.New("unknown kernel")
	})
}

// main is required by the build; a -buildmode=c-shared module never runs it.
func main() {}
