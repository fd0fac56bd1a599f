package mcpadapter

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the Streamable HTTP handler.
type HTTPOptions struct {
	// Stateless serves every client without a session (see HTTPHandler).
	Stateless bool
	// SessionTimeout closes a session that has sent no request for this
	// long; 0 keeps idle sessions until the client deletes them.
	SessionTimeout time.Duration
	// MaxBody is the largest request body accepted; larger ones get 413.
	// 0 derives it from Options.MaxInput.
	MaxBody int64
}

// modernProtocol is the first protocol version without the initialize
// handshake: requests carry their version in the Mcp-Protocol-Version
// header, and the SDK serves them only on a stateless handler. Nor may a
// server send requests to the client in the middle of a call: it returns
// input requests instead (SEP-2322), which rounds.go turns the guest's
// sampling and elicitation into.
const modernProtocol = "2026-07-28"

// HTTPHandler returns the MCP Streamable HTTP handler of the adapter's
// server, for one endpoint (wasmcp mounts it at /mcp).
//
// Both protocol eras are served. Requests of the 2026-07-28 protocol (an
// Mcp-Protocol-Version header of that date or later) go to a stateless
// handler: each is complete in itself, and list_changed reaches the client on
// its subscriptions/listen stream. Everything else, the initialize handshake
// of 2025-11-25 and earlier and the requests that follow it, goes to a
// stateful handler unless opts.Stateless is set: the client gets an
// Mcp-Session-Id, a standalone event stream (GET) that carries list_changed
// and log lines, and server-to-client requests work.
//
// With opts.Stateless the older protocols are served without sessions as
// well, so that any replica can answer any request: those clients then get no
// list_changed (and no requests from the server); see the serve command's
// documentation for the trade-offs.
//
// The SDK's DNS-rebinding guard stays on: a request that reached a loopback
// address with a Host header that is not a loopback name gets 403.
func (a *Adapter) HTTPHandler(opts HTTPOptions) http.Handler {
	maxBody := opts.MaxBody
	if maxBody <= 0 {
		maxBody = int64(a.lineLimit())
	}
	base := mcp.StreamableHTTPOptions{
		Logger:              slog.New(sdkHandler{a.logger.Handler()}),
		MaxRequestBodyBytes: maxBody,
		// A 2026-07-28 request is its own lifetime: when its client hangs
		// up, the call is cancelled and its guest stopped.
		PropagateRequestCancellation: true,
	}
	getServer := func(*http.Request) *mcp.Server { return a.server }

	modern := base
	modern.Stateless = true
	modernHandler := mcp.NewStreamableHTTPHandler(getServer, &modern)
	if opts.Stateless {
		return modernHandler
	}
	legacy := base
	legacy.SessionTimeout = opts.SessionTimeout
	return &eraRouter{modern: modernHandler, legacy: mcp.NewStreamableHTTPHandler(getServer, &legacy)}
}

// eraRouter sends each request to the handler of its protocol era.
type eraRouter struct{ modern, legacy http.Handler }

func (e *eraRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Protocol versions are dates, YYYY-MM-DD: they order as strings.
	if r.Header.Get("Mcp-Protocol-Version") >= modernProtocol {
		e.modern.ServeHTTP(w, r)
		return
	}
	e.legacy.ServeHTTP(w, r)
}
