package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/egress"
	"github.com/wasmcp/wasmcp/host/internal/telemetry"
	"github.com/wasmcp/wasmcp/host/policy"
)

const wasiModule = wasi_snapshot_preview1.ModuleName

// Module is one compiled module with its instance pool, in a runtime shared
// with other modules (Options.Runtime) or its own. Its methods are safe for
// concurrent use.
type Module struct {
	name string
	// vars are an Extism plugin's variables (var_get, var_set), shared by
	// its instances.
	vars    varStore
	opts    Options
	runtime *Runtime
	// ownsRuntime is set when runtime is the module's own, closed with it.
	ownsRuntime bool
	// code is the compiled module, shared by content within the runtime
	// (compiled.go); compiled is its wazero module.
	code     *compiledModule
	compiled wazero.CompiledModule
	config   wazero.ModuleConfig
	info     Info

	mu   sync.Mutex
	idle []*instance // guarded by mu
	// running are the instances running guest code; guarded by mu.
	running map[*instance]struct{}
	closed  bool // guarded by mu
	// mounts are the directories granted by SetGrants, open until release;
	// guarded by mu.
	mounts []*mountFS
	// net is the HTTP client of the instances created from now on, nets
	// every one SetGrants made, whose idle connections release closes;
	// guarded by mu.
	net  *egress.Client
	nets []*egress.Client
	// lastLong reports whether the module's last call ran long
	// (interrupt.go).
	lastLong atomic.Bool
	// peak is the largest linear memory an instance has had after a call,
	// in bytes; attrs name the module in the instruments.
	peak  atomic.Uint64
	attrs metric.MeasurementOption
}

