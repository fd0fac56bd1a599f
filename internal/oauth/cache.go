package oauth

import (
	"sync"
	"time"
)

// cache remembers verified tokens by their SHA-256, so that the requests of
// a session after its first cost a hash and a map lookup, and the tokens
// themselves are not kept in memory.
type cache struct {
	mu  sync.RWMutex
	m   map[[32]byte]result
	max int
}

func newCache(max int) *cache {
	return &cache{m: make(map[[32]byte]result), max: max}
}

// get returns the principal remembered for a token, unless it has expired
// or the key set that verified it has been replaced since.
func (c *cache) get(sum [32]byte, now time.Time) (*Principal, bool) {
	c.mu.RLock()
	r, ok := c.m[sum]
	c.mu.RUnlock()
	if !ok || !now.Before(r.until) || (r.keys != nil && r.issuer.keys.Load() != r.keys) {
		return nil, false
	}
	return r.principal, true
}

// put remembers r. When the cache is full, expired entries go first; if
// none has expired, a tenth of the entries, whichever the map yields, so
// that the next sweeps are that many insertions away.
func (c *cache) put(sum [32]byte, r result, now time.Time) {
	if !now.Before(r.until) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[sum]; !ok && len(c.m) >= c.max {
		for k, e := range c.m {
			if !now.Before(e.until) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= c.max {
			for k := range c.m {
				if len(c.m) < c.max-c.max/10 {
					break
				}
				delete(c.m, k)
			}
		}
	}
	c.m[sum] = r
}
