package admission

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// testContext bounds a test against hangs; it says nothing about speed.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestLimiterBurstThenRate(t *testing.T) {
	// Time is synctest's: it moves when every goroutine waits.
	synctest.Test(t, func(t *testing.T) {
		l := NewLimiter(Rate{PerSecond: 2}) // burst: one second's worth, 2
		for i := range 2 {
			if ok, _ := l.Allow("s"); !ok {
				t.Fatalf("call %d of the burst refused", i+1)
			}
		}
		ok, wait := l.Allow("s")
		if ok || wait != 500*time.Millisecond {
			t.Fatalf("third call: ok=%v retryAfter=%v, want refused and 500ms", ok, wait)
		}
		time.Sleep(499 * time.Millisecond)
		if ok, wait := l.Allow("s"); ok || wait != time.Millisecond {
			t.Fatalf("after 499ms: ok=%v retryAfter=%v, want refused and 1ms", ok, wait)
		}
		time.Sleep(time.Millisecond)
		if ok, _ := l.Allow("s"); !ok {
			t.Fatal("after 500ms: refused, want a token")
		}
		// A long pause refills to the burst, not beyond.
		time.Sleep(time.Hour)
		for i := range 2 {
			if ok, _ := l.Allow("s"); !ok {
				t.Fatalf("call %d after a pause refused", i+1)
			}
		}
		if ok, _ := l.Allow("s"); ok {
			t.Fatal("a pause gave more than the burst")
		}
	})
}

func TestLimiterExplicitBurstAndKeys(t *testing.T) {
	// Time is synctest's: it moves when every goroutine waits.
	synctest.Test(t, func(t *testing.T) {
		l := NewLimiter(Rate{PerSecond: 0.5, Burst: 3})
		for i := range 3 {
			if ok, _ := l.Allow("a"); !ok {
				t.Fatalf("a: call %d refused", i+1)
			}
		}
		if ok, wait := l.Allow("a"); ok || wait != 2*time.Second {
			t.Fatalf("a: 4th call ok=%v retryAfter=%v, want refused and 2s", ok, wait)
		}
		if ok, _ := l.Allow("b"); !ok {
			t.Fatal("b refused: keys share a bucket")
		}
	})
}

func TestLimiterUnlimited(t *testing.T) {
	l := NewLimiter(Rate{})
	for range 10_000 {
		if ok, _ := l.Allow("k"); !ok {
			t.Fatal("zero Rate refused a call")
		}
	}
	if n := l.size(); n != 0 {
		t.Errorf("unlimited limiter holds %d buckets", n)
	}
}

func TestLimiterForgetsFullBuckets(t *testing.T) {
	// Time is synctest's: it moves when every goroutine waits.
	synctest.Test(t, func(t *testing.T) {
		l := NewLimiter(Rate{PerSecond: 10})
		for i := range sweepFloor - 1 {
			l.Allow("old" + strconv.Itoa(i))
		}
		l.Allow("recent") // the set is now at the floor
		time.Sleep(time.Second)
		l.Allow("recent") // used just now: not full at the sweep
		l.Allow("new")    // a new key with the set at the floor: this sweeps
		// "old*" refilled and are dropped; "recent" spent a token 0s ago.
		if n := l.size(); n != 2 {
			t.Errorf("after a sweep: %d buckets, want 2 (recent, new)", n)
		}
		// A forgotten key starts over with a full bucket, as it would have.
		for range 10 {
			if ok, _ := l.Allow("old1"); !ok {
				t.Fatal("a forgotten key did not start with a full bucket")
			}
		}
	})
}

func TestGatesCapQueueAndOrder(t *testing.T) {
	ctx := testContext(t)
	g := NewGates(Queue{Concurrency: 2, Depth: 2})
	r1, err1 := g.Acquire(ctx, "p", g.q.Concurrency)
	r2, err2 := g.Acquire(ctx, "p", g.q.Concurrency)
	if err1 != nil || err2 != nil {
		t.Fatalf("calls within the cap: %v, %v", err1, err2)
	}
	// Another key has its own gate.
	if r, err := g.Acquire(ctx, "other", g.q.Concurrency); err != nil {
		t.Fatalf("other key: %v", err)
	} else {
		r()
	}

	got := make(chan string, 2)
	var wg sync.WaitGroup
	for _, name := range []string{"third", "fourth"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := g.Acquire(ctx, "p", g.q.Concurrency)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			got <- name
			r()
		}()
		waitFor(ctx, t, func() bool { _, w := g.load("p"); return w == map[string]int{"third": 1, "fourth": 2}[name] })
	}
	if _, err := g.Acquire(ctx, "p", g.q.Concurrency); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("fifth call: err = %v, want ErrQueueFull", err)
	}

	r1()
	r1() // a second release is harmless
	if first := <-got; first != "third" {
		t.Errorf("first waiter served: %s, want third (first come, first served)", first)
	}
	r2()
	wg.Wait()
	if running, waiting := g.load("p"); running != 0 || waiting != 0 {
		t.Errorf("after all releases: running %d, waiting %d; want 0, 0", running, waiting)
	}
}

