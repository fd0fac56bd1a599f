//go:build wasip1

package wasmcp

import (
	"unsafe"

	"github.com/wasmcp/wasmcp/abi"
)

// The import lives here, called only from HTTP, so that the linker keeps it
// out of modules that make no request: a module importing it does not load
// in a host older than it.

//go:wasmimport wasmcp http_request
func hostHTTPRequest(req string) uint64

func sendHTTP(req []byte) (abi.ReplyStatus, []byte) {
	// The host reads the request before it returns.
	status, n := abi.UnpackReply(hostHTTPRequest(unsafe.String(unsafe.SliceData(req), len(req))))
	reply := make([]byte, n)
	if n > 0 {
		reply = reply[:hostReadReply(unsafe.Pointer(unsafe.SliceData(reply)), n)]
	}
	return status, reply
}
