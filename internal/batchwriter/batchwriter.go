// Package batchwriter gathers many small writes, such as the lines of a
// log, and hands them to the underlying writer together, shortly after the
// first of them.
//
// wasmcp writes an audit line for every tools/call. Written one by one, each
// line is a write system call on the call's path: in the stdio profiles it
// was the largest single item the server added to a call, larger than
// running the guest. Gathered for a few milliseconds, a busy server makes one
// system call for dozens of lines, and none is on a call's path. The price is
// that a line reaches the underlying writer up to the delay later, and that
// the lines of the last delay are lost if the process dies without Close: a
// Go panic prints its trace straight to the file descriptor, but what was
// gathered stays unwritten. Operators who want each line written before the
// call's answer set the delay to zero.
package batchwriter

import (
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// MaxPending is how many bytes a Writer gathers before the write that
// reaches it writes them itself, at once: memory stays bounded, and a
// writer faster than the underlying one is slowed to its pace.
const MaxPending = 256 << 10

// Writer is an io.Writer that gathers what is written to it and writes it
// to the underlying writer Delay after the first byte of a batch, or at
// once when MaxPending bytes are waiting. Each Write reaches the underlying
// writer whole and in order. It is safe for concurrent use.
type Writer struct {
	w     io.Writer
	delay time.Duration

	// flushMu orders the writes of batches: it is taken before a batch is
	// taken from pending and held until it is written.
	flushMu sync.Mutex
	spare   []byte // the buffer of the last batch written, reused; guarded by flushMu
	// err is the underlying writer's first error, read by Write without
	// waiting for a batch being written.
	err atomic.Pointer[error]

	mu        sync.Mutex
	pending   []byte
	scheduled bool // a flush is scheduled for pending
	closed    bool
	timer     *time.Timer
}

// New returns a Writer that writes to w delay after the first byte of each
// batch. A delay of zero or less writes every Write through at once.
func New(w io.Writer, delay time.Duration) *Writer {
	b := &Writer{w: w, delay: delay}
	b.timer = time.AfterFunc(time.Hour, func() { b.Flush() })
	b.timer.Stop()
	return b
}

// Write gathers p. Its error is the underlying writer's first error, if
// one happened before: what a log handler can report, once it is too late
// to do anything else.
func (b *Writer) Write(p []byte) (int, error) {
	b.mu.Lock()
	if b.closed || b.delay <= 0 {
		b.mu.Unlock()
		return b.writeThrough(p)
	}
	b.pending = append(b.pending, p...)
	full := len(b.pending) >= MaxPending
	if !full && !b.scheduled {
		b.scheduled = true
		b.timer.Reset(b.delay)
	}
	b.mu.Unlock()
	if full {
		if err := b.Flush(); err != nil {
			return len(p), err
		}
	}
	return len(p), b.firstError()
}

// writeThrough writes p after whatever is still gathered.
func (b *Writer) writeThrough(p []byte) (int, error) {
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	b.writeLocked(b.take())
	if err := b.firstError(); err != nil {
		return 0, err
	}
	n, err := b.w.Write(p)
	b.keep(err)
	return n, err
}

// Flush writes what is gathered now.
func (b *Writer) Flush() error {
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	b.writeLocked(b.take())
	return b.firstError()
}

// take returns the gathered bytes, swapped for the spare buffer; flushMu
// must be held.
func (b *Writer) take() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	batch := b.pending
	b.pending, b.spare = b.spare[:0], nil
	b.scheduled = false
	return batch
}

// writeLocked writes a batch taken and keeps its buffer as the spare, unless
// a burst made it large; flushMu must be held.
func (b *Writer) writeLocked(batch []byte) {
	if len(batch) > 0 {
		_, err := b.w.Write(batch)
		b.keep(err)
	}
	if cap(batch) <= MaxPending {
		b.spare = batch[:0]
	}
}

// keep records the underlying writer's first error; flushMu must be held.
func (b *Writer) keep(err error) {
	if err != nil && b.err.Load() == nil {
		b.err.Store(&err)
	}
}

func (b *Writer) firstError() error {
	if p := b.err.Load(); p != nil {
		return *p
	}
	return nil
}

// Close writes what is gathered; later writes go through at once, so that
// nothing logged while the program winds down is lost. It does not close
// the underlying writer.
func (b *Writer) Close() error {
	b.mu.Lock()
	b.closed = true
	b.timer.Stop()
	b.mu.Unlock()
	return b.Flush()
}
