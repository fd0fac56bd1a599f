//go:build !wasip1

package wasmcp

import (
	"fmt"
	"os"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/guest"
)

// Outside WebAssembly there is no host: log lines go to standard error, and
// tools are called through package wasmcptest.
func init() {
	guest.LogSink = func(level abi.LogLevel, msg string) {
		fmt.Fprintf(os.Stderr, "wasmcp %s: %s\n", level, msg)
	}
}
