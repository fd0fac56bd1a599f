package admission

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Config is the admission of a host. Its zero value admits every call.
type Config struct {
	// Caller limits the calls of one caller (an MCP session), whatever the
	// tool.
	Caller Rate
	// CallerCalls caps the calls of one caller admitted and not yet ended,
	// running or waiting for a turn; 0 is unlimited. The caller "" is not
	// capped: it stands for the callers a transport cannot tell apart
	// (stdio's one client, requests without a session), whom a cap would
	// hold to one share.
	CallerCalls int
	// Tool limits the calls of one tool, all callers together.
	Tool Rate
	// Plugin caps the calls running at once in one plugin, and bounds the
	// queue of those waiting for a turn.
	Plugin Queue
}

// PluginLimits are the limits of one plugin of its own, from the operator's
// policy. A zero field sets nothing.
type PluginLimits struct {
	// Concurrency replaces Config.Plugin.Concurrency as the cap of the
	// plugin's calls running at once; the queue's depth and timeout stay.
	Concurrency int
	// Rate limits the calls of all the plugin's tools together, all
	// callers: one more token bucket, checked after the caller's and the
	// tool's.
	Rate Rate
}

// A Controller admits or refuses tool calls. It is safe for concurrent use.
type Controller struct {
	caller  *Limiter
	callers *Gates // calls in flight per caller
	tool    *Limiter
	plugins *Gates
	cfg     Config

	mu sync.Mutex
	// pluginRates holds the bucket of each plugin with a rate of its own,
	// one Limiter each since their rates differ.
	pluginRates map[string]*Limiter
}

// New returns the Controller of cfg.
func New(cfg Config) *Controller {
	return &Controller{
		caller:      NewLimiter(cfg.Caller),
		callers:     NewGates(Queue{}), // a caller at its cap is refused at once
		tool:        NewLimiter(cfg.Tool),
		plugins:     NewGates(cfg.Plugin),
		cfg:         cfg,
		pluginRates: map[string]*Limiter{},
	}
}

// Admit decides whether a call of tool, served by plugin under its own
// limits, from caller may run, waiting in the plugin's queue when it is at
// its concurrency cap. The caller's rate is checked first, then its calls
// in flight, then the tool's rate, then the plugin's own; a call refused by
// a later rate has still used a token of the earlier ones, so that a client
// hammering a throttled tool slows itself down. On success release ends the
// call's turn and must be called once. The error is a *RateError, a
// *BusyError, or ctx's error.
func (c *Controller) Admit(ctx context.Context, caller, tool, plugin string, own PluginLimits) (release func(), err error) {
	if ok, wait := c.caller.Allow(caller); !ok {
		return nil, &RateError{Tool: tool, Caller: true, Rate: c.cfg.Caller, RetryAfter: wait}
	}
	most := c.cfg.CallerCalls
	if caller == "" {
		most = 0
	}
	inFlight, err := c.callers.Acquire(ctx, caller, most)
	if err != nil { // ErrQueueFull: its queue holds none
		return nil, &BusyError{Tool: tool, Caller: most, Err: ErrCallerCalls}
	}
	defer func() {
		if err != nil {
			inFlight()
		}
	}()
	if ok, wait := c.tool.Allow(tool); !ok {
		return nil, &RateError{Tool: tool, Rate: c.cfg.Tool, RetryAfter: wait}
	}
	if ok, wait := c.pluginRate(plugin, own.Rate).Allow(plugin); !ok {
		return nil, &RateError{Tool: tool, Plugin: plugin, Rate: own.Rate, RetryAfter: wait}
	}
	q := c.cfg.Plugin
	if own.Concurrency > 0 {
		q.Concurrency = own.Concurrency
	}
	turn, err := c.plugins.Acquire(ctx, plugin, q.Concurrency)
	if errors.Is(err, ErrQueueFull) || errors.Is(err, ErrQueueTimeout) {
		return nil, &BusyError{Tool: tool, Plugin: plugin, Queue: q, Err: err}
	}
	if err != nil {
		return nil, err
	}
	return func() { turn(); inFlight() }, nil
}

// pluginRate returns the Limiter of plugin's own rate r, made anew when r
// is not the one it was made for.
func (c *Controller) pluginRate(plugin string, r Rate) *Limiter {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.pluginRates[plugin]
	if l == nil || l.rate != r {
		l = NewLimiter(r)
		c.pluginRates[plugin] = l
	}
	return l
}

// ErrRateLimited and ErrBusy are what a refusal wraps, for errors.Is: a
// *RateError wraps the first, a *BusyError the second.
var (
	ErrRateLimited = errors.New("rate limited")
	ErrBusy        = errors.New("busy")
)

// RateError is a call refused by a rate limit.
type RateError struct {
	Tool string
	// Caller is true when the caller's limit refused the call.
	Caller bool
	// Plugin is set when the plugin's own limit refused the call. When
	// neither is set, the tool's did.
	Plugin     string
	Rate       Rate
	RetryAfter time.Duration
}

// Unwrap returns ErrRateLimited.
func (e *RateError) Unwrap() error { return ErrRateLimited }

func (e *RateError) Error() string {
	if e.Plugin != "" {
		return fmt.Sprintf("rate limit exceeded for plugin %s: %s (calling tool %s); retry after %s",
			e.Plugin, e.Rate, e.Tool, ceilMillisecond(e.RetryAfter))
	}
	if e.Caller {
		return fmt.Sprintf("rate limit exceeded for this session: %s (calling tool %s); retry after %s",
			e.Rate, e.Tool, ceilMillisecond(e.RetryAfter))
	}
	return fmt.Sprintf("rate limit exceeded for tool %s: %s; retry after %s", e.Tool, e.Rate, ceilMillisecond(e.RetryAfter))
}

// ErrCallerCalls is what a *BusyError wraps when the caller had as many
// calls in flight as Config.CallerCalls allows.
var ErrCallerCalls = errors.New("too many calls in flight")

// BusyError is a call refused because its plugin was running as many calls
// as it may and the queue was full, or the wait timed out; or because its
// caller had as many calls in flight as it may.
type BusyError struct {
	Tool, Plugin string
	Queue        Queue
	// Caller is the cap on the caller's calls in flight when that refused
	// the call; Plugin and Queue are unset then.
	Caller int
	// Err is ErrQueueFull, ErrQueueTimeout or ErrCallerCalls.
	Err error
}

func (e *BusyError) Error() string {
	if errors.Is(e.Err, ErrCallerCalls) {
		return fmt.Sprintf("too many calls at once from this client: %s already (calling tool %s); retry when one has ended",
			calls(e.Caller, "runs or waits", "run or wait"), e.Tool)
	}
	if errors.Is(e.Err, ErrQueueTimeout) {
		return fmt.Sprintf("plugin %s is busy: tool %s waited %s for a turn (%s at once); retry later",
			e.Plugin, e.Tool, e.Queue.Timeout, calls(e.Queue.Concurrency, "runs", "run"))
	}
	return fmt.Sprintf("plugin %s is busy: tool %s not queued, %s and %s already; retry later",
		e.Plugin, e.Tool, calls(e.Queue.Concurrency, "runs", "run"), calls(e.Queue.Depth, "waits", "wait"))
}

// Unwrap returns ErrBusy and Err.
func (e *BusyError) Unwrap() []error { return []error{ErrBusy, e.Err} }

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
