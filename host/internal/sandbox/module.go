package sandbox

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/wasmcp/wasmcp/host/internal/egress"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/mountfs"
	"github.com/wasmcp/wasmcp/host/internal/telemetry"
	"github.com/wasmcp/wasmcp/host/policy"
)

const wasiModule = wasi_snapshot_preview1.ModuleName

// Module is one compiled module, its dialect and its pool of instances, in a
// Runtime. Its methods are safe for concurrent use.
type Module struct {
	name    string
	opts    Options
	runtime *Runtime
	// code is the compiled module, shared by content within the runtime
	// (compiled.go); compiled is its wazero module.
	code     *compiledModule
	compiled wazero.CompiledModule
	// dialect speaks the module's ABI, chosen once it compiled.
	dialect dialect
	config  wazero.ModuleConfig
	info    Info

	mu   sync.Mutex
	idle []*instance // guarded by mu
	// running are the instances running guest code; guarded by mu.
	running map[*instance]struct{}
	closed  bool // guarded by mu
	// drained is closed once the module is closed and no instance runs;
	// drainOnce closes it and releases the module.
	drained   chan struct{}
	drainOnce sync.Once
	// mounts are the directories granted by SetGrants, open until release;
	// guarded by mu.
	mounts []*mountfs.FS
	// net is the HTTP client of the instances created from now on; nets
	// are every client SetGrants made, whose idle connections release
	// closes. Guarded by mu.
	net  *egress.Client
	nets []*egress.Client
	// lastLong reports whether the module's last call ran long (guard).
	lastLong atomic.Bool
	// peak is the largest linear memory an instance has had after a call,
	// in bytes; attrs name the module in the instruments.
	peak  atomic.Uint64
	attrs metric.MeasurementOption
}

