package sandbox

import (
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

// requiredExports are the function exports of ABI.md section 2, in the order
// the table lists them.
var requiredExports = []struct {
	name string
	sig  signature
}{
	{abi.ExportVersion, signature{nil, []api.ValueType{i32}}},
	{abi.ExportAlloc, signature{[]api.ValueType{i32}, []api.ValueType{i32}}},
	{abi.ExportDescribe, signature{nil, []api.ValueType{i64}}},
	{abi.ExportCall, signature{[]api.ValueType{i32, i32, i32, i32}, []api.ValueType{i64}}},
}

// initializeSig is the signature of the optional _initialize export (and
// of an Extism plugin's _start).
var initializeSig = signature{}

// checkImports refuses every import the sandbox does not provide to a
// module of kind, naming it. hosts maps a host module name to the functions
// it exports.
func checkImports(compiled wazero.CompiledModule, hosts map[string]map[string]api.FunctionDefinition, kind Kind) error {
	var errs []error
	own := abi.ImportModule
	if kind == KindExtism {
		own = ExtismModule
	}
	for _, def := range compiled.ImportedFunctions() {
		mod, name, _ := def.Import()
		if kind == KindExtism && mod == bounds.YieldModule && name == bounds.YieldImport {
			continue // the instrumentation's
		}
		fns, ok := hosts[mod]
		if !ok || (mod != own && mod != wasiModule) {
			why := ""
			if kind == KindExtism {
				// hyper-mcp's v2 plugins may import its own host
				// functions (extism:host/user); no other host has them.
				why = "; an Extism plugin gets only the standard Extism host functions"
			}
			errs = append(errs, fmt.Errorf("import %s.%s: module %q is not provided (only %s and %s are%s)",
				mod, name, mod, own, wasiModule, why))
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

// checkExports verifies the exports of ABI.md section 2, or of a hyper-mcp
// protocol for an Extism module (whose version it returns), and that the
// memory's minimum and the tables, whose elements take tableBytes at most,
// fit in the limit together, so that no instantiation can fail on them.
func checkExports(compiled wazero.CompiledModule, kind Kind, limitPages uint32, tableBytes uint64) (protocol int, err error) {
	var errs []error
	fns := compiled.ExportedFunctions()
	required := requiredExports
	if kind == KindExtism {
		required = nil
		if protocol, err = extismProtocol(fns); err != nil {
			errs = append(errs, err)
		}
	}
	for _, want := range required {
		def, ok := fns[want.name]
		if !ok {
			errs = append(errs, fmt.Errorf("missing export %s: %s", want.name, want.sig))
		} else if got := sigOf(def); !got.equal(want.sig) {
			errs = append(errs, fmt.Errorf("export %s: signature %s, want %s", want.name, got, want.sig))
		}
	}
	inits := []string{abi.ExportInitialize}
	if kind == KindExtism {
		inits = append(inits, extismStart)
	}
	for _, name := range inits {
		if def, ok := fns[name]; ok && !sigOf(def).equal(initializeSig) {
			errs = append(errs, fmt.Errorf("export %s: signature %s, want %s", name, sigOf(def), initializeSig))
		}
	}
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
	return protocol, errors.Join(errs...)
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
