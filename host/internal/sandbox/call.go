package sandbox

// The life of a call, top to bottom: an instance from the pool (or a new
// one, started under the call's deadline), the guest run under guard,
// which keeps the call to its turns and lets Close stop it, the failure
// classified into one of the package's errors, and the instance back to
// the pool, or closed after any failure.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/egress"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/turns"
)

// instance is one instantiation of a module. It serves one call at a time.
type instance struct {
	module *Module
	mod    api.Module
	memory *limitedMemory
	// exports are the functions of mod called so far, by name: wazero
	// makes a new one, with a stack of its own, at every lookup.
	exports map[string]api.Function
	// stopped is set by Close to stop the guest at its next yield.
	stopped atomic.Bool
	// turn is the call running in the instance, for its checkpoints and
	// its waits outside the guest (guard).
	turn *turns.Call
	// net makes the instance's HTTP requests, under the grants it was
	// created with.
	net *egress.Client
	// state is the state of the call in progress, read by host functions.
	state callState
	// ext is the state of an Extism instance (its kernel memory, set up by
	// its dialect); nil for a wasmcp one.
	ext *extismState
	// startBytes is the size of the instance's memory once initialized.
	startBytes uint64
	// stack is reused by every CallWithStack so that a call allocates nothing
	// for its parameters and results.
	stack [4]uint64
}

// callState is what host functions need to know about the call they serve.
// Only the goroutine running the call touches it.
type callState struct {
	tool  string
	hooks *CallHooks
	// budget is the call's context, paused while the client is asked.
	budget *budget
	// waitLeft is what remains of Limits.ClientTimeout for this call.
	waitLeft time.Duration
	// asked counts the requests made of the client, against
	// MaxClientRequests.
	asked int
	// reply is the last sample, elicit or http_request reply, for
	// read_reply.
	reply []byte
	// lastProgress is the last progress value reported, if reported.
	lastProgress float64
	reported     bool
	// logs counts the lines logged, against MaxLogLines and MaxLogBytes.
	logs logCount
}

// instanceKey is the context key under which host functions find the
// instance that called them. wazero passes host functions the context the
// guest was called with, so this is how a log line reaches its call.
type instanceKey struct{}

func withInstance(ctx context.Context, in *instance) context.Context {
	return context.WithValue(ctx, instanceKey{}, in)
}

func instanceFrom(ctx context.Context) *instance {
	in, _ := ctx.Value(instanceKey{}).(*instance)
	return in
}

// run runs fn in an instance taken from the pool, under the call deadline,
// and returns the instance to the pool if fn succeeded and pool is set. The
// deadline is a budget that the host functions asking the client pause
// (budget.go).
func (m *Module) run(ctx context.Context, call callState, pool bool, fn func(context.Context, *instance) error) error {
	callCtx := newBudget(ctx, m.opts.Limits.Timeout)
	defer callCtx.release()
	call.budget = callCtx
	in, err := m.get(callCtx)
	if err != nil {
		return m.classify(ctx, callCtx, in, err)
	}
	in.memory.refused = false
	in.state = call
	// The budget is the guest's context, and it carries the instance for
	// the host functions (budget.Value): a context of its own would be
	// another allocation, and another level for every lookup in the
	// context, wazero's on every call into the guest included.
	callCtx.in = in // set before the guest runs, and never again: no goroutine it starts sees a write
	err = m.guard(callCtx, in, func() error { return fn(callCtx, in) })
	in.state = callState{}
	m.notePeak(ctx, in.memory.size)
	if err == nil && ctx.Err() != nil {
		// Cancelled while the guest finished: nobody waits for the result
		// any more.
		err = ctx.Err()
	}
	if err != nil {
		err = m.classify(ctx, callCtx, in, err)
		_ = in.mod.Close(ctx)
		return err
	}
	if !pool {
		_ = in.mod.Close(ctx)
		return nil
	}
	m.put(ctx, in)
	return nil
}

// notePeak records size, the memory of an instance after a call, if it is
// the largest yet: one atomic load per call, and a measurement only when
// the high-water mark rises.
func (m *Module) notePeak(ctx context.Context, size uint64) {
	for {
		old := m.peak.Load()
		if size <= old {
			return
		}
		if m.peak.CompareAndSwap(old, size) {
			m.opts.Instruments.MemoryPeak.Record(ctx, int64(size), m.attrs)
			return
		}
	}
}

// get returns an idle instance or, when there is none, a new one.
func (m *Module) get(ctx context.Context) (*instance, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	if n := len(m.idle); n > 0 {
		in := m.idle[n-1]
		m.idle[n-1] = nil
		m.idle = m.idle[:n-1]
		m.mu.Unlock()
		return in, nil
	}
	m.mu.Unlock()
	return m.instantiate(ctx)
}

// keepBytes is how much linear memory an idle instance may hold beyond what
// it had once instantiated: one that grew more (a call with megabytes of
// arguments or results) is closed rather than pooled, so that its memory
// goes back to the system with the call.
const keepBytes = 32 << 20

// put returns in to the pool, or closes it when the pool is full or closed,
// or when it holds more than keepBytes of memory it did not start with.
func (m *Module) put(ctx context.Context, in *instance) {
	grown := uint64(in.mod.Memory().Size()) > in.startBytes+keepBytes
	m.mu.Lock()
	if !m.closed && !grown && len(m.idle) < m.opts.MaxIdle {
		m.idle = append(m.idle, in)
		m.mu.Unlock()
		return
	}
	m.mu.Unlock()
	_ = in.mod.Close(ctx)
}

