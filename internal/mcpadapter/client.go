package mcpadapter

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/host"
)

// The protocol version from which servers may no longer send requests to
// the client in the middle of a tools/call (they return input requests
// instead, SEP-2322). Sampling and elicitation from a guest need the older
// request flow, so they are unsupported for clients of that era.
const protocolNoServerRequests = "2026-07-28"

// clientFeatures connects a tools/call to the client that sent it: progress
// notifications when the request carries a progress token, and sampling and
// elicitation requests. Each is left unset (the guest is told "not
// supported") when the request has no session to send it on.
func (a *Adapter) clientFeatures(ctx context.Context, req *mcp.CallToolRequest, creq *host.CallRequest) {
	ss := req.Session
	if ss == nil {
		return
	}
	if token := req.Params.GetProgressToken(); token != nil {
		creq.Progress = func(progress, total float64, msg string) {
			p := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: progress, Message: msg}
			if total >= 0 {
				p.Total = total
			}
			if err := ss.NotifyProgress(ctx, p); err != nil {
				a.logger.Debug("progress not sent to client", "tool", req.Params.Name, "error", err)
			}
		}
	}
	caps := req.ClientCapabilities()
	creq.Sample = func(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
		if err := serverRequestsAllowed(ss, "sampling", caps != nil && caps.Sampling != nil); err != nil {
			return nil, err
		}
		var p mcp.CreateMessageParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("invalid sampling/createMessage params: %w", err)
		}
		res, err := ss.CreateMessage(ctx, &p)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
	creq.Elicit = func(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
		if err := serverRequestsAllowed(ss, "elicitation", caps != nil && caps.Elicitation != nil); err != nil {
			return nil, err
		}
		var p mcp.ElicitParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("invalid elicitation/create params: %w", err)
		}
		res, err := ss.Elicit(ctx, &p)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
}

// serverRequestsAllowed reports, as an error wrapping host.ErrNotSupported,
// why the client cannot be sent a feature request: it did not declare the
// capability, or its protocol version has no server-to-client requests.
func serverRequestsAllowed(ss *mcp.ServerSession, feature string, declared bool) error {
	if p := ss.InitializeParams(); p != nil && p.ProtocolVersion >= protocolNoServerRequests {
		return fmt.Errorf("%w: %s from a tool needs a client speaking a protocol before %s (this one speaks %s)",
			host.ErrNotSupported, feature, protocolNoServerRequests, p.ProtocolVersion)
	}
	if !declared {
		return fmt.Errorf("%w: the client did not declare the %s capability", host.ErrNotSupported, feature)
	}
	return nil
}
