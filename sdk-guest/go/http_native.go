//go:build !wasip1

package wasmcp

import (
	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/guest"
)

// Natively (go test) requests go to the handler wasmcptest.ServeHTTP
// installs, or nowhere.
func sendHTTP(req []byte) (abi.ReplyStatus, []byte) {
	if guest.HTTP == nil {
		return abi.StatusUnsupported, []byte("http requests need a wasmcp host (in tests, wasmcptest.ServeHTTP gives them a handler)")
	}
	return guest.HTTP(req)
}