// Compile compiles wasm in Options.Runtime (or a runtime of the module's own,
// with WASI preview 1 and the "wasmcp" host module), checks its imports and exports against
// ABI.md, instantiates a first instance (running _initialize) and checks that
// wasmcp_abi_version returns abi.Version. A module importing ExtismModule is
// an Extism plugin instead (Info.Kind), checked against ABI.md section 9 and
// called with CallExtism. A binary whose counts promise more
// than its bytes hold, whose tables start with more than 10 million
// elements, that imports a table, or whose compilation would take wazero
// more than linear time in its size (bounds.CompileWorkPerByte), is refused
// before wazero decodes it. Every table is given a maximum: the one it
// declares, within a quarter of the memory limit beyond the tables' initial
// sizes, or its initial size if it declares none, so that a table.grow
// beyond returns -1 to the guest; what the tables may hold counts against
// the memory limit (Limits.MemoryPages), and a module whose tables and
// minimum memory do not fit in it is refused. name identifies the module in
// errors and logs.
func Compile(ctx context.Context, name string, wasm []byte, opts Options) (*Module, error) {
	opts = opts.withDefaults()
	key := compileKey{sha256.Sum256(wasm), tableGrowth(opts.Limits.MemoryPages)}
	m := &Module{name: name, opts: opts, attrs: metric.WithAttributeSet(attribute.NewSet(telemetry.PluginKey.String(name))), runtime: opts.Runtime, config: opts.moduleConfig(),
		running: map[*instance]struct{}{}}
	var err error
	if m.net, err = m.netClient(policy.Net{}); err != nil {
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	if m.runtime == nil {
		r, err := NewRuntime(ctx, opts.Cache)
		if err != nil {
			return nil, fmt.Errorf("compile %s: %w", name, err)
		}
		m.runtime, m.ownsRuntime = r, true
	}
	if err := m.compile(ctx, wasm, key); err != nil {
		m.release(ctx)
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	return m, nil
}

// release frees what the module holds in its runtime, the runtime itself
// when it is the module's own, else the compiled module, and closes its
// mounts.
func (m *Module) release(ctx context.Context) {
	m.mu.Lock()
	mounts, nets := m.mounts, m.nets
	m.mounts, m.nets = nil, nil
	m.mu.Unlock()
	closeMounts(mounts)
	for _, c := range nets {
		c.Close()
	}
	if m.ownsRuntime {
		_ = m.runtime.Close(ctx)
	} else if m.code != nil {
		m.runtime.release(ctx, m.code)
	}
}

func (m *Module) compile(ctx context.Context, wasm []byte, key compileKey) error {
	var err error
	if m.code, err = m.runtime.compile(ctx, wasm, key); err != nil {
		return err
	}
	m.compiled = m.code.code
	m.info.Kind = kindOf(m.compiled)
	if err := checkImports(m.compiled, m.runtime.hosts, m.info.Kind); err != nil {
		return err
	}
	if m.info.Protocol, err = checkExports(m.compiled, m.info.Kind, m.opts.Limits.MemoryPages, m.tableBytes()); err != nil {
		return err
	}
	m.info.Imports, m.info.Exports = describeModule(m.compiled)

	// The first instance, like every later one, gets one call's deadline to
	// run _initialize.
	callCtx, cancel := context.WithTimeout(ctx, m.opts.Limits.Timeout)
	defer cancel()
	in, err := m.instantiate(callCtx)
	if err != nil {
		return fmt.Errorf("instantiate: %w", m.classify(ctx, callCtx, in, err))
	}
	if m.info.Kind == KindExtism {
		m.put(ctx, in)
		return nil
	}
	stack := in.stack[:1]
	versionCtx := withInstance(callCtx, in)
	if err := m.guard(callCtx, in, func() error { return in.versionFn.CallWithStack(versionCtx, stack) }); err != nil {
		_ = in.mod.Close(ctx)
		return fmt.Errorf("%s: %w", abi.ExportVersion, m.classify(ctx, callCtx, in, err))
	}
	m.info.ABIVersion = api.DecodeU32(stack[0])
	if m.info.ABIVersion != abi.Version {
		_ = in.mod.Close(ctx)
		return fmt.Errorf("ABI version %d is not supported (this host speaks %d)", m.info.ABIVersion, abi.Version)
	}
	m.put(ctx, in)
	return nil
}

// tableGrowth is how many elements an instance's tables may grow by in
// all, beyond their initial sizes, under a memory limit of limitPages: at
// most a quarter of the limit, so that tables that may grow without bound
// leave most of it to the linear memory. A table grows only within a
// maximum it declares (bounds.Check).
func tableGrowth(limitPages uint32) uint64 {
	return uint64(limitPages) * pageSize / 4 / tableElementSize
}

// tableBytes is the most memory the tables of an instance may take.
func (m *Module) tableBytes() uint64 { return m.code.tableElements * tableElementSize }

// memoryLimit is the most bytes an instance's linear memory may have: the
// memory limit less what its tables may take (checkExports made sure they
// fit).
func (m *Module) memoryLimit() uint64 {
	return uint64(m.opts.Limits.MemoryPages)*pageSize - m.tableBytes()
}

// SHA256 is the SHA-256 of the binary given to Compile.
func (m *Module) Sum() [sha256.Size]byte { return m.code.key.sum }

// Info describes the module's imports, exports and ABI version.
func (m *Module) Info() Info {
	info := m.info
	info.Imports = slices.Clone(m.info.Imports)
	info.Exports = slices.Clone(m.info.Exports)
	return info
}

// Describe calls wasmcp_describe in a pooled instance and returns a copy of
// the document, at most abi.MaxDescribeSize bytes. The instance is closed
// afterwards, not pooled: a loader describes a module once, and a plugin
// that is never called then holds no instance (a Go guest's is megabytes);
// its first call creates one.
func (m *Module) Describe(ctx context.Context) ([]byte, error) {
	if m.info.Kind != KindWasmcp {
		return nil, fmt.Errorf("describe: %s is an %s module (CallExtism)", m.name, m.info.Kind)
	}
	var doc []byte
	err := m.run(ctx, callState{}, false, func(ctx context.Context, in *instance) error {
		region, err := in.region(ctx, in.describeFn, abi.MaxDescribeSize, in.stack[:1])
		doc = bytes.Clone(region)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("describe: %w", err)
	}
	return doc, nil
}

// Call runs tool with the arguments JSON args in a pooled instance, under
// the deadline of Limits.Timeout, and returns a copy of the result document.
// hooks, when not nil, connect the call to its client: log lines (which also
// go to Options.Logger), progress, sampling and elicitation. An error wraps
// one of the Err values of this package; whatever the error, the instance
// that produced it is closed, never reused.
func (m *Module) Call(ctx context.Context, tool string, args []byte, hooks *CallHooks) ([]byte, error) {
	var out []byte
	err := m.CallRead(ctx, tool, args, hooks, func(result []byte) error {
		out = bytes.Clone(result)
		return nil
	})
	return out, err
}

// CallRead is Call for callers that decode the result in place: read gets
// the result region of guest memory, valid only until read returns, before
// the instance can serve another call. If read returns an error, the result
// is a guest error (ABI.md section 3): the instance is closed and CallRead
// returns an error wrapping both ErrMalformed and read's error.
func (m *Module) CallRead(ctx context.Context, tool string, args []byte, hooks *CallHooks, read func(result []byte) error) error {
	if m.info.Kind != KindWasmcp {
		return fmt.Errorf("call %s: %s is an %s module (CallExtism)", tool, m.name, m.info.Kind)
	}
	size := uint64(len(tool)) + uint64(len(args))
	if size > math.MaxUint32 {
		return fmt.Errorf("%w: %d bytes of name and arguments do not fit a 32-bit memory", ErrMemory, size)
	}
	return m.run(ctx, callState{tool: tool, hooks: hooks, waitLeft: m.opts.Limits.ClientTimeout}, true, func(ctx context.Context, in *instance) error {
		stack := in.stack[:4]
		stack[0] = api.EncodeU32(uint32(size))
		if err := in.allocFn.CallWithStack(ctx, stack); err != nil {
			return err
		}
		ptr := api.DecodeU32(stack[0])
		if ptr == 0 {
			return &callError{ErrMemory, nil, fmt.Sprintf(
				"%s(%d) returned 0: the guest could not allocate its arguments (memory limit %s)",
				abi.ExportAlloc, size, m.limitString())}
		}
		mem := in.mod.Memory()
		if !mem.WriteString(ptr, tool) || !mem.Write(ptr+uint32(len(tool)), args) {
			return &callError{ErrTrap, nil, fmt.Sprintf("%s(%d) returned %d, a region outside memory of %d bytes",
				abi.ExportAlloc, size, ptr, mem.Size())}
		}
		stack[0] = api.EncodeU32(ptr)
		stack[1] = api.EncodeU32(uint32(len(tool)))
		stack[2] = api.EncodeU32(ptr + uint32(len(tool)))
		stack[3] = api.EncodeU32(uint32(len(args)))
		region, err := in.region(ctx, in.callFn, m.opts.Limits.MaxOutput, stack)
		if err != nil {
			return err
		}
		if err := read(region); err != nil {
			return &callError{ErrMalformed, err, err.Error()}
		}
		return nil
	})
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

// region calls fn, which returns a packed region, and returns that region of
// memory after checking it against the bounds of ABI.md section 3.
func (in *instance) region(ctx context.Context, fn api.Function, limit uint32, stack []uint64) ([]byte, error) {
	if err := fn.CallWithStack(ctx, stack); err != nil {
		return nil, err
	}
	name := func() string { return fn.Definition().ExportNames()[0] }
	if stack[0] == 0 {
		return nil, &callError{ErrNoResult, nil, fmt.Sprintf("%s returned 0 instead of a document", name())}
	}
	ptr, n := abi.Unpack(stack[0])
	if n > limit {
		return nil, &callError{ErrOutputTooLarge, nil, fmt.Sprintf("%s returned %d bytes, over the limit of %s",
			name(), n, formatBytes(uint64(limit)))}
	}
	region, ok := in.mod.Memory().Read(ptr, n)
	if !ok {
		return nil, &callError{ErrTrap, nil, fmt.Sprintf("%s returned the region [%d, %d), outside memory of %d bytes",
			name(), ptr, uint64(ptr)+uint64(n), in.mod.Memory().Size())}
	}
	return region, nil
}

// Close closes the module and every instance. Calls still running are
// stopped at their next yield and fail with ErrClosed; the compiled module
// (or the module's own runtime), whose code and memory they may still be
// using, is released when the last of them has returned, by Close itself
// when none runs.
func (m *Module) Close(ctx context.Context) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	idle := m.idle
	m.idle = nil
	for in := range m.running {
		in.interruptNow()
	}
	last := len(m.running) == 0
	m.mu.Unlock()
	for _, in := range idle {
		_ = in.mod.Close(ctx)
	}
	if last {
		m.release(ctx)
	}
	return nil
}

// isClosed reports whether Close has been called.
func (m *Module) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}
