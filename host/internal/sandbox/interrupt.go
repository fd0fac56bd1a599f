package sandbox

import (
	"context"
	"errors"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/bounds"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/turns"
)

// A guest is stopped at its deadline, on cancellation and on Close by the
// fuel bounds.Instrument meters it with: when the fuel runs out the guest
// calls yield, which traps if the call is over and otherwise hands out more.
// yield is also where a guest in a long computation returns to Go, so that
// the garbage collector can stop its goroutine (see bounds/fuel.go), and
// where a call that has run long gives way to the others (package turns).

// longCalls shares the processors among the long calls of every module:
// the processors are the process's.
var longCalls = turns.New(turns.Default)

// errStopped is what yield traps with when Close stops a running call.
var errStopped = errors.New("stopped: the module was closed")

// yield implements the instrumentation's wasmcp.yield: () -> i32.
func yield(ctx context.Context, _ api.Module, stack []uint64) {
	instanceFrom(ctx).checkpoint(ctx)
	stack[0] = bounds.Fuel
}

// checkpoint traps the guest if its call is over (closed, timed out or
// cancelled) and otherwise may give way to the other long calls. in may be
// nil.
func (in *instance) checkpoint(ctx context.Context) {
	if in != nil && in.stopped.Load() {
		panic(errStopped)
	}
	if err := ctx.Err(); err != nil {
		panic(err) // a trap of the call, which classify reports as its timeout or cancellation
	}
	if in != nil && in.turn != nil {
		if err := in.turn.Checkpoint(ctx); err != nil {
			panic(err)
		}
	}
}

// interruptNow makes the guest trap at its next yield.
func (in *instance) interruptNow() { in.stopped.Store(true) }

// guard runs fn, which calls into in, as a call of longCalls and with in
// counted as running, so that Close can stop it and waits for it before
// closing the runtime.
func (m *Module) guard(ctx context.Context, in *instance, fn func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	m.running[in] = struct{}{}
	m.mu.Unlock()
	defer m.done(in)
	// A call gets a goroutine of its own when the module's last call was
	// long, not any call before it: a short call that the system
	// descheduled for a millisecond on a busy machine would otherwise
	// cost every later call of the module a hand-off between threads.
	long, err := longCalls.Run(m.lastLong.Load(), func(c *turns.Call) error {
		in.turn = c
		defer func() { in.turn = nil }()
		return fn()
	})
	m.lastLong.Store(long)
	return err
}

// outside runs fn, which waits outside the guest (for the client, for the
// transport), without a turn of longCalls.
func (in *instance) outside(fn func()) {
	if in.turn == nil {
		fn()
		return
	}
	in.turn.Outside(fn)
}

// done counts in as no longer running and, if it was the last call of a
// closed module, releases what Close left for it.
func (m *Module) done(in *instance) {
	m.mu.Lock()
	delete(m.running, in)
	last := m.closed && len(m.running) == 0
	m.mu.Unlock()
	if last {
		m.release(context.Background())
	}
}
