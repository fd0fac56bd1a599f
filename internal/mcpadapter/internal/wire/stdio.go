package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioOptions configure Stdio.
type StdioOptions struct {
	// MaxLine is the longest line accepted, in bytes, without its end.
	MaxLine int
	// MaxInFlight is the most calls unanswered before the input is no
	// longer read, and the most messages a batch may hold.
	MaxInFlight int
	// Drain bounds the time the calls in flight when the input ends have
	// to be answered.
	Drain time.Duration
	// Logger receives a debug line for each line refused.
	Logger *slog.Logger
}

// Stdio returns a transport that speaks newline-delimited JSON-RPC on r and
// w, for one connection: go-sdk's IOTransport reading through lineFilter,
// its connection wrapped in stdioConn (see the package doc).
func Stdio(r io.ReadCloser, w io.WriteCloser, opts StdioOptions) mcp.Transport {
	state := newConnState(opts.MaxInFlight)
	out := &lockedWriter{w: w}
	in := &lineFilter{r: bufio.NewReaderSize(r, 64<<10), closer: r, limit: opts.MaxLine, out: out, state: state, log: opts.Logger}
	return &stdioTransport{in: in, out: out, state: state, drain: opts.Drain}
}

type stdioTransport struct {
	in    *lineFilter
	out   *lockedWriter
	state *connState
	drain time.Duration
}

func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	// The filter bounds lines; go-sdk need not.
	inner, err := (&mcp.IOTransport{Reader: t.in, Writer: t.out, MaxLineLength: -1}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &stdioConn{Connection: inner, state: t.state, drain: t.drain}, nil
}

// connState is what the filter and the connection of one stdio session
// share: the calls read and not yet answered, and the requests sent to the
// client and not yet answered.
type connState struct {
	mu       sync.Mutex
	cond     sync.Cond // signalled when a call is answered or the session closes
	max      int
	calls    map[jsonrpc.ID]*pending
	asked    map[jsonrpc.ID]bool // our requests to the client
	protocol string              // negotiated in initialize
	writing  int                 // answers being written
	closed   bool
}

func newConnState(maxInFlight int) *connState {
	s := &connState{max: maxInFlight, calls: map[jsonrpc.ID]*pending{}, asked: map[jsonrpc.ID]bool{}}
	s.cond.L = &s.mu
	return s
}

type pending struct {
	cancelled  bool
	batched    bool // answered in its batch's array, which go-sdk assembles
	initialize bool
}

// admit records the messages of one line, or refuses them: a batch after a
// handshake that has none, a call whose id is in use.
func (s *connState) admit(msgs []incoming, batch bool) *refusal {
	s.mu.Lock()
	defer s.mu.Unlock()
	if batch && batchless(s.protocol) {
		return &refusal{code: jsonrpc.CodeInvalidRequest,
			message: fmt.Sprintf("JSON-RPC batching is not supported in %s and later (this session: %s)", batchlessProtocol, s.protocol)}
	}
	seen := map[jsonrpc.ID]bool{}
	for _, in := range msgs {
		if in.call() {
			switch {
			case s.calls[in.id] != nil:
				// An answer to this call could settle that one in the client.
				return &refusal{code: jsonrpc.CodeInvalidRequest,
					message: fmt.Sprintf("request id %s is in use by a call in flight", clip(in.rawID))}
			case seen[in.id]:
				return &refusal{code: jsonrpc.CodeInvalidRequest,
					message: fmt.Sprintf("batch uses request id %s twice", clip(in.rawID))}
			}
			seen[in.id] = true
		}
	}
	for _, in := range msgs {
		switch {
		case in.call():
			s.calls[in.id] = &pending{batched: batch, initialize: in.method == "initialize"}
		case in.method == "notifications/cancelled":
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			_ = json.Unmarshal(in.params, &p) // go-sdk reports a malformed one
			if id, err := parseID(p.RequestID); err == nil && s.calls[id] != nil {
				s.calls[id].cancelled = true
			}
		}
	}
	return nil
}

// waitRoom blocks while the connection has its most calls in flight, and
// reports false once it is closed.
func (s *connState) waitRoom() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.calls) >= s.max && !s.closed {
		s.cond.Wait()
	}
	return !s.closed
}

// answer ends the call resp answers, so that its id may be used again as
// soon as the client can see the answer, and reports whether resp is sent:
// not for a call the client cancelled, unless its batch's answer needs it.
// A sent answer is counted as being written until written is called.
func (s *connState) answer(resp *jsonrpc.Response) (send bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.calls[resp.ID]
	if p == nil {
		s.writing++
		return true
	}
	delete(s.calls, resp.ID)
	s.cond.Broadcast()
	if p.initialize && resp.Error == nil {
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(resp.Result, &r)
		s.protocol = r.ProtocolVersion
	}
	if p.cancelled && !p.batched {
		return false
	}
	s.writing++
	return true
}

// written ends the write of an answer counted by answer.
func (s *connState) written() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writing--
	s.cond.Broadcast()
}

// ask records a request to the client, to be answered with an error if
// the input ends before the client answers it.
func (s *connState) ask(id jsonrpc.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked[id] = true
	s.cond.Broadcast() // a drain waits for these too
}

