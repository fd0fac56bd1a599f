package guest

import "github.com/wasmcp/wasmcp/abi"

// HTTP answers the SDK's HTTP requests natively: test helpers set it to
// serve them from a handler. In a module the host answers and HTTP is not
// used. It is not safe to swap concurrently with calls.
var HTTP func(req []byte) (abi.ReplyStatus, []byte)
