package registry

import (
	"slices"
	"sync"
	"sync/atomic"
)

// notifier delivers Changes to subscribers in publication order from at most
// one goroutine at a time. The goroutine exists only while changes are
// queued, so an idle registry holds no goroutine and none can leak.
type notifier[P Plugin] struct {
	mu      sync.Mutex
	subs    []*subscriber[P] // in subscription order
	queue   []delivery[P]
	running bool
	closed  bool
	idle    sync.WaitGroup // the delivery goroutine, while running
}

// delivery is a queued Change and the subscribers it is for: those
// subscribed when it was published.
type delivery[P Plugin] struct {
	change Change[P]
	subs   []*subscriber[P]
}

type subscriber[P Plugin] struct {
	fn        func(Change[P])
	cancelled atomic.Bool
}

func (n *notifier[P]) subscribe(fn func(Change[P])) (cancel func()) {
	s := &subscriber[P]{fn: fn}
	n.mu.Lock()
	n.subs = append(slices.Clip(n.subs), s) // copy on write: queued deliveries share the old slice
	n.mu.Unlock()
	return func() {
		s.cancelled.Store(true)
		n.mu.Lock()
		defer n.mu.Unlock()
		for i, x := range n.subs {
			if x == s {
				n.subs = append(n.subs[:i:i], n.subs[i+1:]...)
				break
			}
		}
	}
}

// publish queues c. Callers hold the registry's writer lock, which fixes the
// order of the queue; delivery happens outside it.
func (n *notifier[P]) publish(c Change[P]) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed || len(n.subs) == 0 {
		return
	}
	n.queue = append(n.queue, delivery[P]{c, n.subs})
	if !n.running {
		n.running = true
		n.idle.Add(1)
		go n.run()
	}
}

func (n *notifier[P]) run() {
	defer n.idle.Done()
	for {
		n.mu.Lock()
		if len(n.queue) == 0 || n.closed {
			n.queue = nil
			n.running = false
			n.mu.Unlock()
			return
		}
		d := n.queue[0]
		n.queue = n.queue[1:]
		n.mu.Unlock()
		for _, s := range d.subs {
			if !s.cancelled.Load() {
				s.fn(d.change)
			}
		}
	}
}

// close drops queued changes and waits for a delivery in progress.
func (n *notifier[P]) close() {
	n.mu.Lock()
	n.closed = true
	n.queue = nil
	n.mu.Unlock()
	n.idle.Wait()
}
