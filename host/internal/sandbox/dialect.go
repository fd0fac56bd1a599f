package sandbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/bounds"
)

const (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
)

// signature is a function type, written as ABI.md writes it.
type signature struct{ params, results []api.ValueType }

func (s signature) String() string {
	results := typeList(s.results)
	if len(s.results) == 1 {
		results = api.ValueTypeName(s.results[0])
	}
	return typeList(s.params) + " -> " + results
}

func typeList(ts []api.ValueType) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = api.ValueTypeName(t)
	}
	return "(" + strings.Join(names, ", ") + ")"
}

func sigOf(def api.FunctionDefinition) signature {
	return signature{def.ParamTypes(), def.ResultTypes()}
}

func (s signature) equal(o signature) bool {
	return slices.Equal(s.params, o.params) && slices.Equal(s.results, o.results)
}

// A dialect is the guest ABI of a module: the host module its guests
// import, the exports it requires, how an instance starts, and how the
// module's tools are listed and called. It is chosen once, when the module
// compiles (dialectOf), as wazero chooses its engine once; the rest of the
// sandbox, and everything above it, calls the module through it. Adding a
// host function is a change to one dialect's host file.
type dialect interface {
	// kind names the dialect, for Info.
	kind() Kind
	// hostModules are the modules of the dialect's host functions, which
	// its guests may import beside WASI.
	hostModules() []string
	// checkExports verifies the function exports the dialect requires and
	// fills what it learns of the module into info.
	checkExports(fns map[string]api.FunctionDefinition, info *Info) error
	// inits are the exports an instance runs when it is created, in order,
	// those it has: the start function and the initialisers.
	inits() []string
	// setup prepares the state an instance of the module needs besides its
	// linear memory, before the instance is created.
	setup(in *instance)
	// verify checks the first instance of the module, which then serves;
	// ctx is the caller's, callCtx the one with the call's deadline. On an
	// error the caller closes in.
	verify(ctx, callCtx context.Context, in *instance) error
	// list returns a copy of the module's tool list: a Describe document
	// of ABI.md section 4.
	list(ctx context.Context) ([]byte, error)
	// serve runs op, as Module.Serve says.
	serve(ctx context.Context, op Op, hooks *CallHooks, read ReadFunc) error
}

// dialectOf chooses the dialect of a compiled module by its imports: one
// that imports Extism's host module is an Extism plugin.
func dialectOf(m *Module) dialect {
	for _, def := range m.compiled.ImportedFunctions() {
		if mod, _, _ := def.Import(); mod == ExtismModule {
			return newExtism(m)
		}
	}
	return &wasmcp{m: m}
}

// dialects are the host modules of every dialect, instantiated once in
// each Runtime.
var dialects = []struct {
	name        string
	instantiate func(ctx context.Context, rt wazero.Runtime) (api.Module, error)
}{
	{abi.ImportModule, instantiateWasmcp},
	{ExtismModule, instantiateExtism},
	{ExtismUserModule, instantiateExtismUser},
}

// initializeSig is the signature of _initialize and of a command's _start.
var initializeSig = signature{}

// checkInits verifies the signatures of the initialisers among fns.
func checkInits(fns map[string]api.FunctionDefinition, names ...string) []error {
	var errs []error
	for _, name := range names {
		if def, ok := fns[name]; ok && !sigOf(def).equal(initializeSig) {
			errs = append(errs, fmt.Errorf("export %s: signature %s, want %s", name, sigOf(def), initializeSig))
		}
	}
	return errs
}

