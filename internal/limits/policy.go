package limits

import (
	"context"
	"errors"
	"fmt"
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
	// Clock is the source of time; nil is the system clock.
	Clock Clock
}

// A Policy admits or refuses tool calls. It is safe for concurrent use.
type Policy struct {
	session *Limiter
	tool    *Limiter
	plugins *Gates
	q       Queue
	sr, tr  Rate
}

// New returns the Policy of cfg.
func New(cfg Config) *Policy {
	return &Policy{
		session: NewLimiter(cfg.Session, cfg.Clock),
		tool:    NewLimiter(cfg.Tool, cfg.Clock),
		plugins: NewGates(cfg.Plugin, cfg.Clock),
		q:       cfg.Plugin,
		sr:      cfg.Session,
		tr:      cfg.Tool,
	}
}

// Admit decides whether a call of tool, served by plugin, from session may
// run, waiting in the plugin's queue when it is at its concurrency cap. The
// session's rate is checked first, then the tool's; a call refused by the
// tool's rate has still used a token of its session's, so that a client
// hammering a throttled tool slows itself down. On success release ends the
// call's turn and must be called once. The error is a *RateError, a
// *BusyError, or ctx's error.
func (p *Policy) Admit(ctx context.Context, session, tool, plugin string) (release func(), err error) {
	if ok, wait := p.session.Allow(session); !ok {
		return nil, &RateError{Tool: tool, Session: true, Rate: p.sr, RetryAfter: wait}
	}
	if ok, wait := p.tool.Allow(tool); !ok {
		return nil, &RateError{Tool: tool, Rate: p.tr, RetryAfter: wait}
	}
	release, err = p.plugins.Acquire(ctx, plugin)
	if errors.Is(err, ErrQueueFull) || errors.Is(err, ErrQueueTimeout) {
		return nil, &BusyError{Tool: tool, Plugin: plugin, Queue: p.q, Err: err}
	}
	return release, err
}

// RateError is a call refused by a rate limit.
type RateError struct {
	Tool string
	// Session is true when the session's limit refused the call, false when
	// the tool's did.
	Session    bool
	Rate       Rate
	RetryAfter time.Duration
}

func (e *RateError) Error() string {
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
		return fmt.Sprintf("plugin %s is busy: tool %s waited %s for a turn (%d calls run at once); retry later",
			e.Plugin, e.Tool, e.Queue.Timeout, e.Queue.Concurrency)
	}
	return fmt.Sprintf("plugin %s is busy: tool %s not queued, %d calls run and %d wait already; retry later",
		e.Plugin, e.Tool, e.Queue.Concurrency, e.Queue.Depth)
}

// Unwrap returns ErrQueueFull or ErrQueueTimeout.
func (e *BusyError) Unwrap() error { return e.Err }

// ceilMillisecond rounds d up to a whole millisecond, so that a client that
// waits as told finds a token.
func ceilMillisecond(d time.Duration) time.Duration {
	return (d + time.Millisecond - 1).Truncate(time.Millisecond)
}
