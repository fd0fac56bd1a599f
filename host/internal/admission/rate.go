// Package limits decides whether a tool call may run now: token-bucket rate
// limits keyed by session, tool or plugin (golang.org/x/time/rate), and a
// concurrency cap per plugin with a bounded, timed queue; a plugin may have
// a cap and a rate of its own. It knows nothing of MCP; the adapter asks it
// before every call and turns its refusals into tool errors.
package admission

import (
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

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
// the keys active within about Burst/PerSecond seconds, and a session that
// ended leaves nothing behind for long.
type Limiter struct {
	rate Rate

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	sweepAt int // sweep when len(buckets) reaches this
}

// NewLimiter returns a Limiter for r.
func NewLimiter(r Rate) *Limiter {
	return &Limiter{rate: r, buckets: map[string]*rate.Limiter{}, sweepAt: sweepFloor}
}

// Allow takes a token from key's bucket. When the bucket is empty it takes
// nothing and reports how long until a token is there.
func (l *Limiter) Allow(key string) (ok bool, retryAfter time.Duration) {
	if l.rate.unlimited() {
		return true, 0
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= l.sweepAt {
			l.sweep(now)
		}
		b = rate.NewLimiter(rate.Limit(l.rate.PerSecond), int(l.rate.burst()))
		l.buckets[key] = b
	}
	r := b.ReserveN(now, 1)
	if wait := r.DelayFrom(now); wait > 0 {
		r.CancelAt(now)
		return false, wait
	}
	return true, 0
}

// sweep forgets the buckets that are full by now, and sets the next sweep at
// twice the size that remains, so that sweeping costs O(1) per new key.
func (l *Limiter) sweep(now time.Time) {
	for k, b := range l.buckets {
		if b.TokensAt(now) >= float64(b.Burst()) {
			delete(l.buckets, k)
		}
	}
	l.sweepAt = max(sweepFloor, 2*len(l.buckets))
}

// size is the number of buckets held, for tests.
func (l *Limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
