package sandbox

import (
	"context"
	"errors"
	"fmt"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/kernel"
)

// ExtismModule is the module whose imports make a module an Extism plugin
// (ABI.md section 9). Its functions are implemented here, in Go, on a
// kernel memory of each instance's own (package kernel).
const ExtismModule = "extism:host/env"

// Kind is the ABI a module was built for, told by its imports.
type Kind uint8

const (
	// KindWasmcp is a module of ABI.md sections 1-8.
	KindWasmcp Kind = iota
	// KindExtism is an Extism plugin serving hyper-mcp's plugin protocol
	// (ABI.md section 9).
	KindExtism
)

func (k Kind) String() string {
	if k == KindExtism {
		return "Extism"
	}
	return fmt.Sprintf("wasmcp ABI v%d", abi.Version)
}

// The exports of hyper-mcp's plugin protocols: version 1 lists its tools
// with describe and runs one with call; version 2 with list_tools and
// call_tool. Each takes its input and gives its output through the kernel,
// and returns 0 for success (or nothing).
const (
	ExportDescribeV1 = "describe"
	ExportCallV1     = "call"
	ExportListV2     = "list_tools"
	ExportCallV2     = "call_tool"
)

// extismStart is a command's entry point, which Extism's runtime runs when
// it instantiates a plugin.
const extismStart = "_start"

// MaxVarBytes bounds the Extism variables of one plugin (var_set), keys
// and values together: 1 MiB, the default of Extism's own runtime. Each
// variable also counts a small overhead (varOverhead).
const MaxVarBytes = 1 << 20

// kindOf tells the kind of a module by its imports.
func kindOf(compiled wazero.CompiledModule) Kind {
	for _, def := range compiled.ImportedFunctions() {
		if mod, _, _ := def.Import(); mod == ExtismModule {
			return KindExtism
		}
	}
	return KindWasmcp
}

// extismProtocol returns the hyper-mcp protocol version of an Extism
// module's exports, or why it has none.
func extismProtocol(fns map[string]api.FunctionDefinition) (int, error) {
	has := func(name string) (bool, error) {
		def, ok := fns[name]
		if !ok {
			return false, nil
		}
		if s := sigOf(def); len(s.params) != 0 || len(s.results) > 1 || (len(s.results) == 1 && s.results[0] != i32) {
			return true, fmt.Errorf("export %s: signature %s, want () -> i32 or () -> ()", name, s)
		}
		return true, nil
	}
	for _, p := range []struct {
		version    int
		list, call string
	}{{1, ExportDescribeV1, ExportCallV1}, {2, ExportListV2, ExportCallV2}} {
		list, err1 := has(p.list)
		call, err2 := has(p.call)
		switch {
		case err1 != nil || err2 != nil:
			return 0, errors.Join(err1, err2)
		case list && call:
			return p.version, nil
		case list || call:
			missing := p.list
			if list {
				missing = p.call
			}
			return 0, fmt.Errorf("missing export %s: hyper-mcp plugin protocol v%d needs both %s and %s", missing, p.version, p.list, p.call)
		}
	}
	return 0, fmt.Errorf("missing exports: an Extism plugin must export %s and %s (hyper-mcp plugin protocol v1) or %s and %s (v2)",
		ExportDescribeV1, ExportCallV1, ExportListV2, ExportCallV2)
}

// extismState is what an Extism instance keeps besides its linear memory.
type extismState struct {
	mem *kernel.Memory
	// httpStatus and httpHeaders describe the last response of the call;
	// httpHeaders is nil before any.
	httpStatus  int32
	httpHeaders []byte
	fns         map[string]api.Function
	// work is the kernel memory allocated or moved since the last
	// checkpoint.
	work uint64
}

// reset empties the state for the next call.
func (x *extismState) reset() {
	x.mem.Reset()
	x.httpStatus, x.httpHeaders = 0, nil
}

// extismFunction is one function of ExtismModule: fn gets the instance
// that called, which is always an Extism instance (the module is imported
// only by them).
type extismFunction struct {
	name            string
	params, results []api.ValueType
	fn              func(in *instance, ctx context.Context, stack []uint64)
}

// instantiateExtism instantiates ExtismModule in a runtime.
func instantiateExtism(ctx context.Context, rt wazero.Runtime) (api.Module, error) {
	b := rt.NewHostModuleBuilder(ExtismModule)
	for _, f := range extismFunctions() {
		fn := f.fn
		b = b.NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, stack []uint64) {
				in := instanceFrom(ctx)
				if in == nil || in.ext == nil {
					panic(fmt.Errorf("%s called outside a call of an Extism plugin", ExtismModule))
				}
				fn(in, ctx, stack)
			}), f.params, f.results).
			Export(f.name)
	}
	return b.Instantiate(ctx)
}

