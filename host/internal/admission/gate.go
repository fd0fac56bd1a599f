package admission

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Queue bounds how many calls run at once for one key (a plugin), and how
// many may wait for a turn.
type Queue struct {
	// Concurrency is how many calls may run at once; 0 is unlimited.
	Concurrency int
	// Depth is how many calls may wait for a turn; more are refused at
	// once. 0 refuses every call that cannot run immediately.
	Depth int
	// Timeout bounds a wait for a turn; 0 waits as long as the caller's
	// context allows.
	Timeout time.Duration
}

// Errors of Gates.Acquire, wrapped in a *BusyError.
var (
	// ErrQueueFull is returned when the queue is at its depth.
	ErrQueueFull = errors.New("queue full")
	// ErrQueueTimeout is returned when a wait for a turn lasted Timeout.
	ErrQueueTimeout = errors.New("queue timeout")
)

// Gates is one concurrency gate per key, all with the same queue depth and
// timeout; each Acquire says the key's cap. Waiters get their turn first
// come, first served. A gate no call runs or waits in is forgotten, so that
// keys that come and go (callers) hold no memory once idle.
type Gates struct {
	q Queue

	mu    sync.Mutex
	gates map[string]*gate
}

type gate struct {
	key     string
	running int
	// waiting are the channels of queued callers, oldest first. A turn is
	// handed over by closing the channel, with running left unchanged.
	waiting []chan struct{}
}

// NewGates returns Gates for q.
func NewGates(q Queue) *Gates {
	return &Gates{q: q, gates: map[string]*gate{}}
}

// Acquire waits for a turn to run under key, where capacity calls may run
// at once (0 is unlimited). It returns a function that ends the turn, which
// must be called exactly once, or an error: ErrQueueFull and ErrQueueTimeout
// (errors.Is), or ctx's error when the caller gave up first.
func (g *Gates) Acquire(ctx context.Context, key string, capacity int) (release func(), err error) {
	if capacity <= 0 {
		return func() {}, nil
	}
	g.mu.Lock()
	gt := g.gates[key]
	if gt == nil {
		gt = &gate{key: key}
		g.gates[key] = gt
	}
	if gt.running < capacity && len(gt.waiting) == 0 {
		gt.running++
		g.mu.Unlock()
		return g.releaser(gt), nil
	}
	if len(gt.waiting) >= g.q.Depth {
		g.mu.Unlock()
		return nil, ErrQueueFull
	}
	turn := make(chan struct{})
	gt.waiting = append(gt.waiting, turn)
	g.mu.Unlock()

	var timeout <-chan time.Time
	if g.q.Timeout > 0 {
		t := time.NewTimer(g.q.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-turn:
		return g.releaser(gt), nil
	case <-timeout:
		err = ErrQueueTimeout
	case <-ctx.Done():
		err = ctx.Err()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, w := range gt.waiting {
		if w == turn {
			gt.waiting = append(gt.waiting[:i], gt.waiting[i+1:]...)
			g.forget(gt)
			return nil, err
		}
	}
	// The turn was handed over while giving up: pass it on.
	g.handOver(gt)
	return nil, err
}

// releaser returns the function that ends a turn in gt, harmless when called
// again.
func (g *Gates) releaser(gt *gate) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.handOver(gt)
		})
	}
}

// handOver ends one turn in gt: the oldest waiter gets it, or it is freed.
// g.mu is held.
func (g *Gates) handOver(gt *gate) {
	if len(gt.waiting) > 0 {
		close(gt.waiting[0])
		gt.waiting = gt.waiting[1:]
		return
	}
	gt.running--
	g.forget(gt)
}

// forget drops gt once no call runs or waits in it: no releaser or waiter
// refers to it any more, and a new gate for its key starts the same. g.mu
// is held.
func (g *Gates) forget(gt *gate) {
	if gt.running == 0 && len(gt.waiting) == 0 {
		delete(g.gates, gt.key)
	}
}

// size reports how many gates are held, for tests.
func (g *Gates) size() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.gates)
}

// load reports how many calls run and wait under key, for tests and error
// messages.
func (g *Gates) load(key string) (running, waiting int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if gt := g.gates[key]; gt != nil {
		return gt.running, len(gt.waiting)
	}
	return 0, 0
}
