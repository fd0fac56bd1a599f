// Package limits decides whether a tool call may run now: token-bucket rate
// limits keyed by session, tool or plugin, and a concurrency cap per plugin
// with a bounded, timed queue; a plugin may have a cap and a rate of its own. It knows nothing of MCP; the adapter asks it before
// every call and turns its refusals into tool errors.
//
// Time comes from a Clock so that tests decide when tokens refill and when a
// queue wait times out.
package limits

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// Clock is the source of time of a Policy.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// After returns time.After(d).
func (SystemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Rate is a sustained number of events per second. The zero Rate (or any
// PerSecond <= 0) is unlimited.
type Rate struct {
	PerSecond float64
	// Burst is how many events may come at once after a quiet spell. Zero
	// means one second's worth: PerSecond rounded up, at least 1.
	Burst int
}

func (r Rate) unlimited() bool { return !(r.PerSecond > 0) }

func (r Rate) burst() float64 {
	if r.Burst > 0 {
		return float64(r.Burst)
	}
	return max(1, math.Ceil(r.PerSecond))
}

// String is the rate as a reader sees it: "5 calls/s".
func (r Rate) String() string {
	return fmt.Sprintf("%s calls/s", formatFloat(r.PerSecond))
}

func formatFloat(f float64) string {
	return fmt.Sprintf("%.6g", f)
}

// sweepFloor is the bucket count below which a Limiter never sweeps.
const sweepFloor = 1024

// A Limiter holds one token bucket per key, all with the same Rate. A bucket
// starts full. Buckets that have refilled completely are forgotten when the
// set grows, since a new bucket would be the same: memory stays bounded by
// the keys active within about Burst/PerSecond seconds.
//
// A bucket is kept as the time at which it will be full again (the generic
// cell rate algorithm): each event pushes that time one interval further, and
// an event is refused when it is more than Burst-1 intervals ahead. It is the
// token bucket in integer nanoseconds, so that refills are exact.
type Limiter struct {
	rate     Rate
	interval time.Duration // time to earn one token
	slack    time.Duration // (burst-1) intervals: how far ahead full may be
	clock    Clock

	mu      sync.Mutex
	full    map[string]time.Time // when each key's bucket is full again
	sweepAt int                  // sweep when len(full) reaches this
}

// NewLimiter returns a Limiter for r. A nil clock is the system clock.
func NewLimiter(r Rate, clock Clock) *Limiter {
	if clock == nil {
		clock = SystemClock{}
	}
	l := &Limiter{rate: r, clock: clock, full: map[string]time.Time{}, sweepAt: sweepFloor}
	if !r.unlimited() {
		l.interval = max(1, time.Duration(float64(time.Second)/r.PerSecond))
		l.slack = time.Duration(r.burst()-1) * l.interval
	}
	return l
}

// Allow takes a token from key's bucket. When the bucket is empty it takes
// nothing and reports how long until a token is there.
func (l *Limiter) Allow(key string) (ok bool, retryAfter time.Duration) {
	if l.rate.unlimited() {
		return true, 0
	}
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	full, found := l.full[key]
	if !found && len(l.full) >= l.sweepAt {
		l.sweep(now)
	}
	if full.Before(now) {
		full = now // a full bucket; the zero time for a new key
	}
	if ahead := full.Sub(now); ahead > l.slack {
		return false, ahead - l.slack
	}
	l.full[key] = full.Add(l.interval)
	return true, 0
}

// sweep forgets the buckets that are full by now, and sets the next sweep at
// twice the size that remains, so that sweeping costs O(1) per new key.
func (l *Limiter) sweep(now time.Time) {
	for k, full := range l.full {
		if !full.After(now) {
			delete(l.full, k)
		}
	}
	l.sweepAt = max(sweepFloor, 2*len(l.full))
}

// size is the number of buckets held, for tests.
func (l *Limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.full)
}
