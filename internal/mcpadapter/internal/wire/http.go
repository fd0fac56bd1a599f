package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// RequestChecks configure CheckRequests, as mcpadapter.HTTPOptions say.
type RequestChecks struct {
	MaxBody     int64
	BodyTimeout time.Duration
	MaxBatch    int // the most messages a batch may hold
	// OpenSession, if set, is asked before next serves an initialize that
	// would open a session (of a 2025-era client, served with sessions):
	// a refusal answers it instead. Otherwise opened is called once, with
	// the session id of the answer ("" when it opened none), as next
	// starts its answer: before the client can know the id, let alone
	// send a request of the session.
	OpenSession func(r *http.Request) (opened func(sessionID string), refused *SessionRefusal)
	Draining    func() bool
	Logger      *slog.Logger // a debug line for each request refused
	// StepUp, if set, is asked of every call's method and params: a
	// challenge refuses the whole request with 403 Forbidden and that
	// WWW-Authenticate header, so that the client can ask for the scopes it
	// names (OAuth step-up).
	StepUp func(r *http.Request, method string, params json.RawMessage) (challenge string, refused bool)
}

// A SessionRefusal is why an initialize opens no session: its HTTP status,
// the seconds a client should wait before it tries again, and the message
// of the JSON-RPC error that answers it.
type SessionRefusal struct {
	Status     int
	RetryAfter int
	Message    string
}

// CheckRequests returns a handler that reads and checks the body of each
// POST before next sees it: it reads the body within BodyTimeout and up to
// MaxBody bytes, refuses what the pre-reader refuses (jsonrpc.go) with 400
// and a JSON-RPC error, refuses a new session OpenSession refuses and new
// work while draining, and answers a call next does not handle with
// JSON-RPC -32601 where go-sdk sends a plain-text 400.
func CheckRequests(next http.Handler, opts RequestChecks) http.Handler {
	return &checkRequests{next: next, opts: opts}
}

type checkRequests struct {
	next http.Handler
	opts RequestChecks
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
		c.opts.Logger.Debug("request body not read", "error", err)
		http.Error(w, fmt.Sprintf("request body not read within %s: %v", c.opts.BodyTimeout, err), http.StatusRequestTimeout)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	msgs, _, refused := decodeMessages(body, c.opts.MaxBatch)
	if refused != nil {
		c.opts.Logger.Debug("JSON-RPC request refused", "code", refused.code, "error", refused.message)
		writeJSONRPC(w, http.StatusBadRequest, refused.response())
		return
	}
	var call *incoming
	if len(msgs) == 1 && msgs[0].call() {
		call = &msgs[0]
	}
	if challenge, refused := c.stepUp(r, msgs); refused {
		w.Header().Set("WWW-Authenticate", challenge)
		http.Error(w, "Forbidden: insufficient scope", http.StatusForbidden)
		return
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
	if call == nil {
		c.next.ServeHTTP(w, r)
		return
	}
	if c.opensSession(r, call) {
		opened, refused := c.opts.OpenSession(r)
		if refused != nil {
			w.Header().Set("Retry-After", strconv.Itoa(refused.RetryAfter))
			writeJSONRPC(w, refused.Status, (&refusal{id: call.rawID, code: jsonrpc.CodeInternalError, message: refused.Message}).response())
			return
		}
		ow := &openedWriter{ResponseWriter: w, opened: opened}
		defer ow.open() // no answer started: none opened
		w = ow
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

// stepUp asks StepUp of every call of msgs.
func (c *checkRequests) stepUp(r *http.Request, msgs []incoming) (string, bool) {
	if c.opts.StepUp == nil {
		return "", false
	}
	for _, m := range msgs {
		if !m.call() {
			continue
		}
		if challenge, refused := c.opts.StepUp(r, m.method, m.params); refused {
			return challenge, true
		}
	}
	return "", false
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

// opensSession reports whether call would open a session: an initialize of
// a 2025-era client served with sessions.
func (c *checkRequests) opensSession(r *http.Request, call *incoming) bool {
	return c.opts.OpenSession != nil && call.method == "initialize" && r.Header.Get("Mcp-Session-Id") == "" &&
		!Modern(r.Header.Get("Mcp-Protocol-Version"))
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

// openedWriter tells, once, the session id of an initialize's answer as the
// answer starts (RequestChecks.OpenSession).
type openedWriter struct {
	http.ResponseWriter
	opened func(sessionID string)
}

func (w *openedWriter) open() {
	if w.opened != nil {
		w.opened(w.Header().Get("Mcp-Session-Id"))
		w.opened = nil
	}
}

func (w *openedWriter) WriteHeader(status int) {
	w.open()
	w.ResponseWriter.WriteHeader(status)
}

func (w *openedWriter) Write(p []byte) (int, error) {
	w.open()
	return w.ResponseWriter.Write(p)
}

func (w *openedWriter) Flush() {
	w.open()
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *openedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
