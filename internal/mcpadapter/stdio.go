package mcpadapter

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewStdioTransport returns the MCP stdio transport Serve uses:
// newline-delimited JSON-RPC read from r and written to w, both closed when
// the session ends. It is go-sdk's IOTransport with these differences:
//
//   - Each line is decoded once (wire.go), where go-sdk unmarshals it three
//     times, each with a 32 KB decoder buffer; a message is written with one
//     Write, built without reflection.
//   - A line that is not JSON is answered with a JSON-RPC parse error
//     (-32700), one that is not a JSON-RPC message, or is longer than
//     maxLine bytes, with an invalid-request error (-32600), and the session
//     goes on; go-sdk ends the session. Messages must be one per line, as
//     MCP's stdio transport says; go-sdk also accepts JSON spread over
//     lines.
//   - The response to a call the client cancelled is not sent (cancel.go).
//
// maxLine <= 0 means mcp.DefaultMaxLineLength. It is exported for the
// benchmark's native go-sdk server, so that both sides of that comparison
// use one transport.
func NewStdioTransport(r io.ReadCloser, w io.WriteCloser, maxLine int) mcp.Transport {
	return newStdioTransport(r, w, maxLine, slog.New(slog.DiscardHandler))
}

// newStdioTransport is NewStdioTransport with a logger for refused lines.
func newStdioTransport(r io.ReadCloser, w io.WriteCloser, maxLine int, logger *slog.Logger) *stdioTransport {
	if maxLine <= 0 {
		maxLine = mcp.DefaultMaxLineLength
	}
	return &stdioTransport{r: r, w: w, maxLine: maxLine, logger: logger}
}

type stdioTransport struct {
	r       io.ReadCloser
	w       io.WriteCloser
	maxLine int
	logger  *slog.Logger
}

// Connect starts reading r.
func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{
		r:        t.r,
		w:        t.w,
		maxLine:  t.maxLine,
		logger:   t.logger,
		calls:    newCalls(),
		incoming: make(chan readResult),
		closed:   make(chan struct{}),
	}
	go c.readLoop()
	return c, nil
}

// stdioConn is the mcp.Connection of a stdioTransport. Lines are read and
// decoded on a goroutine of their own, so that Close can end a Read
// blocked on a reader that closing does not interrupt (os.Stdin); that
// goroutine then stays blocked until the process ends, as go-sdk's does.
type stdioConn struct {
	r       io.ReadCloser
	w       io.WriteCloser
	maxLine int
	logger  *slog.Logger
	calls   *calls

	incoming  chan readResult // from readLoop
	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error

	writeMu sync.Mutex
	buf     []byte // guarded by writeMu: the message being written
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// maxKeptBuffer bounds the write buffer kept between messages.
const maxKeptBuffer = 64 << 10

// SessionID is "": a stdio connection has no session id.
func (c *stdioConn) SessionID() string { return "" }

// Read returns the next message, or io.EOF once the connection is closed.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write writes msg as one line, or, for a response, what cancel.go says:
// nothing, it alone, or the batch it completes.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	// A message sent for a request that is over (its context done) is not
	// written, as go-sdk's transports do.
	if err := ctx.Err(); err != nil {
		return err
	}
	var batch []*jsonrpc.Response
	if resp, ok := msg.(*jsonrpc.Response); ok {
		var send bool
		if send, batch = c.calls.answered(resp); !send {
			return nil
		}
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	b, err := c.buf[:0], error(nil)
	if batch == nil {
		b, err = appendMessage(b, msg)
	} else {
		b = append(b, '[')
		for i, resp := range batch {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendMessage(b, resp); err != nil {
				break
			}
		}
		b = append(b, ']')
	}
	if err != nil {
		return fmt.Errorf("marshaling message: %w", err)
	}
	return c.writeLine(b)
}

// writeLine writes b and a line end; writeMu is held.
func (c *stdioConn) writeLine(b []byte) error {
	b = append(b, '\n')
	_, err := c.w.Write(b)
	if cap(b) <= maxKeptBuffer {
		c.buf = b[:0]
	}
	return err
}

// Close closes the reader and the writer, and ends Read.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.closeErr = errors.Join(c.r.Close(), c.w.Close())
	})
	return c.closeErr
}