// drainNext waits, once the input has ended, for one of our requests that
// the client can no longer answer, and returns it, forgotten; it reports
// false once no call is in flight, the session closes or ctx is done.
func (s *connState) drainNext(ctx context.Context) (jsonrpc.ID, bool) {
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.cond.Broadcast()
	})
	defer stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for id := range s.asked {
			delete(s.asked, id)
			return id, true
		}
		if len(s.calls) == 0 && s.writing == 0 || s.closed || ctx.Err() != nil {
			return jsonrpc.ID{}, false
		}
		s.cond.Wait()
	}
}

func (s *connState) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.cond.Broadcast()
}

// lineFilter is the input go-sdk reads: the lines of r that passed the
// checks, each ending in "\n". The others are answered on out.
type lineFilter struct {
	r      *bufio.Reader
	closer io.Closer
	limit  int
	out    *lockedWriter
	state  *connState
	log    *slog.Logger

	next []byte // the rest of the line being read by go-sdk
	err  error  // the input's error, returned once next is read
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.next) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		if !f.state.waitRoom() {
			return 0, io.EOF
		}
		line, tooLong, err := readLine(f.r, f.limit)
		f.err = err
		// go-sdk reads a line's white space as the start of another value,
		// which never comes, and ends the session.
		if line = trimJSONSpace(line); len(line) > 0 {
			f.next = f.check(line, tooLong)
		}
	}
	n := copy(p, f.next)
	if f.next = f.next[n:]; len(f.next) == 0 {
		f.next = nil // the line's array, megabytes for a large call, is not kept
	}
	return n, nil
}

func (f *lineFilter) Close() error {
	f.state.close()
	return f.closer.Close()
}

// check returns line, with its end, when it may go on to go-sdk, and
// answers it with an error otherwise.
func (f *lineFilter) check(line []byte, tooLong bool) []byte {
	if tooLong {
		f.refuse(&refusal{id: prefixID(line), code: jsonrpc.CodeInvalidRequest,
			message: fmt.Sprintf("message longer than %d bytes", f.limit)})
		return nil
	}
	out, r := f.state.pass(line)
	if r != nil {
		f.refuse(r)
		return nil
	}
	return out
}

// pass returns what go-sdk is to read of line, which is not too long: the
// line and its end, or a batch split by splitBatch; or else the refusal
// that answers it.
func (s *connState) pass(line []byte) ([]byte, *refusal) {
	msgs, batch, r := decodeMessages(line, s.max)
	if r == nil {
		r = s.admit(msgs, batch)
	}
	if r != nil {
		return nil, r
	}
	if batch {
		return splitBatch(msgs), nil
	}
	return append(line, '\n'), nil
}

// splitBatch passes the notifications of a batch on as lines of their own,
// then the rest as a batch: go-sdk waits for an answer to each notification
// of a batch, which never comes, so it would never answer the batch (go-sdk
// #1256, fixed after v1.8.0). JSON-RPC lets a batch be processed in any
// order.
func splitBatch(msgs []incoming) []byte {
	var out []byte
	var rest []json.RawMessage
	for _, in := range msgs {
		if in.request() && !in.call() {
			out = append(append(out, in.raw...), '\n')
		} else {
			rest = append(rest, in.raw)
		}
	}
	if len(rest) > 0 {
		b, _ := Marshal(rest) // valid JSON values always marshal
		out = append(append(out, b...), '\n')
	}
	return out
}

func (f *lineFilter) refuse(r *refusal) {
	f.log.Debug("JSON-RPC line refused", "code", r.code, "error", r.message)
	if _, err := f.out.Write(append(r.response(), '\n')); err != nil {
		f.log.Debug("JSON-RPC error not sent", "error", err)
	}
}

// readLine reads the next line without its end ("\n" or "\r\n"), as a new
// slice. A line longer than limit bytes is read to its end and returned cut
// to limit, with tooLong.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		// Up to two bytes more than limit: a line of limit and its "\r\n".
		if keep := limit + 2 - len(line); keep > 0 {
			line = append(line, frag[:min(len(frag), keep)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) > limit {
			line, tooLong = line[:limit], true
		}
		return line, tooLong, err
	}
}

// lockedWriter writes each message with one Write, never interleaved with
// another: go-sdk's and the filter's error answers share the output.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// stdioConn is go-sdk's connection with cancelled calls left unanswered and
// the calls in flight answered before the session ends with its input.
type stdioConn struct {
	mcp.Connection
	state *connState
	drain time.Duration
	// ended is the end of the drain once the input has ended; zero before.
	ended time.Time
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if c.ended.IsZero() {
		msg, err := c.Connection.Read(ctx)
		if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
			c.state.mu.Lock()
			delete(c.state.asked, resp.ID)
			c.state.mu.Unlock()
		}
		if !errors.Is(err, io.EOF) || ctx.Err() != nil {
			return msg, err
		}
		c.ended = time.Now().Add(c.drain)
	}
	// The input ended. The calls in flight go on until they are answered;
	// a guest that waits on the client (sampling, elicitation) is told at
	// once that no answer will come.
	wait, cancel := context.WithDeadline(ctx, c.ended)
	defer cancel()
	if id, ok := c.state.drainNext(wait); ok {
		return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: "the client closed its input before answering"}}, nil
	}
	return nil, io.EOF
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	switch m := msg.(type) {
	case *jsonrpc.Response:
		if !c.state.answer(m) {
			return nil // cancelled by the client
		}
		// A drain waits for the write.
		defer c.state.written()
	case *jsonrpc.Request:
		if m.IsCall() {
			c.state.ask(m.ID)
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *stdioConn) Close() error {
	c.state.close()
	return c.Connection.Close()
}
