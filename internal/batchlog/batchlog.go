// Package batchlog is a log/slog Handler that formats records and writes
// them in batches, shortly after the first record of a batch, off the path
// of the code that logged them.
//
// wasmcp logs an audit line for every tools/call. Formatted and written one
// by one, each line costs a call its formatting (slog's text or JSON
// handler: ~2 µs in a hot loop, several times that when the call finds the
// formatter's code and data cold) and a write system call, both before the
// answer is sent. A Handler instead keeps the record and formats it, with
// the others of its batch, on a timer goroutine: the logging call costs a
// copy of the record, and a busy server makes one system call for dozens
// of lines.
//
// The price:
//
//   - A line reaches the writer up to the delay later, and the lines of the
//     last delay are lost if the process dies without Close (a Go panic
//     prints its trace straight to the file descriptor, but what was
//     gathered stays unwritten). A delay of zero writes each record before
//     Handle returns.
//   - A record is formatted after Handle returns, so its values must not
//     change afterwards. Handle keeps for later only records whose values
//     cannot change: strings, numbers, booleans, times, durations and
//     errors (whose text is taken to be fixed), in groups or not, and
//     LogValuers, which it resolves at once. A record with any other value
//     (a slice, a map, a pointer) is formatted before Handle returns, in its
//     place among the others.
//   - Formatting runs with context.Background(): the handlers wasmcp wraps
//     (slog's text and JSON handlers) ignore the context.
//
// Lines are written in the order their records were handled, whole, with
// one Write of the underlying writer per batch.
package batchlog

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// MaxPending is how many records a Handler gathers before the Handle that
// reaches it writes them itself, at once: memory stays bounded, and a
// logger faster than the underlying writer is slowed to its pace.
const MaxPending = 4096

// maxKeptBuffer bounds the formatting buffer kept between batches.
const maxKeptBuffer = 1 << 20

// A Handler formats records with the handler New was given and writes them
// to the underlying writer Delay after the first record of a batch, or at
// once when MaxPending records are waiting. It is safe for concurrent use.
type Handler struct {
	format slog.Handler // writes into its queue's sink
	q      *queue
}

// queue is what the Handlers derived from one New share.
type queue struct {
	w     io.Writer
	delay time.Duration

	// flushMu orders batches and guards sink: it is held while a batch is
	// taken, formatted and written, and while a record is formatted at
	// once.
	flushMu sync.Mutex
	sink    sink
	spare   []entry // the entries of the last batch, cleared, reused
	// err is the underlying writer's first error, read by Handle without
	// waiting for a batch being written.
	err atomic.Pointer[error]

	mu        sync.Mutex
	pending   []entry
	scheduled bool // a flush is scheduled for pending
	closed    bool
	timer     *time.Timer
}

// An entry is a record to make and the handler that formats it, or a line
// already formatted. It is small: a batch of entries is appended to on
// every logging call, and every cache line it spans is memory that call
// touches.
type entry struct {
	format slog.Handler
	record Deferred
	line   []byte
}

// A Deferred is a record made when its batch is formatted, on the flush
// timer's goroutine, rather than when it is handled: HandleDeferred costs
// the logging call no record, no attributes and no copy of them, only what
// the Deferred holds, which must not change after it is handled. wasmcp's
// audit line is one: in BenchmarkColdAudit, its logging call took less than
// half the time through HandleDeferred as through Handle.
type Deferred interface {
	Record() slog.Record
}

// kept is a record that Handle keeps for its batch.
type kept slog.Record

func (k *kept) Record() slog.Record { return slog.Record(*k) }

// sink is the writer of the formatting handlers: it appends to buf, which
// its queue points at the batch being formatted.
type sink struct{ buf []byte }

func (s *sink) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	return len(p), nil
}

// New returns a Handler that formats records with newFormat's handler and
// writes them to w delay after the first record of each batch. newFormat is
// called once, with the writer its handler must write to (slog.NewTextHandler
// or slog.NewJSONHandler, for instance); the handler it returns must write
// each record with a single Write, as slog's do. A delay of zero or less
// writes each record before Handle returns.
func New(w io.Writer, delay time.Duration, newFormat func(io.Writer) slog.Handler) *Handler {
	q := &queue{w: w, delay: delay}
	q.timer = time.AfterFunc(time.Hour, func() { q.flush() })
	q.timer.Stop()
	return &Handler{format: newFormat(&q.sink), q: q}
}

// Enabled reports whether the formatting handler handles records at level.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.format.Enabled(ctx, level)
}

// WithAttrs returns a Handler whose records carry attrs too, in the same
// batches as h's.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Handler{format: h.format.WithAttrs(attrs), q: h.q}
}

// WithGroup returns a Handler that puts the attributes of its records in the
// group name, in the same batches as h's.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{format: h.format.WithGroup(name), q: h.q}
}

// Handle gathers r to be formatted and written with its batch (see the
// package documentation for the records formatted at once). Its error is
// the underlying writer's first error, if one happened before: what a
// logger can report, once it is too late to do anything else.
func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	e := entry{format: h.format}
	if r, ok := keepable(r); ok {
		k := kept(r)
		e.record = &k
	} else {
		e.line = h.q.formatNow(h.format, r)
	}
	return h.q.add(e)
}