// readLoop reads lines until the input ends or fails, and hands their
// messages to Read.
func (c *stdioConn) readLoop() {
	br := bufio.NewReaderSize(c.r, 64<<10)
	for {
		line, tooLong, err := readLine(br, c.maxLine)
		if len(bytes.TrimSpace(line)) > 0 && !c.receive(line, tooLong) {
			return
		}
		if err != nil {
			c.deliver(readResult{err: err})
			return
		}
		if br.Buffered() == 0 {
			// Let the goroutine deliver woke run here first. Go does not
			// hand a goroutine's processor on when it blocks in a system
			// call, so the next read would leave the message's handler
			// queued on this processor until a thread woken for it (on a
			// virtual machine, a halted CPU) steals it: in the execution
			// traces of the benchmark, a median 16 µs from delivery to the
			// handler's start, 8 µs with the yield. The read this
			// goroutine makes afterwards is off the request's path.
			runtime.Gosched()
		}
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

// receive decodes one line and hands its messages on, or answers it with
// an error. It reports false once the connection is closed.
func (c *stdioConn) receive(line []byte, tooLong bool) bool {
	if tooLong {
		c.refuse(requestID(line), jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes", c.maxLine))
		return true
	}
	if !json.Valid(line) {
		c.refuse(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: not a JSON value")
		return true
	}
	if line[skipSpace(line, 0)] == '[' {
		return c.receiveBatch(line)
	}
	msg, err := decodeMessage(line)
	if err != nil {
		c.refuse(requestID(line), jsonrpc.CodeInvalidRequest, err.Error())
		return true
	}
	c.calls.received(msg)
	return c.deliver(readResult{msg: msg})
}

// receiveBatch hands on the messages of a batch (a JSON array), or refuses
// it whole, as go-sdk does, if one of them is not a message.
func (c *stdioConn) receiveBatch(line []byte) bool {
	var msgs []jsonrpc.Message
	i := skipSpace(line, 0) + 1
	for i = skipSpace(line, i); i < len(line) && line[i] != ']'; {
		end, _ := skipValue(line, i) // valid JSON: delimited
		msg, err := decodeMessage(line[i:end])
		if err != nil {
			c.refuse(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "batch: "+err.Error())
			return true
		}
		msgs = append(msgs, msg)
		if i = skipSpace(line, end); i < len(line) && line[i] == ',' {
			i = skipSpace(line, i+1)
		}
	}
	if len(msgs) == 0 {
		c.refuse(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "empty batch")
		return true
	}
	if err := c.calls.receivedBatch(msgs); err != nil {
		c.refuse(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, err.Error())
		return true
	}
	for _, msg := range msgs {
		if !c.deliver(readResult{msg: msg}) {
			return false
		}
	}
	return true
}

// deliver hands r to Read, unless the connection closes first.
func (c *stdioConn) deliver(r readResult) bool {
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

// requestID is the id of a refused line that is a request, as far as it can
// be read; none otherwise. A response's id is never echoed: the client
// could take the error for the answer to a request of its own.
func requestID(line []byte) jsonrpc.ID {
	f, _ := splitObject(line)
	if f.method == nil {
		return jsonrpc.ID{}
	}
	id, _ := decodeID(f.id)
	return id
}

// refuse answers a line that carries no message the SDK could take, with
// id null when the line's request id is unknown, as JSON-RPC asks.
func (c *stdioConn) refuse(id jsonrpc.ID, code int64, message string) {
	c.logger.Debug("JSON-RPC line refused", "code", code, "error", message)
	e, err := json.Marshal(&jsonrpc.Error{Code: code, Message: message})
	if err != nil {
		return // a code and a string always marshal
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	b := append(c.buf[:0], `{"jsonrpc":"2.0","id":`...)
	b = append(append(appendID(b, id), `,"error":`...), e...)
	if err := c.writeLine(append(b, '}')); err != nil {
		c.logger.Debug("JSON-RPC error not sent", "error", err)
	}
}