func TestGatesQueueTimeout(t *testing.T) {
	// Time is synctest's: it moves when every goroutine waits.
	synctest.Test(t, func(t *testing.T) {
		ctx := testContext(t)
		g := NewGates(Queue{Concurrency: 1, Depth: 1, Timeout: 5 * time.Second})
		release, err := g.Acquire(ctx, "p", g.q.Concurrency)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := g.Acquire(ctx, "p", g.q.Concurrency)
			done <- err
		}()
		synctest.Wait() // the waiter has started its timeout
		time.Sleep(5 * time.Second)
		if err := <-done; !errors.Is(err, ErrQueueTimeout) {
			t.Fatalf("err = %v, want ErrQueueTimeout", err)
		}
		if _, waiting := g.load("p"); waiting != 0 {
			t.Errorf("a timed-out waiter is still queued (%d)", waiting)
		}
		release()
		if running, _ := g.load("p"); running != 0 {
			t.Errorf("running = %d after the only call ended", running)
		}
	})
}

func TestGatesCallerGivesUp(t *testing.T) {
	ctx := testContext(t)
	g := NewGates(Queue{Concurrency: 1, Depth: 4})
	release, _ := g.Acquire(ctx, "p", g.q.Concurrency)
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := g.Acquire(cctx, "p", g.q.Concurrency)
		done <- err
	}()
	waitFor(ctx, t, func() bool { _, w := g.load("p"); return w == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	release()
	if running, waiting := g.load("p"); running != 0 || waiting != 0 {
		t.Errorf("running %d, waiting %d; want 0, 0", running, waiting)
	}
}

// TestGatesTurnHandedToLeavingWaiter gives a waiter its turn at the moment it
// gives up: whichever way the race goes, the turn is not lost.
func TestGatesTurnHandedToLeavingWaiter(t *testing.T) {
	ctx := testContext(t)
	for range 200 {
		g := NewGates(Queue{Concurrency: 1, Depth: 1})
		release, _ := g.Acquire(ctx, "p", g.q.Concurrency)
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan func(), 1)
		go func() {
			r, _ := g.Acquire(cctx, "p", g.q.Concurrency)
			done <- r
		}()
		waitFor(ctx, t, func() bool { _, w := g.load("p"); return w == 1 })
		go cancel()
		release()
		if r := <-done; r != nil {
			r()
		}
		if running, waiting := g.load("p"); running != 0 || waiting != 0 {
			t.Fatalf("running %d, waiting %d after everyone left; want 0, 0", running, waiting)
		}
	}
}

