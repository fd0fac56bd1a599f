package host

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/wasmcp/wasmcp/abi"
)

// reclaimDelay lets the caller finish with the result (a transport encodes
// and sends it) before its buffers are collected.
const reclaimDelay = time.Second

// WithMemoryReturn makes the host return the memory that calls' arguments
// and results leave behind to the system, soon after every bytes of them
// have passed through Call: a collection and debug.FreeOSMemory, which
// affect the whole process, so a program embedding the host chooses. 0,
// the default, never does; wasmcp serve returns it every 16 MiB.
func (c Config) WithMemoryReturn(every int) Config { c.memoryReturn = every; return c }

// A reclaimer returns the memory of large calls to the system soon after
// them. Their arguments and results leave tens of megabytes of garbage per
// call, copies made on the way in and out; the collector would free them
// only at its next cycle, which an idle server reaches after two minutes,
// and the runtime returns freed memory gradually. So after every every
// bytes it runs full collections that return all free memory at once
// (reclaim), reclaimDelay later. A nil reclaimer returns nothing.
type reclaimer struct {
	// free and delay are reclaim and reclaimDelay; tests replace them.
	free  func()
	delay time.Duration
	every int

	mu      sync.Mutex
	traffic int
	timer   *time.Timer // pending reclaim, or nil
	stopped bool
}

// newReclaimer returns the reclaimer of every bytes, nil for 0.
func newReclaimer(every int) *reclaimer {
	if every <= 0 {
		return nil
	}
	return &reclaimer{free: reclaim, delay: reclaimDelay, every: every}
}

// reclaim returns all free memory to the system. It runs two collections:
// what a sync.Pool holds survives one, and the buffers encoding/json pools
// for its encoders (the transport encodes every result with them) have
// grown to the largest result; the second, debug.FreeOSMemory's, frees
// them and returns the memory.
func reclaim() {
	runtime.GC()
	debug.FreeOSMemory()
}

// add counts n bytes through Call and schedules a reclaim when they add
// up to every and none is pending.
func (r *reclaimer) add(n int) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.traffic += n
	if r.timer == nil {
		r.schedule()
	}
}

// schedule starts a reclaim if reclaimEvery bytes were counted. r.mu is
// held.
func (r *reclaimer) schedule() {
	if r.traffic < r.every || r.stopped {
		return
	}
	r.traffic = 0
	r.timer = time.AfterFunc(r.delay, func() {
		r.free()
		r.mu.Lock()
		defer r.mu.Unlock()
		// Calls counted while this one was pending get one of their own,
		// even if no call follows them.
		r.timer = nil
		r.schedule()
	})
}

// stop cancels a pending reclaim and schedules no more.
func (r *reclaimer) stop() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
}

// resultSize is about how many bytes res takes: its structured content and
// the text and data of its blocks.
func resultSize(res *abi.Result) int {
	n := len(res.StructuredContent)
	for _, c := range res.Content {
		n += len(c.Text) + len(c.Data)
		if r := c.Resource; r != nil && r.Text != nil {
			n += len(*r.Text)
		} else if r != nil && r.Blob != nil {
			n += len(*r.Blob)
		}
	}
	return n
}