// instantiate creates an instance and runs its start function and its
// _initialize, under ctx's deadline. On error the returned instance, if not
// nil, is already closed but still tells classify about its memory.
func (m *Module) instantiate(ctx context.Context) (*instance, error) {
	cfg, client := m.moduleConfigNow()
	in := &instance{module: m, net: client, exports: map[string]api.Function{}}
	m.dialect.setup(in)
	ctx = experimental.WithMemoryAllocator(withInstance(ctx, in), experimental.MemoryAllocatorFunc(
		func(_, _ uint64) experimental.LinearMemory {
			in.memory = &limitedMemory{limit: m.memoryLimit()}
			if in.ext != nil {
				in.memory.kernel = in.ext.mem
			}
			return in.memory
		}))
	mod, err := m.runtime.rt.InstantiateModule(ctx, m.compiled, cfg)
	if err != nil {
		if in.memory == nil {
			return nil, err
		}
		return in, err
	}
	in.mod = mod
	// What wazero would have run while instantiating, in its order, but
	// under the deadline.
	err = m.guard(ctx, in, func() error {
		for _, name := range m.dialect.inits() {
			if fn := in.export(name); fn != nil {
				if err := fn.CallWithStack(ctx, nil); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		_ = mod.Close(ctx)
		return in, err
	}
	in.startBytes = uint64(mod.Memory().Size())
	return in, nil
}

// export is the function mod exports as name, nil if none.
func (in *instance) export(name string) api.Function {
	fn, ok := in.exports[name]
	if !ok {
		fn = in.mod.ExportedFunction(name)
		in.exports[name] = fn
	}
	return fn
}

// errStopped is what yield traps with when Close stops a running call.
var errStopped = errors.New("stopped: the module was closed")

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

// guard runs fn, which calls into in, as a call of the runtime's long-call
// turns and with in
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
	long, err := m.runtime.long.Run(m.lastLong.Load(), func(c *turns.Call) error {
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
		m.drain()
	}
}

// callError is an error of a call, classified by kind and worded for a user.
type callError struct {
	kind  error // one of the Err values
	cause error // what wazero or a callback said, may be nil
	msg   string
}

func (e *callError) Error() string { return e.msg }

// Unwrap lets errors.Is match both the kind and the cause, for example
// ErrTimeout and context.DeadlineExceeded.
func (e *callError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

// classify turns an error from wazero into a callError. ctx is the caller's
// context and callCtx the one with the call deadline; in is the instance
// that failed, nil if there was none.
func (m *Module) classify(ctx, callCtx context.Context, in *instance, err error) error {
	if ce, ok := errors.AsType[*callError](err); ok {
		// Unwrapped from what wazero made of it when a host function
		// panicked with it, so that its message is the sandbox's.
		return ce
	}
	if m.isClosed() {
		return &callError{ErrClosed, err, "the module is closed"}
	}
	exit, isExit := errors.AsType[*sys.ExitError](err)
	switch {
	case ctx.Err() != nil:
		// The caller gave up (cancelled, or its own deadline passed), which
		// may look like our deadline to wazero: report the caller's reason.
		return &callError{ErrCanceled, context.Cause(ctx), fmt.Sprintf("canceled: %v", context.Cause(ctx))}
	case callCtx.Err() != nil && !isExit:
		// The interrupt flag's trap, or whatever the guest was doing when
		// its time ran out.
		return &callError{ErrTimeout, callCtx.Err(), fmt.Sprintf("timed out after %s", m.opts.Limits.Timeout)}
	case isExit:
		return &callError{ErrExit, err, fmt.Sprintf("exited with code %d (proc_exit)", exit.ExitCode())}
	case in != nil && in.memory != nil:
		if limit, own, full := m.outOfMemory(in); full {
			if own {
				return &callError{ErrMemory, err, fmt.Sprintf("exceeded its own declared memory maximum of %s", limit)}
			}
			return &callError{ErrMemory, err, fmt.Sprintf("exceeded memory limit of %s", limit)}
		}
	}
	return &callError{ErrTrap, err, "trapped: " + trapMessage(err)}
}

// outOfMemory reports whether a trap in in is due to memory exhaustion: a
// grow was refused during the call, or the memory is full. It also returns
// the limit that was hit, and whether that is the module's own declared
// maximum, lower than ours (wazero refuses grows past it before asking
// limitedMemory).
func (m *Module) outOfMemory(in *instance) (limit string, own, full bool) {
	pages := uint64(m.opts.Limits.MemoryPages)
	room := m.memoryLimit() / pageSize // what the tables leave of the limit
	if def, ok := m.compiled.ExportedMemories()[abi.ExportMemory]; ok {
		if declared, ok := def.Max(); ok && uint64(declared) < room {
			pages, room, own = uint64(declared), uint64(declared), true
		}
	}
	full = in.memory.refused || in.memory.pages() >= room
	return formatBytes(pages * pageSize), own, full
}

func (m *Module) limitString() string {
	return formatBytes(uint64(m.opts.Limits.MemoryPages) * pageSize)
}

// trapMessage keeps the first line of a wazero error, without its stack
// trace and its "wasm error: " prefix: "unreachable", "integer divide by
// zero", "out of bounds memory access", or the error of a host function.
func trapMessage(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if i := strings.LastIndex(msg, "wasm error: "); i >= 0 {
		msg = msg[i+len("wasm error: "):]
	}
	// wazero marks errors it recovered from a panicking host function.
	msg = strings.TrimSuffix(msg, " (recovered by wazero)")
	return strings.TrimSpace(msg)
}
