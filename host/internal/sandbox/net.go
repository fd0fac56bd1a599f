package sandbox

import (
	"context"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmcp/wasmcp/abi"
)

// httpRequest implements wasmcp.http_request: (req_ptr, req_len) -> i64. The
// instance's client (egress) checks the request against the plugin's net
// policy, sends it and returns the status and reply for read_reply. The
// wait takes no processor's turn, and, unlike a wait for the client's
// answer, counts against the call's deadline: the network is the guest's
// doing. The deadline, and cancellation, abort the request.
func (m *Module) httpRequest(ctx context.Context, mod api.Module, stack []uint64) {
	// The guest runs no code while the request is made, so its memory
	// stays as it is: the request is decoded in place.
	req := guestRegion(mod, abi.ImportHTTPRequest, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]))
	in := instanceFrom(ctx)
	st := in.call()
	if st == nil || st.budget == nil {
		// _initialize and describe run before any grant, outside a call.
		stack[0] = abi.PackReply(abi.StatusDenied, 0)
		return
	}
	var status abi.ReplyStatus
	var reply []byte
	// The caller's context: done with the call's budget, and carrying the
	// caller's values for the audit line's logger.
	rctx := st.budget.caller()
	in.outside(func() { status, reply = in.net.Do(rctx, st.tool, req) })
	st.reply = reply
	stack[0] = abi.PackReply(status, uint32(len(reply)))
}
