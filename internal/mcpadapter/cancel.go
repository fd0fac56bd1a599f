package mcpadapter

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// cancelFilter keeps the stdio transport from answering a request the
// client cancelled with notifications/cancelled, as MCP asks (the receiver
// "SHOULD NOT send a response for the cancelled request"). The SDK cancels
// the handler's context, which stops the guest, but still writes whatever
// the handler returns, and a handler cannot decline to return something.
//
// It works on the newline-delimited bytes rather than by wrapping the SDK's
// connection, which would hide the connection's unexported session hooks
// (the SDK uses them to refuse JSON-RPC batches from newer clients). The
// reading side notes the IDs of cancelled requests; the writing side, which
// the SDK calls once per message, drops a response to one of them. Only
// lines that mention notifications/cancelled are decoded on the way in, and
// only while a cancellation is pending on the way out.
type cancelFilter struct {
	mu        sync.Mutex
	cancelled map[jsonrpc.ID]struct{} // guarded by mu
	line      []byte                  // start of the line being read; guarded by mu
	skip      bool                    // the line being read is too long to be a cancellation
}

// maxCancelLine bounds the bytes kept of an incoming line while looking for
// cancellations. A cancellation is short; a longer line (a big tools/call)
// is not kept.
const maxCancelLine = 64 << 10

// maxPendingCancels bounds the cancelled IDs remembered while waiting for
// their responses.
const maxPendingCancels = 1024

// cancelMethod appears in every notifications/cancelled line.
var cancelMethod = []byte(`"notifications/cancelled"`)

func newCancelFilter() *cancelFilter {
	return &cancelFilter{cancelled: map[jsonrpc.ID]struct{}{}}
}

// reader wraps the transport's input.
func (f *cancelFilter) reader(r io.ReadCloser) io.ReadCloser { return filterReader{r, f} }

// writer wraps the transport's output.
func (f *cancelFilter) writer(w io.WriteCloser) io.WriteCloser { return filterWriter{w, f} }

type filterReader struct {
	io.ReadCloser
	f *cancelFilter
}

func (r filterReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.f.observe(p[:n])
	return n, err
}

// observe scans input bytes for complete lines carrying a cancellation.
func (f *cancelFilter) observe(b []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		chunk := b
		if i >= 0 {
			chunk = b[:i]
		}
		if !f.skip {
			if len(f.line)+len(chunk) > maxCancelLine {
				f.skip, f.line = true, f.line[:0]
			} else {
				f.line = append(f.line, chunk...)
			}
		}
		if i < 0 {
			return
		}
		if !f.skip && bytes.Contains(f.line, cancelMethod) {
			f.noteCancel(f.line)
		}
		f.line, f.skip = f.line[:0], false
		b = b[i+1:]
	}
}

// noteCancel records the request ID of a cancellation line (or batch).
func (f *cancelFilter) noteCancel(line []byte) {
	type message struct {
		Method string `json:"method"`
		Params struct {
			RequestID any `json:"requestId"`
		} `json:"params"`
	}
	var msgs []message
	if json.Unmarshal(line, &msgs) != nil {
		var m message
		if json.Unmarshal(line, &m) != nil {
			return
		}
		msgs = []message{m}
	}
	for _, m := range msgs {
		if m.Method != "notifications/cancelled" {
			continue
		}
		if id, err := jsonrpc.MakeID(m.Params.RequestID); err == nil && id.IsValid() {
			if len(f.cancelled) >= maxPendingCancels {
				// Cancellations of requests already answered are never
				// matched; forget them rather than grow without end.
				clear(f.cancelled)
			}
			f.cancelled[id] = struct{}{}
		}
	}
}

type filterWriter struct {
	io.WriteCloser
	f *cancelFilter
}

// Write drops a single response to a cancelled request. Batched responses
// (an array) pass: a batch is answered as a whole.
func (w filterWriter) Write(p []byte) (int, error) {
	if w.f.drop(p) {
		return len(p), nil
	}
	return w.WriteCloser.Write(p)
}

func (f *cancelFilter) drop(msg []byte) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.cancelled) == 0 {
		return false
	}
	var resp struct {
		ID     any             `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(msg, &resp) != nil || resp.Method != "" || (resp.Result == nil && resp.Error == nil) {
		return false
	}
	id, err := jsonrpc.MakeID(resp.ID)
	if err != nil {
		return false
	}
	if _, ok := f.cancelled[id]; !ok {
		return false
	}
	delete(f.cancelled, id)
	return true
}
