package mcpadapter

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/internal/mcpadapter/internal/wire"
)

// HTTPOptions configure the Streamable HTTP handler.
type HTTPOptions struct {
	// Stateless serves every client without a session (see HTTPHandler).
	Stateless bool
	// SessionTimeout closes a session that has sent no request for this
	// long; 0 keeps idle sessions until the client deletes them.
	SessionTimeout time.Duration
	// MaxSessions caps the sessions open at once; 0 means
	// DefaultMaxSessions. An initialize at the cap closes the least
	// recently used idle session of the owner holding the most (see
	// sessionTable), and gets 503 only when every session is busy.
	MaxSessions int
	// MaxPrincipalSessions caps the sessions one OAuth principal holds
	// open at once; 0 means DefaultMaxPrincipalSessions. A principal at
	// its cap that opens another closes its own least recently used idle
	// session, and gets 429 when all of its sessions are busy.
	MaxPrincipalSessions int
	// MaxBody is the largest request body accepted; larger ones get 413.
	// 0 derives it from Options.MaxInput.
	MaxBody int64
	// BodyTimeout bounds the time a client may take to send a request's
	// body; 0 means DefaultBodyTimeout.
	BodyTimeout time.Duration
	// OAuth, if set, says that each request carries a verified principal
	// (auth.go), which lists and calls as its views say.
	OAuth *OAuth
	// Draining, if set and true, refuses with 503 every request that would
	// start something new: an initialize, and any request without a
	// session (stateless and 2026-07-28 requests). Requests of open
	// sessions still pass, so that their clients can cancel the calls in
	// flight while the server stops.
	Draining func() bool
}

// Defaults of HTTPOptions.
const (
	DefaultMaxSessions          = 1000
	DefaultMaxPrincipalSessions = 100
	DefaultBodyTimeout          = 30 * time.Second
)

// HTTPHandler returns the MCP Streamable HTTP handler of the adapter, for
// one endpoint (wasmcp mounts it at /mcp). Call it once.
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
// well, so that any replica can answer any request, by a server that
// promises those clients what it can deliver: no list_changed, no log lines
// (they cannot set a level), and sampling and elicitation refused with an
// error that names stateless mode.
//
// Before go-sdk sees a request, its body is read within BodyTimeout and its
// messages checked as on stdio; a request naming a method the server does
// not have is answered with JSON-RPC error -32601, as on stdio, where go-sdk
// answers a 2025-era session with a plain-text 400 (wire.CheckRequests).
// The SDK's DNS-rebinding guard stays on: a request that reached a loopback
// address with a Host header that is not a loopback name gets 403.
func (a *Adapter) HTTPHandler(opts HTTPOptions) http.Handler {
	if opts.MaxBody <= 0 {
		opts.MaxBody = int64(a.lineLimit())
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxPrincipalSessions <= 0 {
		opts.MaxPrincipalSessions = DefaultMaxPrincipalSessions
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	base := mcp.StreamableHTTPOptions{
		Logger:              slog.New(sdkHandler{a.logger.Handler()}),
		MaxRequestBodyBytes: opts.MaxBody,
		// A stateless request is its own lifetime: when its client hangs
		// up, the call is cancelled and its guest stopped.
		PropagateRequestCancellation: true,
	}
	handler := func(s *mcp.Server, o mcp.StreamableHTTPOptions) http.Handler {
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &o)
	}
	stateless := base
	stateless.Stateless = true
	checks := wire.RequestChecks{MaxBody: opts.MaxBody, BodyTimeout: opts.BodyTimeout, MaxBatch: a.opts.MaxInFlight,
		Draining: opts.Draining, Logger: a.logger}
	router := &eraRouter{modern: handler(a.newServer(true, false, true), stateless)}
	if opts.Stateless {
		router.legacy = handler(a.newServer(false, true, true), stateless)
	} else {
		legacy := base
		legacy.SessionTimeout = opts.SessionTimeout
		sessions := newSessionTable(a, opts.MaxSessions, opts.MaxPrincipalSessions)
		router.legacy = sessions.track(handler(a.server, legacy))
		checks.OpenSession = sessions.open
	}
	if opts.OAuth == nil {
		return wire.CheckRequests(router, checks)
	}
	checks.StepUp = a.stepUp(opts.OAuth)
	return wire.CheckRequests(withTokenInfo(router), checks)
}

// eraRouter sends each request to the handler of its protocol era.
type eraRouter struct {
	modern, legacy http.Handler
}

func (e *eraRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if wire.Modern(r.Header.Get("Mcp-Protocol-Version")) {
		e.modern.ServeHTTP(w, r)
		return
	}
	e.legacy.ServeHTTP(w, r)
}
