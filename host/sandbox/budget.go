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
// When the time runs out Err returns context.DeadlineExceeded, exactly as
// with context.WithTimeout, so that wazero closes the instance with its
// deadline exit code and classify reports ErrTimeout.
type budget struct {
	parent context.Context
	done   chan struct{}
	timer  *time.Timer
	stop   func() bool // stops the propagation of parent's cancellation

	mu     sync.Mutex
	err    error         // guarded by mu; set once, when done is closed
	left   time.Duration // guarded by mu; running time left when the clock last stopped
	since  time.Time     // guarded by mu; when the clock last started
	paused bool          // guarded by mu
}

var _ context.Context = (*budget)(nil)

// newBudget starts a budget of d under parent. release must be called when
// the call ends.
func newBudget(parent context.Context, d time.Duration) *budget {
	b := &budget{parent: parent, done: make(chan struct{}), left: d, since: time.Now()}
	b.timer = time.AfterFunc(d, func() { b.finish(context.DeadlineExceeded) })
	b.stop = context.AfterFunc(parent, func() { b.finish(parent.Err()) })
	// AfterFunc runs its function in a goroutine of its own: a parent done
	// already must make the budget done before the call starts.
	if err := parent.Err(); err != nil {
		b.finish(err)
	}
	return b
}

func (b *budget) finish(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil {
		b.err = err
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
	b.paused = true
	if b.timer.Stop() {
		b.left -= time.Since(b.since)
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
	b.timer.Reset(max(b.left, 0))
}

// release frees the timer and the propagation from the parent.
func (b *budget) release() {
	b.timer.Stop()
	b.stop()
}

// Deadline reports the parent's deadline only: the budget's own moves when
// it is paused, so it promises none.
func (b *budget) Deadline() (time.Time, bool) { return b.parent.Deadline() }

// Done is closed when the parent is done or the running time is used up.
func (b *budget) Done() <-chan struct{} { return b.done }

// Err is nil until Done is closed, then the parent's error or
// context.DeadlineExceeded. It looks at the parent itself rather than wait
// for the propagation goroutine, so that a host function asking right after
// a cancellation (cancelled) already sees it.
func (b *budget) Err() error {
	if err := b.parent.Err(); err != nil {
		b.finish(err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// Value looks up key in the parent.
func (b *budget) Value(key any) any { return b.parent.Value(key) }
