package sandbox

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/egress"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/bounds"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/kernel"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/turns"
)

// instance is one instantiation of a module. It serves one call at a time.
type instance struct {
	module                                 *Module
	mod                                    api.Module
	versionFn, allocFn, describeFn, callFn api.Function
	memory                                 *limitedMemory
	// stopped is set by Close to stop the guest at its next yield
	// (interrupt.go).
	stopped atomic.Bool
	// turn is the call running in the instance, for its checkpoints and
	// its waits outside the guest (interrupt.go).
	turn *turns.Call
	// net makes the instance's HTTP requests, under the grants it was
	// created with.
	net *egress.Client
	// state is the state of the call in progress, read by host functions.
	state callState
	// ext is the state of an Extism instance; nil for a wasmcp one.
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
	in := &instance{module: m, net: client}
	if m.info.Kind == KindExtism {
		in.ext = &extismState{mem: kernel.New(m.memoryLimit()), fns: map[string]api.Function{}}
	}
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
	in.versionFn = mod.ExportedFunction(abi.ExportVersion)
	in.allocFn = mod.ExportedFunction(abi.ExportAlloc)
	in.describeFn = mod.ExportedFunction(abi.ExportDescribe)
	in.callFn = mod.ExportedFunction(abi.ExportCall)
	// What wazero would have run while instantiating, in its order, but
	// under the deadline: the start function, then the reactor's
	// initialiser. A command's _start never runs, except an Extism
	// plugin's: Extism's runtime runs it when instantiating, and TinyGo
	// plugins built as commands, as Extism's Go PDK shows, need it.
	inits := []string{bounds.StartExport, abi.ExportInitialize}
	if in.ext != nil {
		inits = []string{bounds.StartExport, extismStart, abi.ExportInitialize}
	}
	err = m.guard(ctx, in, func() error {
		for _, name := range inits {
			if fn := mod.ExportedFunction(name); fn != nil {
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
