package mcpadapter

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the Streamable HTTP handler.
type HTTPOptions struct {
	// Stateless serves every client without a session (see HTTPHandler).
	Stateless bool
	// SessionTimeout closes a session that has sent no request for this
	// long; 0 keeps idle sessions until the client deletes them.
	SessionTimeout time.Duration
	// MaxSessions caps the sessions open at once; an initialize beyond it
	// gets 503. 0 means DefaultMaxSessions.
	MaxSessions int
	// MaxBody is the largest request body accepted; larger ones get 413.
	// 0 derives it from Options.MaxInput.
	MaxBody int64
	// BodyTimeout bounds the time a client may take to send a request's
	// body; 0 means DefaultBodyTimeout.
	BodyTimeout time.Duration
	// Draining, if set and true, refuses with 503 every request that would
	// start something new: an initialize, and any request without a
	// session (stateless and 2026-07-28 requests). Requests of open
	// sessions still pass, so that their clients can cancel the calls in
	// flight while the server stops.
	Draining func() bool
}

// Defaults of HTTPOptions.
const (
	DefaultMaxSessions = 1000
	DefaultBodyTimeout = 30 * time.Second
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
// messages checked as on stdio (jsonrpc.go); a request naming a method the
// server does not have is answered with JSON-RPC error -32601, as on stdio,
// where go-sdk answers a 2025-era session with a plain-text 400. The SDK's
// DNS-rebinding guard stays on: a request that reached a loopback address
// with a Host header that is not a loopback name gets 403.
func (a *Adapter) HTTPHandler(opts HTTPOptions) http.Handler {
	if opts.MaxBody <= 0 {
		opts.MaxBody = int64(a.lineLimit())
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
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
	router := &eraRouter{modern: handler(a.newServer(true, false, true), stateless)}
	if opts.Stateless {
		router.legacy = handler(a.newServer(false, true, true), stateless)
	} else {
		legacy := base
		legacy.SessionTimeout = opts.SessionTimeout
		router.legacy = handler(a.server, legacy)
		router.sessions = a.sessions
	}
	return &checkRequests{next: router, opts: opts, maxBatch: a.opts.MaxInFlight, logger: a.logger}
}

// eraRouter sends each request to the handler of its protocol era.
type eraRouter struct {
	modern, legacy http.Handler
	// sessions counts the open sessions of legacy; nil when it has none.
	sessions func() int
}

func (e *eraRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if modern(r.Header.Get("Mcp-Protocol-Version")) {
		e.modern.ServeHTTP(w, r)
		return
	}
	e.legacy.ServeHTTP(w, r)
}

// checkRequests reads and checks the body of each POST before the router
// sees it (see HTTPHandler).
type checkRequests struct {
	next     *eraRouter
	opts     HTTPOptions
	maxBatch int
	logger   *slog.Logger
}

func (c *checkRequests) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		c.next.ServeHTTP(w, r)
		return
	}
	body, err := c.readBody(w, r)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, fmt.Sprintf("request body over the limit of %d bytes", c.opts.MaxBody), http.StatusRequestEntityTooLarge)
			return
		}
		c.logger.Debug("request body not read", "error", err)
		http.Error(w, fmt.Sprintf("request body not read within %s: %v", c.opts.BodyTimeout, err), http.StatusRequestTimeout)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	msgs, _, refused := decodeMessages(body, c.maxBatch)
	if refused != nil {
		c.logger.Debug("JSON-RPC request refused", "code", refused.code, "error", refused.message)
		writeJSONRPC(w, http.StatusBadRequest, refused.response())
		return
	}
	var call *incoming
	if len(msgs) == 1 && msgs[0].call() {
		call = &msgs[0]
	}
	if c.opts.Draining != nil && r.Header.Get("Mcp-Session-Id") == "" && c.opts.Draining() {
		w.Header().Set("Retry-After", "1")
		msg := "server shutting down: it takes no new sessions or requests; retry (another replica answers " +
			"behind a load balancer)"
		if call == nil {
			http.Error(w, msg, http.StatusServiceUnavailable)
			return
		}
		writeJSONRPC(w, http.StatusServiceUnavailable, (&refusal{id: call.rawID, code: jsonrpc.CodeInternalError, message: msg}).response())
		return
	}
	if call != nil && c.overSessionCap(r, call) {
		w.Header().Set("Retry-After", "60")
		writeJSONRPC(w, http.StatusServiceUnavailable, (&refusal{id: call.rawID, code: jsonrpc.CodeInternalError,
			message: fmt.Sprintf("too many sessions: this server holds at most %d open at once (--max-sessions); "+
				"retry later, or end an idle session", c.opts.MaxSessions)}).response())
		return
	}
	if call == nil {
		c.next.ServeHTTP(w, r)
		return
	}
	// go-sdk answers a method it does not have, in a 2025-era request,
	// with a plain-text 400 that clients cannot read as an answer.
	cw := &notHandledWriter{ResponseWriter: w}
	c.next.ServeHTTP(cw, r)
	cw.finish()
	if cw.notHandled {
		writeJSONRPC(w, http.StatusOK, (&refusal{id: call.rawID, code: jsonrpc.CodeMethodNotFound,
			message: fmt.Sprintf("method %q not found", call.method)}).response())
	}
}

