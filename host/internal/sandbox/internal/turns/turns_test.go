package turns

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// spin reports checkpoints until the call is long and has checked in n
// times since, counting the calls that hold a turn at once in running.
func spin(ctx context.Context, c *Call, n int, running, most *atomic.Int32) error {
	for !c.long {
		if err := c.Checkpoint(ctx); err != nil {
			return err
		}
	}
	for range n {
		if err := c.Checkpoint(ctx); err != nil {
			return err
		}
		r := running.Add(1)
		for m := most.Load(); r > m && !most.CompareAndSwap(m, r); m = most.Load() {
		}
		time.Sleep(100 * time.Microsecond) // guest work, between two checkpoints
		running.Add(-1)
	}
	return nil
}

func TestLongCallsShareTheTurns(t *testing.T) {
	for _, own := range []bool{false, true} {
		g := New(func() int { return 1 }, 10)
		var running, most atomic.Int32
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				long, err := g.Run(own, func(c *Call) error { return spin(t.Context(), c, 200, &running, &most) })
				if err != nil || !long {
					t.Errorf("own %v: Run = %v, %v; want long, nil", own, long, err)
				}
			})
		}
		wg.Wait()
		if most.Load() != 1 {
			t.Errorf("own %v: %d long calls ran at once on 1 turn", own, most.Load())
		}
		if g.held != 0 || len(g.queue) != 0 || g.waiting.Load() != 0 {
			t.Errorf("own %v: after the calls, %d turns held and %d waiting", own, g.held, len(g.queue))
		}
	}
}

func TestShortCallsNeedNoTurn(t *testing.T) {
	g := New(func() int { return 1 }, 10)
	// One long call holds the only turn and does not pass it.
	holding, release := make(chan struct{}), make(chan struct{})
	go g.Run(false, func(c *Call) error {
		for !c.long {
			_ = c.Checkpoint(t.Context())
		}
		close(holding)
		<-release
		return nil
	})
	<-holding
	defer close(release)
	long, err := g.Run(false, func(c *Call) error { return c.Checkpoint(t.Context()) })
	if long || err != nil {
		t.Fatalf("short call: Run = %v, %v; want not long, nil", long, err)
	}
}

func TestWaitForATurnEndsWithTheContext(t *testing.T) {
	g := New(func() int { return 1 }, 10)
	holding, release := make(chan struct{}), make(chan struct{})
	go g.Run(false, func(c *Call) error {
		for !c.long {
			_ = c.Checkpoint(t.Context())
		}
		close(holding)
		<-release
		return nil
	})
	<-holding
	ctx, cancel := context.WithCancel(t.Context())
	_, err := g.Run(true, func(c *Call) error {
		cancel()
		for {
			if err := c.Checkpoint(ctx); err != nil {
				return err
			}
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	close(release)
	// The turn is free again: a new long call gets it.
	if _, err := g.Run(false, func(c *Call) error { return spin(t.Context(), c, 1, new(atomic.Int32), new(atomic.Int32)) }); err != nil {
		t.Fatal(err)
	}
}

func TestOutsideGivesTheTurnUp(t *testing.T) {
	g := New(func() int { return 1 }, 10)
	_, err := g.Run(false, func(c *Call) error {
		if err := spin(t.Context(), c, 1, new(atomic.Int32), new(atomic.Int32)); err != nil {
			return err
		}
		c.Outside(func() {
			// Another long call runs meanwhile.
			if _, err := g.Run(false, func(c *Call) error {
				return spin(t.Context(), c, 1, new(atomic.Int32), new(atomic.Int32))
			}); err != nil {
				t.Error(err)
			}
		})
		return c.Checkpoint(t.Context())
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestPanicReachesTheCaller(t *testing.T) {
	g := New(Leave(1), 10)
	defer func() {
		if r := recover(); r != "guest" {
			t.Fatalf("recovered %v, want the panic of the call", r)
		}
	}()
	_, _ = g.Run(true, func(*Call) error { panic("guest") })
}