func extismFunctions() []extismFunction {
	one := []api.ValueType{i64}
	two := []api.ValueType{i64, i64}
	fns := []extismFunction{
		// The kernel.
		{"alloc", one, one, func(in *instance, ctx context.Context, s []uint64) { s[0] = in.kalloc(ctx, "alloc", s[0]) }},
		{"free", one, nil, func(in *instance, _ context.Context, s []uint64) { in.ext.mem.Free(s[0]) }},
		{"length", one, one, func(in *instance, _ context.Context, s []uint64) { s[0] = in.ext.mem.Length(s[0]) }},
		{"length_unsafe", one, one, func(in *instance, _ context.Context, s []uint64) { s[0] = in.ext.mem.Length(s[0]) }},
		{"load_u8", one, []api.ValueType{i32}, func(in *instance, _ context.Context, s []uint64) { s[0] = in.kload("load_u8", s[0], 1) }},
		{"load_u64", one, one, func(in *instance, _ context.Context, s []uint64) { s[0] = in.kload("load_u64", s[0], 8) }},
		{"store_u8", []api.ValueType{i64, i32}, nil, func(in *instance, _ context.Context, s []uint64) { in.kstore("store_u8", s[0], 1, s[1]) }},
		{"store_u64", two, nil, func(in *instance, _ context.Context, s []uint64) { in.kstore("store_u64", s[0], 8, s[1]) }},
		{"input_length", nil, one, func(in *instance, _ context.Context, s []uint64) { _, s[0] = in.ext.mem.Input() }},
		{"input_offset", nil, one, func(in *instance, _ context.Context, s []uint64) { s[0], _ = in.ext.mem.Input() }},
		{"input_load_u8", one, []api.ValueType{i32}, func(in *instance, _ context.Context, s []uint64) { s[0] = in.kinput("input_load_u8", s[0], 1) }},
		{"input_load_u64", one, one, func(in *instance, _ context.Context, s []uint64) { s[0] = in.kinput("input_load_u64", s[0], 8) }},
		{"input_set", two, nil, func(in *instance, _ context.Context, s []uint64) {
			in.kcheck("input_set", in.ext.mem.SetInput(s[0], s[1]))
		}},
		{"output_set", two, nil, func(in *instance, _ context.Context, s []uint64) {
			in.kcheck("output_set", in.ext.mem.SetOutput(s[0], s[1]))
		}},
		{"output_length", nil, one, func(in *instance, _ context.Context, s []uint64) { _, s[0] = in.ext.mem.OutputRange() }},
		{"output_offset", nil, one, func(in *instance, _ context.Context, s []uint64) { s[0], _ = in.ext.mem.OutputRange() }},
		{"error_set", one, nil, func(in *instance, _ context.Context, s []uint64) { in.kcheck("error_set", in.ext.mem.SetError(s[0])) }},
		{"error_get", nil, one, func(in *instance, _ context.Context, s []uint64) { s[0] = in.ext.mem.ErrorOffset() }},
		{"memory_bytes", nil, one, func(in *instance, _ context.Context, s []uint64) { s[0] = in.ext.mem.Bytes() }},
		{"reset", nil, nil, func(in *instance, _ context.Context, _ []uint64) { in.ext.mem.Reset() }},
		// The host functions.
		{"config_get", one, one, (*instance).configGet},
		{"var_get", one, one, (*instance).varGet},
		{"var_set", two, nil, (*instance).varSet},
		{"http_request", two, one, (*instance).extismHTTP},
		{"http_status_code", nil, []api.ValueType{i32}, func(in *instance, _ context.Context, s []uint64) { s[0] = api.EncodeI32(in.ext.httpStatus) }},
		{"http_headers", nil, one, func(in *instance, ctx context.Context, s []uint64) {
			s[0] = in.kbytes(ctx, "http_headers", in.ext.httpHeaders)
		}},
		{"get_log_level", nil, []api.ValueType{i32}, func(in *instance, ctx context.Context, s []uint64) { s[0] = api.EncodeI32(in.extismLogLevel(ctx)) }},
	}
	for _, l := range extismLogLevels {
		fns = append(fns, extismFunction{"log_" + l.name, one, nil, func(in *instance, ctx context.Context, s []uint64) {
			in.extismLog(ctx, "log_"+l.name, l.level, s[0])
		}})
	}
	return fns
}

// fault traps the call for a bad argument of fn: err says what.
func (in *instance) fault(fn string, err error) {
	panic(&callError{ErrTrap, err, fmt.Sprintf("trapped: %s.%s: %v", ExtismModule, fn, err)})
}

func (in *instance) kcheck(fn string, err error) {
	if err != nil {
		in.fault(fn, err)
	}
}

func (in *instance) kload(fn string, p, n uint64) uint64 {
	v, err := in.ext.mem.Load(p, n)
	in.kcheck(fn, err)
	return v
}

func (in *instance) kstore(fn string, p, n, v uint64) { in.kcheck(fn, in.ext.mem.Store(p, n, v)) }