func TestGatesUnlimited(t *testing.T) {
	g := NewGates(Queue{})
	for range 100 {
		if _, err := g.Acquire(testContext(t), "p", g.q.Concurrency); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAdmitRefusals(t *testing.T) {
	// Time is synctest's: it moves when every goroutine waits.
	synctest.Test(t, func(t *testing.T) {
		ctx := testContext(t)
		p := New(Config{
			Caller: Rate{PerSecond: 2},
			Tool:   Rate{PerSecond: 1},
			Plugin: Queue{Concurrency: 1, Depth: 0},
		})
		release, err := p.Admit(ctx, "s1", "echo", "everything", PluginLimits{})
		if err != nil {
			t.Fatal(err)
		}

		// The tool's bucket is empty now.
		_, err = p.Admit(ctx, "s2", "echo", "everything", PluginLimits{})
		var re *RateError
		if !errors.As(err, &re) || re.Caller {
			t.Fatalf("err = %v, want the tool's RateError", err)
		}
		if want := "rate limit exceeded for tool echo: 1 calls/s; retry after 1s"; err.Error() != want {
			t.Errorf("message %q, want %q", err, want)
		}

		// s1 has one token left; another tool is free of echo's limit but its
		// plugin is busy with the first call, and queues nothing.
		_, err = p.Admit(ctx, "s1", "get-sum", "everything", PluginLimits{})
		var be *BusyError
		if !errors.As(err, &be) || !errors.Is(err, ErrQueueFull) {
			t.Fatalf("err = %v, want a BusyError with ErrQueueFull", err)
		}
		if !strings.Contains(err.Error(), "plugin everything is busy") {
			t.Errorf("message %q does not name the busy plugin", err)
		}

		// s1's two tokens are spent.
		_, err = p.Admit(ctx, "s1", "other", "p2", PluginLimits{})
		if !errors.As(err, &re) || !re.Caller {
			t.Fatalf("err = %v, want the session's RateError", err)
		}
		if !strings.Contains(err.Error(), "rate limit exceeded for this session: 2 calls/s") || !strings.Contains(err.Error(), "retry after 500ms") {
			t.Errorf("message %q", err)
		}

		release()
		time.Sleep(time.Second)
		if r, err := p.Admit(ctx, "s1", "echo", "everything", PluginLimits{}); err != nil {
			t.Fatalf("after a second and a release: %v", err)
		} else {
			r()
		}
	})
}

func TestBusyErrorTimeoutMessage(t *testing.T) {
	err := &BusyError{Tool: "t", Plugin: "p", Queue: Queue{Concurrency: 3, Timeout: 2 * time.Second}, Err: ErrQueueTimeout}
	if want := "plugin p is busy: tool t waited 2s for a turn (3 calls run at once); retry later"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

// waitFor polls cond until it holds. Goroutines under test reach their
// state in a moment; ctx only guards against a hang.
func waitFor(ctx context.Context, t *testing.T, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatal("condition never held")
		case <-time.After(time.Millisecond):
		}
	}
}

func TestAdmitPluginConcurrency(t *testing.T) {
	ctx := testContext(t)
	p := New(Config{
		Plugin: Queue{Concurrency: 1, Depth: 0},
	})
	wide := PluginLimits{Concurrency: 3}
	// "wide" runs three at once where the global cap is one.
	for i := range 3 {
		if _, err := p.Admit(ctx, "s", "t", "wide", wide); err != nil {
			t.Fatalf("call %d in wide: %v", i+1, err)
		}
	}
	_, err := p.Admit(ctx, "s", "t", "wide", wide)
	var be *BusyError
	if !errors.As(err, &be) || !errors.Is(err, ErrQueueFull) || be.Queue.Concurrency != 3 {
		t.Fatalf("fourth call in wide: err = %v, want a BusyError with ErrQueueFull and cap 3", err)
	}
	if !strings.Contains(err.Error(), "3 calls run") {
		t.Errorf("message %q does not give wide's own cap", err)
	}
	// Another plugin keeps the global cap.
	if _, err := p.Admit(ctx, "s", "t", "narrow", PluginLimits{}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Admit(ctx, "s", "t", "narrow", PluginLimits{}); !errors.As(err, &be) || be.Queue.Concurrency != 1 {
		t.Fatalf("second call in narrow: err = %v, want a BusyError with cap 1", err)
	}
}

func TestAdmitPluginRate(t *testing.T) {
	// Time is synctest's: it moves when every goroutine waits.
	synctest.Test(t, func(t *testing.T) {
		ctx := testContext(t)
		p := New(Config{})
		slow := PluginLimits{Rate: Rate{PerSecond: 2}}
		// Burst of one second's worth, whatever the tool or session.
		for i, tool := range []string{"a", "b"} {
			r, err := p.Admit(ctx, "s"+strconv.Itoa(i), tool, "slow", slow)
			if err != nil {
				t.Fatalf("call %d: %v", i+1, err)
			}
			r()
		}
		_, err := p.Admit(ctx, "s3", "c", "slow", slow)
		var re *RateError
		if !errors.As(err, &re) || re.Plugin != "slow" || re.Caller {
			t.Fatalf("err = %v, want the plugin's RateError", err)
		}
		if want := "rate limit exceeded for plugin slow: 2 calls/s (calling tool c); retry after 500ms"; err.Error() != want {
			t.Errorf("message %q, want %q", err, want)
		}
		// Other plugins have no rate of their own.
		for range 5 {
			r, err := p.Admit(ctx, "s", "x", "fast", PluginLimits{})
			if err != nil {
				t.Fatalf("fast: %v", err)
			}
			r()
		}
		time.Sleep(500 * time.Millisecond)
		if r, err := p.Admit(ctx, "s3", "c", "slow", slow); err != nil {
			t.Fatalf("after the refill: %v", err)
		} else {
			r()
		}
	})
}

func TestAdmitPluginZeroKeepsGlobal(t *testing.T) {
	ctx := testContext(t)
	p := New(Config{
		Plugin: Queue{Concurrency: 1},
	})
	release, err := p.Admit(ctx, "s", "t", "p", PluginLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := p.Admit(ctx, "s", "t", "p", PluginLimits{}); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("err = %v, want the global cap of 1", err)
	}
}

func TestBusyErrorOneCall(t *testing.T) {
	err := &BusyError{Tool: "t", Plugin: "p", Queue: Queue{Concurrency: 1, Depth: 1}, Err: ErrQueueFull}
	if want := "plugin p is busy: tool t not queued, 1 call runs and 1 call waits already; retry later"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

// A caller may have CallerCalls calls in flight, whichever plugins run
// them; more are refused at once, and a call refused later (here by the
// tool's rate) gives its place back. The caller "" is not capped.
func TestAdmitCallerCalls(t *testing.T) {
	ctx := testContext(t)
	c := New(Config{CallerCalls: 2, Tool: Rate{PerSecond: 1, Burst: 1}})
	r1, err1 := c.Admit(ctx, "s", "a", "p1", PluginLimits{})
	r2, err2 := c.Admit(ctx, "s", "b", "p2", PluginLimits{})
	if err1 != nil || err2 != nil {
		t.Fatalf("calls within the cap: %v, %v", err1, err2)
	}
	_, err := c.Admit(ctx, "s", "c", "p3", PluginLimits{})
	var be *BusyError
	if !errors.As(err, &be) || !errors.Is(err, ErrBusy) || !errors.Is(err, ErrCallerCalls) {
		t.Fatalf("third call: err = %v, want a BusyError of ErrCallerCalls", err)
	}
	if want := "too many calls at once from this client: 2 calls run or wait already (calling tool c); retry when one has ended"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	if r, err := c.Admit(ctx, "other", "c", "p3", PluginLimits{}); err != nil {
		t.Errorf("another caller: %v", err)
	} else {
		r()
	}
	for i := range 3 {
		if _, err := c.Admit(ctx, "", "d"+strconv.Itoa(i), "p", PluginLimits{}); err != nil {
			t.Errorf("caller \"\": call %d refused: %v", i+1, err)
		}
	}

	r1()
	// The tool's rate refuses this one, after its place was taken: it
	// gives the place back.
	if _, err := c.Admit(ctx, "s", "a", "p1", PluginLimits{}); !errors.Is(err, ErrRateLimited) {
		t.Fatalf("err = %v, want the tool's rate", err)
	}
	r3, err := c.Admit(ctx, "s", "e", "p1", PluginLimits{})
	if err != nil {
		t.Fatalf("after a call ended and another was refused: %v", err)
	}
	r2()
	r3()
	if n := c.callers.size(); n != 0 {
		t.Errorf("%d callers remembered with no call in flight", n)
	}
}

// Gates forget a key once no call runs or waits under it, so that callers
// that come and go hold no memory.
func TestGatesForgetIdleKeys(t *testing.T) {
	ctx := testContext(t)
	g := NewGates(Queue{Depth: 1})
	for i := range 100 {
		r, err := g.Acquire(ctx, "k"+strconv.Itoa(i), 1)
		if err != nil {
			t.Fatal(err)
		}
		r()
	}
	release, _ := g.Acquire(ctx, "busy", 1)
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() {
		_, err := g.Acquire(cctx, "busy", 1)
		done <- err
	}()
	waitFor(ctx, t, func() bool { _, w := g.load("busy"); return w == 1 })
	if n := g.size(); n != 1 {
		t.Errorf("%d gates held, want 1 (busy)", n)
	}
	cancel()
	<-done
	release()
	if n := g.size(); n != 0 {
		t.Errorf("%d gates held after every call ended, want 0", n)
	}
}
