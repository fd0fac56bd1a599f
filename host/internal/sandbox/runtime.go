package sandbox

import (
	"context"
	"fmt"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/bounds"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/turns"
)

// Runtime is a wazero runtime with the host modules that every dialect's
// guests import, in which many Modules are compiled (Runtime.Compile), and
// the turns their long calls keep to. Its methods are safe for concurrent
// use.
//
// Setting up the host modules compiles a trampoline for each of their
// functions, most of what compiling a small module from a warm cache costs:
// a host with a thousand plugins shares one Runtime rather than pay that a
// thousand times. Nothing in a runtime is shared between modules that a
// guest could reach: instances are anonymous, so no module can import
// another, and the limits are each instance's own (limitedMemory, the fuel,
// the call's budget).
type Runtime struct {
	rt wazero.Runtime
	// hosts maps a host module name to the functions it exports, for
	// checkImports.
	hosts map[string]map[string]api.FunctionDefinition
	// modules are the compiled modules, shared by content (compiled.go).
	modules compiledModules
	// long hands out the turns of long calls (guard).
	long *turns.Gate
}

// RuntimeConfig configures NewRuntime. The zero value is usable.
type RuntimeConfig struct {
	// Cache holds compiled code, across runtimes and, on disk, across
	// restarts; nil compiles each module afresh.
	Cache wazero.CompilationCache
	// LongCalls keeps guests in long computations from taking every
	// processor. The zero value lets them.
	LongCalls LongCalls
}

// LongCalls shares the processors among calls that have run for a while
// (turns.Short): such a call runs only on one of GOMAXPROCS − Reserve turns,
// at least one, taking turns with the other long calls, so that Reserve
// processors are left for the transport and short calls.
type LongCalls struct {
	Reserve int
	// Nice, if not zero, is the niceness a long call's thread runs at (on
	// Linux), so that the operating system prefers everything else when
	// the cores are busy. The thread ends with the call.
	Nice int
}

// NewRuntime creates a Runtime.
func NewRuntime(ctx context.Context, c RuntimeConfig) (*Runtime, error) {
	cfg := wazero.NewRuntimeConfig().
		// Not WithCloseOnContextDone: guests are stopped at their deadline
		// by the fuel bounds.Instrument meters them with (call.go), at a
		// fraction of its cost.
		// DWARF sections are the guest's, untrusted: with debug info on,
		// wazero parses them and, on every trap, reads a whole line table
		// under a lock held across the module's instances, to add source
		// lines to a stack trace that trapMessage drops anyway.
		WithDebugInfoEnabled(false).
		// What bounds reads, wazero's defaults when this was written.
		WithCoreFeatures(bounds.Features)
	// The memory limit is not set here with WithMemoryLimitPages: wazero
	// refuses a grow past that limit without telling anyone, so a trap after a
	// failed grow would be indistinguishable from any other trap. Instead each
	// instance's memory comes from limitedMemory, which enforces the limit and
	// records the refusal (see memory.go).
	if c.Cache != nil {
		cfg = cfg.WithCompilationCache(c.Cache)
	}
	r := &Runtime{rt: wazero.NewRuntimeWithConfig(ctx, cfg), long: turns.New(turns.Leave(c.LongCalls.Reserve), c.LongCalls.Nice)}
	if err := r.instantiateHosts(ctx); err != nil {
		_ = r.rt.Close(ctx)
		return nil, err
	}
	return r, nil
}

// instantiateHosts instantiates WASI and the host module of every dialect.
func (r *Runtime) instantiateHosts(ctx context.Context) error {
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, r.rt); err != nil {
		return fmt.Errorf("instantiate %s: %w", wasiModule, err)
	}
	r.hosts = map[string]map[string]api.FunctionDefinition{
		wasiModule: r.rt.Module(wasiModule).ExportedFunctionDefinitions(),
	}
	for _, d := range dialects {
		mod, err := d.instantiate(ctx, r.rt)
		if err != nil {
			return fmt.Errorf("instantiate %s: %w", d.name, err)
		}
		r.hosts[d.name] = mod.ExportedFunctionDefinitions()
	}
	return nil
}

// Close closes the runtime and every module compiled in it.
func (r *Runtime) Close(ctx context.Context) error { return r.rt.Close(ctx) }