// HandleDeferred gathers d, whose record is made and formatted with its
// batch, as Handle gathers a record. Records at levels the handler does not
// handle are formatted all the same: ask Enabled first, as a Logger does.
func (h *Handler) HandleDeferred(d Deferred) error {
	return h.q.add(entry{format: h.format, record: d})
}

// add gathers e, or writes it with what is gathered when the queue writes
// through.
func (q *queue) add(e entry) error {
	q.mu.Lock()
	if q.closed || q.delay <= 0 {
		q.mu.Unlock()
		return q.writeThrough(e)
	}
	q.pending = append(q.pending, e)
	full := len(q.pending) >= MaxPending
	if !full && !q.scheduled {
		q.scheduled = true
		q.timer.Reset(q.delay)
	}
	q.mu.Unlock()
	if full {
		return q.flush()
	}
	return q.firstError()
}

// Flush formats and writes what is gathered now.
func (h *Handler) Flush() error { return h.q.flush() }

// Close writes what is gathered; later records are written before Handle
// returns, so that nothing logged while the program winds down is lost. It
// does not close the underlying writer.
func (h *Handler) Close() error {
	q := h.q
	q.mu.Lock()
	q.closed = true
	q.timer.Stop()
	q.mu.Unlock()
	return q.flush()
}

// keepable returns r ready to be kept past Handle, its LogValuers resolved,
// or false when one of its values could change after Handle returns.
func keepable(r slog.Record) (slog.Record, bool) {
	ok, resolve := true, false
	r.Attrs(func(a slog.Attr) bool {
		switch check(a.Value) {
		case mutable:
			ok = false
		case valuer:
			resolve = true
		}
		return ok
	})
	if !ok {
		return r, false
	}
	if !resolve {
		// Clone copies the attributes beyond those kept in the record
		// itself, which the caller may reuse.
		return r.Clone(), true
	}
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(resolveAttr(a))
		return true
	})
	if _, ok := keepable(out); !ok { // a LogValuer that resolved to a slice, say
		return r, false
	}
	return out, true
}

// Outcomes of check.
const (
	fixed   = iota // the value cannot change
	valuer         // a LogValuer, or a group holding one: resolve it first
	mutable        // it could change: format the record at once
)

func check(v slog.Value) int {
	switch v.Kind() {
	case slog.KindString, slog.KindInt64, slog.KindUint64, slog.KindFloat64,
		slog.KindBool, slog.KindDuration, slog.KindTime:
		return fixed
	case slog.KindLogValuer:
		return valuer
	case slog.KindGroup:
		worst := fixed
		for _, a := range v.Group() {
			worst = max(worst, check(a.Value))
		}
		return worst
	}
	if _, ok := v.Any().(error); ok {
		return fixed
	}
	return mutable
}

// resolveAttr resolves the LogValuers of a, at any depth.
func resolveAttr(a slog.Attr) slog.Attr {
	a.Value = a.Value.Resolve()
	if a.Value.Kind() == slog.KindGroup {
		group := a.Value.Group()
		attrs := make([]slog.Attr, len(group))
		for i, g := range group {
			attrs[i] = resolveAttr(g)
		}
		a.Value = slog.GroupValue(attrs...)
	}
	return a
}

// formatNow formats r with format into a line of its own.
func (q *queue) formatNow(format slog.Handler, r slog.Record) []byte {
	q.flushMu.Lock()
	defer q.flushMu.Unlock()
	start := len(q.sink.buf)
	_ = format.Handle(context.Background(), r) // slog's handlers fail only when their writer does; the sink does not
	line := append([]byte(nil), q.sink.buf[start:]...)
	q.sink.buf = q.sink.buf[:start]
	return line
}

// writeThrough writes what is gathered, then e, before returning.
func (q *queue) writeThrough(e entry) error {
	q.flushMu.Lock()
	defer q.flushMu.Unlock()
	q.writeLocked(append(q.take(), e))
	return q.firstError()
}

// flush formats and writes the gathered records.
func (q *queue) flush() error {
	q.flushMu.Lock()
	defer q.flushMu.Unlock()
	q.writeLocked(q.take())
	return q.firstError()
}

// take returns the gathered entries, swapped for the spare slice; flushMu
// must be held.
func (q *queue) take() []entry {
	q.mu.Lock()
	defer q.mu.Unlock()
	batch := q.pending
	q.pending, q.spare = q.spare[:0], nil
	q.scheduled = false
	return batch
}

// writeLocked formats a batch taken and writes it with one Write, then
// keeps its slice, cleared, as the spare; flushMu must be held.
func (q *queue) writeLocked(batch []entry) {
	buf := q.sink.buf[:0]
	for i := range batch {
		e := &batch[i]
		if e.line != nil {
			buf = append(buf, e.line...)
		} else {
			q.sink.buf = buf
			_ = e.format.Handle(context.Background(), e.record.Record())
			buf = q.sink.buf
		}
		*e = entry{} // drop what the record holds
	}
	if len(buf) > 0 {
		if _, err := q.w.Write(buf); err != nil && q.err.Load() == nil {
			q.err.Store(&err)
		}
	}
	if cap(buf) > maxKeptBuffer {
		buf = nil
	}
	q.sink.buf = buf[:0]
	if cap(batch) <= MaxPending {
		q.spare = batch[:0]
	}
}

func (q *queue) firstError() error {
	if p := q.err.Load(); p != nil {
		return *p
	}
	return nil
}
