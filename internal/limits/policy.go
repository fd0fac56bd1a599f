package limits

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Config is the admission policy of a server. Its zero value admits every
// call.
type Config struct {
	// Session limits the calls of one client session, whatever the tool.
	Session Rate
	// Tool limits the calls of one tool, all sessions together.
	Tool Rate
	// Plugin caps the calls running at once in one plugin.
	Plugin Queue
	// PerPlugin, if set, gives a plugin's own limits (the operator's policy
	// file): they replace or add to the ones above for that plugin only. It
	// is asked before each call and must be safe for concurrent use. nil
	// applies the settings above to every plugin.
	PerPlugin func(plugin string) PluginLimits
}

// PluginLimits are the limits of one plugin of its own. A zero field sets
// nothing.
type PluginLimits struct {
	// Concurrency replaces Config.Plugin.Concurrency as the cap of the
	// plugin's calls running at once; the queue's depth and timeout stay.
	Concurrency int
	// Rate limits the calls of all the plugin's tools together, all
	// sessions: one more token bucket, checked after the session's and the
	// tool's.
	Rate Rate
}

// A Policy admits or refuses tool calls. It is safe for concurrent use.
type Policy struct {
	session *Limiter
	tool    *Limiter
	plugins *Gates
	q       Queue
	sr, tr  Rate

	perPlugin func(string) PluginLimits
	mu        sync.Mutex
	// pluginRates holds the bucket of each plugin with a rate of its own,
	// one Limiter each since their rates differ.
	pluginRates map[string]*Limiter
}

// New returns the Policy of cfg.
func New(cfg Config) *Policy {
	return &Policy{
		session: NewLimiter(cfg.Session),
		tool:    NewLimiter(cfg.Tool),
		plugins: NewGates(cfg.Plugin),
		q:       cfg.Plugin,
		sr:      cfg.Session,
		tr:      cfg.Tool,

		perPlugin:   cfg.PerPlugin,
		pluginRates: map[string]*Limiter{},
	}
}

// Admit decides whether a call of tool, served by plugin, from session may
// run, waiting in the plugin's queue when it is at its concurrency cap. The
// session's rate is checked first, then the tool's, then the plugin's own; a
// call refused by a later rate has still used a token of the earlier ones,
// so that a client hammering a throttled tool slows itself down. On success
// release ends the call's turn and must be called once. The error is a
// *RateError, a *BusyError, or ctx's error.
func (p *Policy) Admit(ctx context.Context, session, tool, plugin string) (release func(), err error) {
	if ok, wait := p.session.Allow(session); !ok {
		return nil, &RateError{Tool: tool, Session: true, Rate: p.sr, RetryAfter: wait}
	}
	if ok, wait := p.tool.Allow(tool); !ok {
		return nil, &RateError{Tool: tool, Rate: p.tr, RetryAfter: wait}
	}
	q := p.q
	if p.perPlugin != nil {
		own := p.perPlugin(plugin)
		if ok, wait := p.pluginRate(plugin, own.Rate).Allow(plugin); !ok {
			return nil, &RateError{Tool: tool, Plugin: plugin, Rate: own.Rate, RetryAfter: wait}
		}
		if own.Concurrency > 0 {
			q.Concurrency = own.Concurrency
		}
	}
	release, err = p.plugins.acquire(ctx, plugin, q.Concurrency)
	if errors.Is(err, ErrQueueFull) || errors.Is(err, ErrQueueTimeout) {
		return nil, &BusyError{Tool: tool, Plugin: plugin, Queue: q, Err: err}
	}
	return release, err
}

// pluginRate returns the Limiter of plugin's own rate r, made anew when r
// is not the one it was made for.
func (p *Policy) pluginRate(plugin string, r Rate) *Limiter {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.pluginRates[plugin]
	if l == nil || l.rate != r {
		l = NewLimiter(r)
		p.pluginRates[plugin] = l
	}
	return l
}

// RateError is a call refused by a rate limit.
type RateError struct {
	Tool string
	// Session is true when the session's limit refused the call.
	Session bool
	// Plugin is set when the plugin's own limit refused the call. When
	// neither is set, the tool's did.
	Plugin     string
	Rate       Rate
	RetryAfter time.Duration
}

func (e *RateError) Error() string {
	if e.Plugin != "" {
		return fmt.Sprintf("rate limit exceeded for plugin %s: %s (calling tool %s); retry after %s",
			e.Plugin, e.Rate, e.Tool, ceilMillisecond(e.RetryAfter))
	}
	if e.Session {
		return fmt.Sprintf("rate limit exceeded for this session: %s (calling tool %s); retry after %s",
			e.Rate, e.Tool, ceilMillisecond(e.RetryAfter))
	}
	return fmt.Sprintf("rate limit exceeded for tool %s: %s; retry after %s", e.Tool, e.Rate, ceilMillisecond(e.RetryAfter))
}

// BusyError is a call refused because its plugin was running as many calls
// as it may and the queue was full, or the wait timed out.
type BusyError struct {
	Tool, Plugin string
	Queue        Queue
	// Err is ErrQueueFull or ErrQueueTimeout.
	Err error
}

func (e *BusyError) Error() string {
	if errors.Is(e.Err, ErrQueueTimeout) {
		return fmt.Sprintf("plugin %s is busy: tool %s waited %s for a turn (%s at once); retry later",
			e.Plugin, e.Tool, e.Queue.Timeout, calls(e.Queue.Concurrency, "runs", "run"))
	}
	return fmt.Sprintf("plugin %s is busy: tool %s not queued, %s and %s already; retry later",
		e.Plugin, e.Tool, calls(e.Queue.Concurrency, "runs", "run"), calls(e.Queue.Depth, "waits", "wait"))
}

// Unwrap returns ErrQueueFull or ErrQueueTimeout.
func (e *BusyError) Unwrap() error { return e.Err }

// calls counts calls with the verb agreeing: "1 call runs", "3 calls run".
func calls(n int, one, many string) string {
	if n == 1 {
		return "1 call " + one
	}
	return fmt.Sprintf("%d calls %s", n, many)
}

// ceilMillisecond rounds d up to a whole millisecond, so that a client that
// waits as told finds a token.
func ceilMillisecond(d time.Duration) time.Duration {
	return (d + time.Millisecond - 1).Truncate(time.Millisecond)
}
