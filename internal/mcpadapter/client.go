package mcpadapter

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/mcpadapter/internal/wire"
)

// clientFeatures connects a tools/call to the client that sent it: progress
// notifications when the request carries a progress token, and sampling,
// elicitation and roots requests. A client of the 2026-07-28 protocol
// answers those in requests of its own, through rs (round.go); an earlier
// client is sent them on its session, unless it has none (stateless). Each
// is left unset or refused, so that the guest is told "not supported", when
// the request has no way to reach its client.
func (a *Adapter) clientFeatures(ctx context.Context, req *mcp.CallToolRequest, creq *host.CallRequest, rs *round, stateless bool) {
	ss := req.Session
	caps := req.ClientCapabilities()
	if rs != nil {
		creq.Sample = ask[mcp.CreateMessageParams](rs, methodSample, caps != nil && caps.Sampling != nil)
		creq.Elicit = ask[mcp.ElicitParams](rs, methodElicit, caps != nil && caps.Elicitation != nil)
		creq.Roots = ask[mcp.ListRootsParams](rs, methodRoots, caps != nil && caps.RootsV2 != nil)
	}
	if ss == nil {
		return
	}
	if token := req.Params.GetProgressToken(); token != nil {
		creq.Progress = func(progress, total float64, msg string) {
			if rs != nil && rs.replaying() {
				return // sent in an earlier round
			}
			p := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: progress, Message: msg}
			if total >= 0 {
				p.Total = total
			}
			if err := ss.NotifyProgress(ctx, p); err != nil {
				a.logger.Debug("progress not sent to client", "tool", req.Params.Name, "error", err)
			}
		}
	}
	if rs != nil {
		return
	}
	if stateless {
		creq.Sample, creq.Elicit = statelessRefusal("sampling"), statelessRefusal("elicitation")
		return
	}
	creq.Sample = sendRequest(ss, methodSample, caps != nil && caps.Sampling != nil, (*mcp.ServerSession).CreateMessage)
	creq.Elicit = sendRequest(ss, methodElicit, caps != nil && caps.Elicitation != nil, (*mcp.ServerSession).Elicit)
	creq.Roots = a.listRoots(ss, caps != nil && caps.RootsV2 != nil)
	creq.Notify = func(method string, params json.RawMessage) {
		if method != "notifications/elicitation/complete" {
			return
		}
		var p mcp.ElicitationCompleteParams
		if err := json.Unmarshal(params, &p); err != nil {
			a.logger.Debug("notification from a plugin not sent: malformed", "method", method, "error", err)
			return
		}
		if err := ss.NotifyElicitationComplete(ctx, &p); err != nil {
			a.logger.Debug("notification not sent to client", "method", method, "error", err)
		}
	}
}

// listRoots is the roots function of a call in a session: roots/list to a
// client that declared roots (hyper-mcp's list_roots).
func (a *Adapter) listRoots(ss *mcp.ServerSession, declared bool) host.RequestFunc {
	return func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		if !declared {
			return nil, notDeclared("roots")
		}
		res, err := ss.ListRoots(ctx, &mcp.ListRootsParams{})
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
}

// sendRequest is a sampling or elicitation function that sends the guest's
// params, as the request type P, on ss with send, and returns the client's
// result. send is a method expression rather than a method value, which
// would cost every call an allocation whether the guest asks or not.
func sendRequest[P any, R any](ss *mcp.ServerSession, method string, declared bool, send func(*mcp.ServerSession, context.Context, *P) (R, error)) func(context.Context, json.RawMessage) (json.RawMessage, error) {
	return func(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
		if err := serverRequestsAllowed(ss, feature(method), declared); err != nil {
			return nil, err
		}
		p, err := decodeParams[P](method, params)
		if err != nil {
			return nil, err
		}
		res, err := send(ss, ctx, p)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
}

// decodeParams decodes the guest's params of an input request method as the
// SDK's type for them.
func decodeParams[P any](method string, params json.RawMessage) (*P, error) {
	var p P
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, fmt.Errorf("invalid %s params: %w", method, err)
	}
	return &p, nil
}

// feature names the client capability an input request method needs.
func feature(method string) string {
	switch method {
	case methodElicit:
		return "elicitation"
	case methodRoots:
		return "roots"
	}
	return "sampling"
}

// serverRequestsAllowed reports, as an error wrapping host.ErrNotSupported,
// why the client cannot be sent a feature request: it did not declare the
// capability, or its protocol version has no server-to-client requests.
func serverRequestsAllowed(ss *mcp.ServerSession, feature string, declared bool) error {
	if p := ss.InitializeParams(); p != nil && wire.Modern(p.ProtocolVersion) {
		return fmt.Errorf("%w: %s from a tool needs a client speaking a protocol before %s (this one speaks %s)",
			host.ErrNotSupported, feature, wire.ModernProtocol, p.ProtocolVersion)
	}
	if !declared {
		return notDeclared(feature)
	}
	return nil
}

// statelessRefusal is the sampling or elicitation function of a 2025-era
// client served without a session, which the server cannot send requests:
// it says so, rather than blame the client's capabilities.
func statelessRefusal(feature string) host.RequestFunc {
	return func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, fmt.Errorf("%w: %s from a tool needs a session, and this server serves clients of protocols "+
			"before %s without one (--stateless)", host.ErrNotSupported, feature, wire.ModernProtocol)
	}
}

// notDeclared is the error of a feature request to a client that did not
// declare the capability.
func notDeclared(feature string) error {
	return fmt.Errorf("%w: the client did not declare the %s capability", host.ErrNotSupported, feature)
}
