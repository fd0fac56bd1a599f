package sandbox

import (
	"context"
	"fmt"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/bounds"
)

// Runtime is a wazero runtime with the host modules that guests import,
// WASI preview 1 and "wasmcp", in which many Modules can be compiled. Its
// methods are safe for concurrent use.
//
// Setting up the host modules compiles a trampoline for each of their
// functions: about 0.65 ms, most of what compiling a small module from a
// warm cache costs. A host with a thousand plugins shares one Runtime
// (Options.Runtime) rather than pay that a thousand times. Nothing in a
// runtime is shared between modules that a guest could reach: instances are
// anonymous, so no module can import another, and the limits are each
// instance's own (limitedMemory, the fuel, the call's budget).
type Runtime struct {
	rt wazero.Runtime
	// hosts maps a host module name to the functions it exports, for
	// checkImports.
	hosts map[string]map[string]api.FunctionDefinition
	// modules are the compiled modules, shared by content (compiled.go).
	modules compiledModules
}

// NewRuntime creates a Runtime whose compiled code goes to cache, if not
// nil.
func NewRuntime(ctx context.Context, cache wazero.CompilationCache) (*Runtime, error) {
	cfg := wazero.NewRuntimeConfig().
		// Not WithCloseOnContextDone: guests are stopped at their deadline
		// by the fuel bounds.Instrument meters them with (interrupt.go),
		// at a fraction of its cost.
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
	if cache != nil {
		cfg = cfg.WithCompilationCache(cache)
	}
	r := &Runtime{rt: wazero.NewRuntimeWithConfig(ctx, cfg)}
	if err := r.instantiateHosts(ctx); err != nil {
		_ = r.rt.Close(ctx)
		return nil, err
	}
	return r, nil
}

func (r *Runtime) instantiateHosts(ctx context.Context) error {
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, r.rt); err != nil {
		return fmt.Errorf("instantiate %s: %w", wasiModule, err)
	}
	host, err := instantiateHost(ctx, r.rt)
	if err != nil {
		return fmt.Errorf("instantiate %s: %w", abi.ImportModule, err)
	}
	ext, err := instantiateExtism(ctx, r.rt)
	if err != nil {
		return fmt.Errorf("instantiate %s: %w", ExtismModule, err)
	}
	r.hosts = map[string]map[string]api.FunctionDefinition{
		wasiModule:       r.rt.Module(wasiModule).ExportedFunctionDefinitions(),
		abi.ImportModule: host.ExportedFunctionDefinitions(),
		ExtismModule:     ext.ExportedFunctionDefinitions(),
	}
	return nil
}

// Close closes the runtime and every module compiled in it.
func (r *Runtime) Close(ctx context.Context) error { return r.rt.Close(ctx) }