// checkImports refuses every import the sandbox does not provide to a
// module of dialect d, naming it. hosts maps a host module name to the
// functions it exports.
func checkImports(compiled wazero.CompiledModule, hosts map[string]map[string]api.FunctionDefinition, d dialect) error {
	var errs []error
	own := append(d.hostModules(), wasiModule)
	for _, def := range compiled.ImportedFunctions() {
		mod, name, _ := def.Import()
		if mod == bounds.YieldModule && name == bounds.YieldImport {
			continue // the instrumentation's
		}
		fns, ok := hosts[mod]
		if !ok || !slices.Contains(own, mod) {
			errs = append(errs, fmt.Errorf("import %s.%s: module %q is not provided (only %s are)",
				mod, name, mod, joinAnd(own)))
			continue
		}
		want, ok := fns[name]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("import %s.%s: no such function in %s", mod, name, mod))
		case !sigOf(def).equal(sigOf(want)):
			errs = append(errs, fmt.Errorf("import %s.%s: signature %s, want %s", mod, name, sigOf(def), sigOf(want)))
		}
	}
	for _, def := range compiled.ImportedMemories() {
		mod, name, _ := def.Import()
		errs = append(errs, fmt.Errorf("import %s.%s: memory imports are not provided", mod, name))
	}
	return errors.Join(errs...)
}

// joinAnd lists names as prose: "a and b", "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// checkMemory verifies that the module exports its memory, and that the
// memory's minimum and the tables, whose elements take tableBytes at most,
// fit in the limit together, so that no instantiation can fail on them.
func checkMemory(compiled wazero.CompiledModule, limitPages uint32, tableBytes uint64) error {
	var errs []error
	limit := uint64(limitPages) * pageSize
	if tableBytes > limit {
		errs = append(errs, fmt.Errorf("tables of up to %d elements take up to %s (%d bytes an element), over the memory limit of %s",
			tableBytes/tableElementSize, formatBytes(tableBytes), tableElementSize, formatBytes(limit)))
		tableBytes = limit
	}
	mem, ok := compiled.ExportedMemories()[abi.ExportMemory]
	switch {
	case !ok:
		errs = append(errs, fmt.Errorf("missing export %s: memory", abi.ExportMemory))
	case uint64(mem.Min())*pageSize > limit-tableBytes:
		tables := ""
		if tableBytes > 0 {
			tables = fmt.Sprintf(" less the %s its tables may take", formatBytes(tableBytes))
		}
		errs = append(errs, fmt.Errorf("export %s: minimum of %d pages (%s) exceeds the memory limit of %s%s",
			abi.ExportMemory, mem.Min(), formatBytes(uint64(mem.Min())*pageSize), formatBytes(limit), tables))
	}
	return errors.Join(errs...)
}

// describeModule lists the imports and exports of compiled for Info.
func describeModule(compiled wazero.CompiledModule) (imports, exports []string) {
	for _, def := range compiled.ImportedFunctions() {
		mod, name, _ := def.Import()
		if mod == bounds.YieldModule && name == bounds.YieldImport {
			continue // the instrumentation's, not the module's
		}
		imports = append(imports, fmt.Sprintf("%s.%s: %s", mod, name, sigOf(def)))
	}
	for _, def := range compiled.ImportedMemories() {
		mod, name, _ := def.Import()
		imports = append(imports, fmt.Sprintf("%s.%s: %s", mod, name, memoryString(def)))
	}
	for name, def := range compiled.ExportedFunctions() {
		if name == bounds.StartExport {
			continue // the module's start function, exported by the host
		}
		exports = append(exports, fmt.Sprintf("%s: %s", name, sigOf(def)))
	}
	for name, def := range compiled.ExportedMemories() {
		exports = append(exports, fmt.Sprintf("%s: %s", name, memoryString(def)))
	}
	slices.Sort(imports)
	slices.Sort(exports)
	return imports, exports
}

func memoryString(def api.MemoryDefinition) string {
	if max, ok := def.Max(); ok {
		return fmt.Sprintf("memory (min %d pages, max %d)", def.Min(), max)
	}
	return fmt.Sprintf("memory (min %d pages)", def.Min())
}

// formatBytes writes n in the largest binary unit that divides it exactly,
// so that limits read as they were configured: "256 MiB", "1 GiB", "64 KiB".
func formatBytes(n uint64) string {
	for _, u := range []struct {
		size uint64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