func (in *instance) kinput(fn string, off, n uint64) uint64 {
	v, err := in.ext.mem.LoadInput(off, n)
	in.kcheck(fn, err)
	return v
}

// workBytes is how many bytes of kernel memory may be allocated, or moved
// to make room, between two checkpoints of the call. The guest's fuel pays
// a few instructions for an alloc whatever its size, so a loop of large
// allocs would run long past its deadline on fuel alone.
const workBytes = 1 << 20

// kalloc allocates n bytes of kernel memory, which count against the
// memory limit with the linear memory: past it, the call fails with
// ErrMemory.
func (in *instance) kalloc(ctx context.Context, fn string, n uint64) uint64 {
	l := in.memory
	used := l.size + in.ext.mem.Bytes()
	var err error
	if n <= l.limit && used+kernel.Cost(n) <= l.limit {
		var off, moved uint64
		if off, moved, err = in.ext.mem.Alloc(n, l.limit-l.size); err == nil {
			if in.ext.work += n + moved; in.ext.work >= workBytes {
				in.ext.work = 0
				in.checkpoint(ctx)
			}
			return off
		}
	}
	l.refused = true
	msg := fmt.Sprintf("exceeded memory limit of %s: %s.%s(%d) with %s of kernel memory and %s of linear memory in use",
		in.module.limitString(), ExtismModule, fn, n, formatBytes(in.ext.mem.Bytes()), formatBytes(l.size))
	panic(&callError{ErrMemory, err, msg})
}

// kbytes allocates a block holding a copy of p, 0 for nil.
func (in *instance) kbytes(ctx context.Context, fn string, p []byte) uint64 {
	if p == nil {
		return 0
	}
	off := in.kalloc(ctx, fn, uint64(len(p)))
	if off != 0 {
		r, _ := in.ext.mem.Region(off, uint64(len(p)))
		copy(r, p)
	}
	return off
}

// kblock returns the block at p, which the guest passed as an argument of
// fn, and frees it: Extism's host functions take ownership of their
// arguments. The bytes stay valid until the next allocation.
func (in *instance) kblock(fn, what string, p uint64) []byte {
	b, ok := in.ext.mem.Block(p)
	if !ok {
		in.fault(fn, fmt.Errorf("%s at offset %d is not an allocated block: %w", what, p, kernel.ErrBounds))
	}
	in.ext.mem.Free(p)
	return b
}

// CallExtism runs export, a function of hyper-mcp's protocols, of an
// Extism module with input as the call's input, in a pooled instance under
// the call deadline, and gives read the output, valid only until read
// returns. When the guest reports an error (error_set, or a non-zero
// return code), read gets its message and failed. tool names the call in
// logs and audit lines; an empty tool is a listing, which may not make
// HTTP requests and whose instance is closed afterwards, like Describe's.
// An error of read is an error wrapping ErrMalformed, as in CallRead.
func (m *Module) CallExtism(ctx context.Context, export, tool string, input []byte, hooks *CallHooks, read func(out []byte, failed bool) error) error {
	if m.info.Kind != KindExtism {
		return fmt.Errorf("%s is not an Extism module", m.name)
	}
	limit := m.opts.Limits.MaxOutput
	state := callState{tool: tool, hooks: hooks, waitLeft: m.opts.Limits.ClientTimeout}
	if tool == "" {
		limit, state = abi.MaxDescribeSize, callState{}
	}
	return m.run(ctx, state, tool != "", func(ctx context.Context, in *instance) error {
		x := in.ext
		x.reset()
		defer x.reset() // the pooled instance keeps no bytes of this call
		if len(input) > 0 {
			off := in.kalloc(ctx, "input", uint64(len(input)))
			r, _ := x.mem.Region(off, uint64(len(input)))
			copy(r, input)
			_ = x.mem.SetInput(off, uint64(len(input)))
		}
		fn := x.fns[export]
		if fn == nil {
			fn = in.mod.ExportedFunction(export)
			x.fns[export] = fn
		}
		stack := in.stack[:1]
		stack[0] = 0
		if err := fn.CallWithStack(ctx, stack); err != nil {
			return err
		}
		var rc int32
		if len(fn.Definition().ResultTypes()) == 1 {
			rc = api.DecodeI32(stack[0])
		}
		out, _ := x.mem.Output()
		failed := false
		if msg, ok := x.mem.Error(); ok {
			out, failed = []byte(msg), true
		} else if rc != 0 {
			out, failed = fmt.Appendf(nil, "%s returned the non-zero code %d", export, rc), true
		}
		if uint64(len(out)) > uint64(limit) {
			what := "output_set"
			if failed {
				what = "error_set"
			}
			return &callError{ErrOutputTooLarge, nil, fmt.Sprintf("%s of %s gave %d bytes, over the limit of %s",
				what, export, len(out), formatBytes(uint64(limit)))}
		}
		if err := read(out, failed); err != nil {
			return &callError{ErrMalformed, err, err.Error()}
		}
		return nil
	})
}
