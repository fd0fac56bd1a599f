package mcpadapter

import (
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// calls tracks the calls a stdio connection has read and not yet answered,
// for what their answers need:
//
//   - No response to a call the client cancelled with
//     notifications/cancelled, as MCP asks (the receiver "SHOULD NOT send a
//     response for the cancelled request"). The SDK cancels the handler's
//     context, which stops the guest, but still writes whatever the handler
//     returns, and a handler cannot decline to return something.
//   - The calls of a JSON-RPC batch are answered together, in one array, as
//     go-sdk's stdio transport answers them (a batch is answered whole,
//     cancelled calls included).
//   - The answer to initialize names the protocol version, and batches are
//     refused from 2025-06-18 on, as go-sdk refuses them.
//
// Only calls still in flight are remembered: a cancellation of a call that
// was answered already, or never made, is ignored, and an id may be reused
// once answered.
type calls struct {
	mu       sync.Mutex
	pending  map[jsonrpc.ID]call // guarded by mu
	protocol string              // negotiated protocol version; guarded by mu
}

type call struct {
	cancelled  bool
	initialize bool
	batch      *batch // nil for a call on its own
	index      int    // in batch.responses
}

// batch collects the responses of the calls of one batch.
type batch struct {
	responses  []*jsonrpc.Response
	unanswered int
}

// batchlessProtocol is the first protocol version without JSON-RPC batches.
const batchlessProtocol = "2025-06-18"

const (
	methodInitialize      = "initialize"
	notificationCancelled = "notifications/cancelled"
)

func newCalls() *calls { return &calls{pending: map[jsonrpc.ID]call{}} }

// received notes a message on its way to the SDK.
func (c *calls) received(msg jsonrpc.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.receivedLocked(msg, nil)
}

func (c *calls) receivedLocked(msg jsonrpc.Message, b *batch) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	switch {
	case req.IsCall():
		if _, dup := c.pending[req.ID]; dup {
			return // the SDK refuses it, without its id
		}
		cl := call{initialize: req.Method == methodInitialize, batch: b}
		if b != nil {
			cl.index = len(b.responses)
			b.responses = append(b.responses, nil)
			b.unanswered++
		}
		c.pending[req.ID] = cl
	case req.Method == notificationCancelled:
		id, err := cancelledID(req.Params)
		if err != nil {
			return // the SDK logs it
		}
		if cl, ok := c.pending[id]; ok {
			cl.cancelled = true
			c.pending[id] = cl
		}
	}
}

// receivedBatch notes the messages of a batch, or refuses the batch: after
// a handshake of 2025-06-18 or later, or when a call's id is used twice.
func (c *calls) receivedBatch(msgs []jsonrpc.Message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.protocol >= batchlessProtocol {
		return fmt.Errorf("JSON-RPC batching is not supported in %s and later (this session: %s)", batchlessProtocol, c.protocol)
	}
	seen := map[jsonrpc.ID]bool{}
	for _, msg := range msgs {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if _, dup := c.pending[req.ID]; dup || seen[req.ID] {
				return fmt.Errorf("batch uses request id %v twice", req.ID.Raw())
			}
			seen[req.ID] = true
		}
	}
	b := &batch{}
	for _, msg := range msgs {
		c.receivedLocked(msg, b)
	}
	return nil
}

// answered reports how the response resp goes out: not at all (a cancelled
// call, or a batch not complete yet), alone (batch nil), or as the array
// batch.
func (c *calls) answered(resp *jsonrpc.Response) (send bool, batch []*jsonrpc.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, ok := c.pending[resp.ID]
	if !ok {
		return true, nil
	}
	delete(c.pending, resp.ID)
	if cl.initialize && resp.Error == nil {
		c.protocol = protocolOf(resp.Result)
	}
	if b := cl.batch; b != nil {
		b.responses[cl.index] = resp
		if b.unanswered--; b.unanswered > 0 {
			return false, nil
		}
		return true, b.responses
	}
	return !cl.cancelled, nil
}

// cancelledID is the request id of notifications/cancelled params.
func cancelledID(params []byte) (jsonrpc.ID, error) {
	var raw []byte
	if err := eachMember(params, func(key, v []byte) {
		if string(key) == "requestId" {
			raw = v
		}
	}); err != nil {
		return jsonrpc.ID{}, err
	}
	return decodeID(raw)
}

// protocolOf is the protocolVersion of an initialize result.
func protocolOf(result []byte) string {
	var v string
	_ = eachMember(result, func(key, raw []byte) {
		if string(key) == "protocolVersion" {
			v, _ = decodeString(raw)
		}
	})
	return v
}