// readBody reads r's body, up to MaxBody bytes and within BodyTimeout, so
// that a client trickling its body cannot hold a connection open.
func (c *checkRequests) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	rc := http.NewResponseController(w)
	// Not every ResponseWriter supports deadlines (a test recorder): then
	// only the size is bounded.
	deadline := rc.SetReadDeadline(time.Now().Add(c.opts.BodyTimeout)) == nil
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, c.opts.MaxBody))
	if err != nil {
		// The connection is not read again: what is left of the body
		// may never come.
		w.Header().Set("Connection", "close")
		return nil, err
	}
	if deadline {
		// Lifted: the response may be an event stream that lasts.
		_ = rc.SetReadDeadline(time.Time{})
	}
	return body, nil
}

// overSessionCap reports whether call would open a session past the cap: an
// initialize of a 2025-era client served with sessions.
func (c *checkRequests) overSessionCap(r *http.Request, call *incoming) bool {
	return c.next.sessions != nil && call.method == "initialize" && r.Header.Get("Mcp-Session-Id") == "" &&
		!modern(r.Header.Get("Mcp-Protocol-Version")) && c.next.sessions() >= c.opts.MaxSessions
}

func writeJSONRPC(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// notHandledWriter passes a response through, except go-sdk's plain-text 400
// for a method it does not have, which it swallows and reports.
type notHandledWriter struct {
	http.ResponseWriter
	status     int  // 400 held back until its body is seen
	notHandled bool // the held 400 is go-sdk's "JSON RPC not handled"
	passed     bool // headers went through
}

// jsonrpcNotHandled starts the message of go-sdk's ErrNotHandled.
const jsonrpcNotHandled = "JSON RPC not handled"

func (w *notHandledWriter) WriteHeader(status int) {
	if status == http.StatusBadRequest && !w.passed &&
		strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.status = status
		return
	}
	w.passed = true
	w.ResponseWriter.WriteHeader(status)
}

func (w *notHandledWriter) Write(p []byte) (int, error) {
	if w.status != 0 && !w.passed {
		if bytes.HasPrefix(p, []byte(jsonrpcNotHandled)) {
			w.notHandled = true
			w.Header().Del("Content-Type")
			w.Header().Del("X-Content-Type-Options")
			return len(p), nil
		}
		w.passed = true
		w.ResponseWriter.WriteHeader(w.status)
	}
	if w.notHandled {
		return len(p), nil
	}
	w.passed = true
	return w.ResponseWriter.Write(p)
}

// finish sends a held status that no body followed.
func (w *notHandledWriter) finish() {
	if w.status != 0 && !w.passed && !w.notHandled {
		w.passed = true
		w.ResponseWriter.WriteHeader(w.status)
	}
}

// Unwrap lets http.ResponseController reach the connection (flushes of
// event streams, deadlines).
func (w *notHandledWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *notHandledWriter) Flush() {
	if !w.notHandled {
		_ = http.NewResponseController(w.ResponseWriter).Flush()
	}
}
