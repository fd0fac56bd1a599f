package sandbox

import (
	"context"
	"sync"
	"time"
)

// budget is the context a call runs under: done when its parent is, or when
// the call has used up its running time. Unlike context.WithTimeout its
// clock can be stopped, so that the time a call spends waiting for its
// client (sample, elicit) does not count against Limits.Timeout: a model or
// a person answering is not the guest's doing, and a deadline that kept
// running would turn a slow human into a timed-out tool.
//
// A running guest needs no timer: its yields ask Err every few thousand
// instructions (interrupt.go), and so do the host functions; Err notices a
// clock that ran out and then closes Done. A timer on every call would cost
// more than the guest's echo itself, so one is started only when someone
// waits on Done (a call waiting for its turn on a processor), and follows
// the clock's pauses from then on. When the time runs out Err returns
// context.DeadlineExceeded, exactly as with context.WithTimeout, and
// classify reports ErrTimeout.
type budget struct {
	parent context.Context
	// in is the instance running the call, which Value gives for
	// instanceKey. run sets it once, before the guest runs.
	in *instance

	mu     sync.Mutex
	stop   func() bool   // guarded by mu; stops the propagation of parent's cancellation, once Done set it up
	timer  *time.Timer   // guarded by mu; calls Err when the running time is up, once Done set it up
	done   chan struct{} // guarded by mu; made when first asked for
	err    error         // guarded by mu; set once, when done is closed
	left   time.Duration // guarded by mu; running time left when the clock last stopped
	since  time.Time     // guarded by mu; when the clock last started
	paused bool          // guarded by mu
}

var _ context.Context = (*budget)(nil)

// closedChan is the Done of a budget that ended before anyone asked.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// newBudget starts a budget of d under parent. release must be called when
// the call ends.
func newBudget(parent context.Context, d time.Duration) *budget {
	b := &budget{parent: parent, left: d, since: time.Now()}
	if err := parent.Err(); err != nil {
		b.finish(err)
	}
	return b
}

func (b *budget) finish(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.finishLocked(err)
}

func (b *budget) finishLocked(err error) {
	if b.err != nil {
		return
	}
	if b.timer != nil {
		b.timer.Stop()
	}
	b.err = err
	if b.done == nil {
		b.done = closedChan
	} else {
		close(b.done)
	}
}

// pause stops the clock. A budget that ran out meanwhile stays done.
func (b *budget) pause() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.paused || b.err != nil {
		return
	}
	b.left -= time.Since(b.since)
	if b.left <= 0 {
		b.finishLocked(context.DeadlineExceeded)
		return
	}
	b.paused = true
	if b.timer != nil {
		b.timer.Stop()
	}
}

// resume restarts the clock stopped by pause with the time that was left.
func (b *budget) resume() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.paused || b.err != nil {
		return
	}
	b.paused = false
	b.since = time.Now()
	if b.timer != nil {
		b.timer.Reset(b.left)
	}
}

// release frees the propagation from the parent and the timer, if Done set
// them up.
func (b *budget) release() {
	b.mu.Lock()
	stop := b.stop
	if b.timer != nil {
		b.timer.Stop()
	}
	b.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// Deadline reports the parent's deadline only: the budget's own moves when
// it is paused, so it promises none.
func (b *budget) Deadline() (time.Time, bool) { return b.parent.Deadline() }

// Done is closed when the parent is done or the running time is used up.
// Both are watched only from the first call of Done: most calls never wait
// on Done (Err looks at the parent and the clock itself), and registering
// with the parent costs every call half a dozen allocations and a lock of
// the parent.
func (b *budget) Done() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done == nil {
		b.done = make(chan struct{})
		if err := b.parent.Err(); err != nil {
			b.finishLocked(err)
		} else {
			// AfterFunc runs its function in a goroutine of its own, which
			// waits for mu: no lock order to keep.
			b.stop = context.AfterFunc(b.parent, func() { b.finish(b.parent.Err()) })
			left := b.left
			if !b.paused {
				left -= time.Since(b.since)
			}
			b.timer = time.AfterFunc(left, func() { _ = b.Err() })
			if b.paused {
				b.timer.Stop()
			}
		}
	}
	return b.done
}

// Err is nil until the budget is done, then the parent's error or
// context.DeadlineExceeded. It looks at the parent itself rather than wait
// for the propagation goroutine, so that a host function asking right after
// a cancellation (cancelled) already sees it.
func (b *budget) Err() error {
	if err := b.parent.Err(); err != nil {
		b.finish(err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil && !b.paused && time.Since(b.since) >= b.left {
		b.finishLocked(context.DeadlineExceeded)
	}
	return b.err
}

// Value is the instance running the call for instanceKey, and nil for
// every other key: the guest's context carries none of its caller's values.
// wazero asks the context it calls the guest with for a value of its own on
// every entry into the guest, twice a call, and a miss would walk the
// caller's whole chain, a dozen objects under a go-sdk request, each cold
// between requests. Host functions that hand a context to code outside the
// sandbox (the logger, the client's requests) give it caller.
func (b *budget) Value(key any) any {
	if _, ok := key.(instanceKey); ok && b.in != nil {
		return b.in
	}
	return nil
}

// caller is the budget with its caller's values: the context for code
// outside the sandbox that a host function calls on the guest's behalf. It
// is done when the budget is.
func (b *budget) caller() context.Context { return callerContext{b} }

type callerContext struct{ *budget }

func (c callerContext) Value(key any) any { return c.parent.Value(key) }