// Compile compiles wasm in the runtime, chooses its dialect by its imports
// (a module importing ExtismModule is an Extism plugin, ABI.md section 9;
// any other a wasmcp module, sections 1-8), checks its imports and exports
// against that ABI, and creates a first instance, running its initialisers,
// which the dialect then verifies (a wasmcp module's ABI version). name
// identifies the module in errors and logs.
//
// Before wazero decodes it, the binary is checked (package bounds): one
// whose counts promise more than its bytes hold, whose tables start with
// more than 10 million elements, that imports a table, or whose compiling
// would take wazero more than linear time in its size is refused. Every
// table gets a maximum, within a quarter of the memory limit beyond the
// tables' initial sizes, so that a table.grow beyond returns -1; what the
// tables may hold counts against the memory limit, and a module whose
// tables and minimum memory do not fit in it is refused.
func (r *Runtime) Compile(ctx context.Context, name string, wasm []byte, opts Options) (*Module, error) {
	opts = opts.withDefaults()
	m := &Module{name: name, opts: opts, runtime: r, config: opts.moduleConfig(), running: map[*instance]struct{}{},
		drained: make(chan struct{}), attrs: metric.WithAttributeSet(attribute.NewSet(telemetry.PluginKey.String(name)))}
	var err error
	if m.net, err = m.netClient(policy.Net{}); err != nil {
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	if err := m.compile(ctx, wasm); err != nil {
		m.release(ctx)
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	return m, nil
}

func (m *Module) compile(ctx context.Context, wasm []byte) error {
	var err error
	key := compileKey{sha256.Sum256(wasm), tableGrowth(m.opts.Limits.MemoryPages)}
	if m.code, err = m.runtime.compile(ctx, wasm, key); err != nil {
		return err
	}
	m.compiled = m.code.code
	m.dialect = dialectOf(m)
	m.info.Kind = m.dialect.kind()
	if err := checkImports(m.compiled, m.runtime.hosts, m.dialect); err != nil {
		return err
	}
	if err := errors.Join(m.dialect.checkExports(m.compiled.ExportedFunctions(), &m.info),
		checkMemory(m.compiled, m.opts.Limits.MemoryPages, m.tableBytes())); err != nil {
		return err
	}
	m.info.Imports, m.info.Exports = describeModule(m.compiled)

	// The first instance, like every later one, gets one call's deadline to
	// start.
	callCtx, cancel := context.WithTimeout(ctx, m.opts.Limits.Timeout)
	defer cancel()
	in, err := m.instantiate(callCtx)
	if err != nil {
		return fmt.Errorf("instantiate: %w", m.classify(ctx, callCtx, in, err))
	}
	if err := m.dialect.verify(ctx, callCtx, in); err != nil {
		_ = in.mod.Close(ctx)
		return err
	}
	m.put(ctx, in)
	return nil
}

// release frees what the module holds in its runtime, its compiled code,
// and closes its mounts and its HTTP clients' idle connections.
func (m *Module) release(ctx context.Context) {
	m.mu.Lock()
	mounts, nets := m.mounts, m.nets
	m.mounts, m.nets = nil, nil
	m.mu.Unlock()
	for _, fs := range mounts {
		_ = fs.Close()
	}
	for _, c := range nets {
		c.Close()
	}
	if m.code != nil {
		m.runtime.release(ctx, m.code)
	}
}

// List returns the module's tool list, a copy: a Describe document of
// ABI.md section 4, at most abi.MaxDescribeSize bytes (an Extism plugin's
// ListToolsResult has that shape).
func (m *Module) List(ctx context.Context) ([]byte, error) { return m.dialect.list(ctx) }

// Call runs tool with the arguments JSON args in a pooled instance, under
// the deadline of Limits.Timeout, and gives read what the guest gave back,
// before the instance can serve another call. hooks, when not nil, connect
// the call to its client: log lines (which also go to Options.Logger),
// progress, sampling and elicitation. An error wraps one of the Err values
// of this package; whatever the error, the instance that produced it is
// closed, never reused.
func (m *Module) Call(ctx context.Context, tool string, args []byte, hooks *CallHooks, read ReadFunc) error {
	return m.dialect.serve(ctx, Op{OpCall, tool, args}, hooks, read)
}

// Serve runs op as Call runs a tool: in a pooled instance, under the same
// limits. read gets the document of ABI.md section 4 that answers it (a
// Result, a ReadResult, a PromptResult or a CompleteResult), whatever the
// module's dialect. An op of a kind the module does not serve
// (Info.Serves) fails with ErrUnsupported without running the guest.
func (m *Module) Serve(ctx context.Context, op Op, hooks *CallHooks, read ReadFunc) error {
	if op.Kind != OpCall && !m.info.Serves[op.Kind] {
		return fmt.Errorf("%w: module %s has no export for %s", ErrUnsupported, m.name, op.Kind)
	}
	return m.dialect.serve(ctx, op, hooks, read)
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

// Sum is the SHA-256 of the binary given to Compile.
func (m *Module) Sum() [sha256.Size]byte { return m.code.key.sum }

// Info describes the module's imports, exports and ABI version.
func (m *Module) Info() Info {
	info := m.info
	info.Imports = slices.Clone(m.info.Imports)
	info.Exports = slices.Clone(m.info.Exports)
	return info
}

// Close refuses new calls (they fail with ErrClosed), waits for the calls
// running to finish, and closes every instance. If ctx is done first, the
// calls still running are stopped at their next yield and fail with
// ErrClosed, and Close returns an error wrapping ctx's cause; the compiled
// code, which they may still be using, is released when the last of them
// has returned. Close may be called more than once.
func (m *Module) Close(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	idle := m.idle
	m.idle = nil
	drained := len(m.running) == 0
	m.mu.Unlock()
	for _, in := range idle {
		_ = in.mod.Close(context.WithoutCancel(ctx))
	}
	if drained {
		m.drain()
	}
	select {
	case <-m.drained:
		return nil
	case <-ctx.Done():
	}
	m.mu.Lock()
	for in := range m.running {
		in.interruptNow()
	}
	m.mu.Unlock()
	return fmt.Errorf("close %s: stopped calls still running: %w", m.name, context.Cause(ctx))
}

// drain marks the module drained and releases it, once: called when it is
// closed and no call runs any more.
func (m *Module) drain() {
	m.drainOnce.Do(func() {
		close(m.drained)
		m.release(context.Background())
	})
}

// isClosed reports whether Close has been called.
func (m *Module) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}
