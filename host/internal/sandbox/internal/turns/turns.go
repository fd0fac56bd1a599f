// Package turns keeps guests in long computations from taking the
// processors from everything else: the transport, short calls, the rest of
// the machine.
//
// Compiled guest code cannot be preempted by Go's scheduler: a goroutine in
// a guest keeps its processor (a P) until the guest returns to Go, at its
// next fuel checkpoint. With as many guests looping as there are Ps, every P
// runs guest code, the network is polled only by the runtime's monitor
// thread every ten milliseconds or so, and a cheap call waits for its
// request to be read, then for a P, then for its response to be written.
// Even with a P free, the operating system shares the cores between the
// looping guests' threads and everything else as equals, so a cheap call
// still waits milliseconds for a core.
//
// A call is therefore short until it has run for Short, and long after:
//   - A short call runs as any goroutine does, at once.
//   - A long call runs only on one of a Gate's turns, of which there are
//     one fewer than GOMAXPROCS by default, so that a P is always left for
//     the rest; the others wait parked, taking no P. At its checkpoints a
//     long call hands its turn to the next waiting once it has run for a
//     Quantum, so that long calls share the turns round-robin.
//   - With a niceness, a long call's thread runs at a lower priority (on
//     Linux), so that the operating system prefers everything else when the
//     cores are busy. A thread cannot get its priority back without
//     privileges, so it must end with the call: only a call that Run runs
//     on a goroutine of its own, which exits with its thread locked, is
//     lowered.
//
// A Gate belongs to whoever makes it: two in one process share nothing.
package turns

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Short is how long a call runs before it is long: longer than most tools
// take, short enough that a burst of new calls cannot hold every P long.
const Short = time.Millisecond

// Quantum is how long a long call keeps its turn while others wait: Go's
// own scheduler preempts a goroutine after as long.
const Quantum = 10 * time.Millisecond

// Gate hands out the turns of long calls. Its methods are safe for
// concurrent use; use New to make one.
type Gate struct {
	slots func() int
	nice  int

	// waiting is len(queue), read without mu by a call's checkpoints.
	waiting atomic.Int32

	mu    sync.Mutex
	held  int       // guarded by mu; turns handed out and not yet given back
	queue []*waiter // guarded by mu; long calls waiting for a turn, in arrival order
}

type waiter struct {
	ready   chan struct{} // closed when the turn is granted
	granted bool          // guarded by the Gate's mu
}

// New returns a Gate with slots() turns, whose long calls' threads run at
// the niceness nice (0 leaves them as they are). slots is asked whenever a
// turn is handed out, so that it can follow a GOMAXPROCS that changes.
func New(slots func() int, nice int) *Gate { return &Gate{slots: slots, nice: nice} }

// Leave returns the slots function that leaves reserve Ps to everything
// but long calls: GOMAXPROCS − reserve turns, at least one.
func Leave(reserve int) func() int {
	return func() int { return max(1, runtime.GOMAXPROCS(0)-reserve) }
}

// Run runs fn, a call, with the Call that fn's guest code reports its
// checkpoints to, and returns fn's result and whether the call was long.
//
// With own set, fn runs on a goroutine of its own (a panic in it is raised
// again in the caller), and if the call is long its thread's priority is
// lowered, the thread ending with the goroutine. Without, fn runs on the
// caller's goroutine, whose thread cannot end with the call, and a long
// call is only kept to the Gate's turns. A goroutine costs a short call a
// hand-off between threads, so a caller sets own for the calls likely to
// be long: those of a module whose calls were long before. A Gate without
// a niceness runs every call on the caller's goroutine.
func (g *Gate) Run(own bool, fn func(*Call) error) (long bool, err error) {
	own = own && g.nice != 0
	c := &Call{gate: g, start: time.Now(), own: own}
	if !own {
		defer c.release()
		err = fn(c)
		return c.long, err
	}
	done := make(chan any, 1)
	go func() {
		defer func() {
			c.release()
			done <- recover()
			// A long call's thread ends here, locked, with its priority.
		}()
		err = fn(c)
	}()
	if p := <-done; p != nil {
		panic(p)
	}
	return c.long, err
}

// A Call is one call run by Gate.Run. Only the goroutine running it uses it.
type Call struct {
	gate  *Gate
	start time.Time // when the call started, then when it last got its turn
	own   bool      // the call runs on a goroutine of its own
	long  bool      // the call has run for Short
	turn  bool      // the call holds a turn
}

// Checkpoint is called at the guest's checkpoints. A call that has just
// run for Short becomes long and waits for a turn; a long call that has
// held its turn for a Quantum while others wait gives it to the first of
// them and waits behind them. If ctx ends while it waits, Checkpoint
// returns ctx's error.
func (c *Call) Checkpoint(ctx context.Context) error {
	switch {
	case !c.long:
		if time.Since(c.start) < Short {
			return nil
		}
		c.long = true
		if c.own {
			lower(c.gate.nice)
		}
		return c.take(ctx)
	case !c.turn:
		return c.take(ctx) // after a wait outside the guest
	case c.gate.waiting.Load() == 0 || time.Since(c.start) < Quantum:
		return nil
	}
	c.release()
	return c.take(ctx)
}

// Outside runs fn, which waits outside the guest (for the client, for the
// transport), without holding a turn, so that other long calls run
// meanwhile. The call takes a turn again at its next checkpoint.
func (c *Call) Outside(fn func()) {
	c.release()
	fn()
}

func (c *Call) release() {
	if !c.turn {
		return
	}
	c.turn = false
	g := c.gate
	g.mu.Lock()
	g.held--
	g.grantLocked()
	g.mu.Unlock()
}

func (c *Call) take(ctx context.Context) error {
	g := c.gate
	g.mu.Lock()
	if len(g.queue) == 0 && g.held < g.slots() {
		g.held++
		g.mu.Unlock()
		c.turn, c.start = true, time.Now()
		return nil
	}
	w := &waiter{ready: make(chan struct{})}
	g.queue = append(g.queue, w)
	g.waiting.Add(1)
	g.mu.Unlock()
	select {
	case <-w.ready:
		c.turn, c.start = true, time.Now()
		return nil
	case <-ctx.Done():
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if w.granted {
		// Granted as ctx ended: hand the turn on.
		g.held--
		g.grantLocked()
		return ctx.Err()
	}
	for i, x := range g.queue {
		if x == w {
			g.queue = append(g.queue[:i], g.queue[i+1:]...)
			break
		}
	}
	g.waiting.Add(-1)
	return ctx.Err()
}

// grantLocked hands free turns to the first waiters.
func (g *Gate) grantLocked() {
	for len(g.queue) > 0 && g.held < g.slots() {
		w := g.queue[0]
		g.queue = g.queue[1:]
		g.waiting.Add(-1)
		g.held++
		w.granted = true
		close(w.ready)
	}
}
