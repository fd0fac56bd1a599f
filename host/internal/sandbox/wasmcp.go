package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/bounds"
)

// wasmcp is the dialect of ABI.md sections 1-8: a reactor exporting
// wasmcp_alloc, wasmcp_describe and wasmcp_call, which imports the host
// functions of the "wasmcp" module (wasmcphost.go).
type wasmcp struct{ m *Module }

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

// optionalExports are the exports of ABI.md's "Resources and prompts",
// by the kind of Op each serves.
var optionalExports = []struct {
	kind OpKind
	name string
	sig  signature
}{
	{OpRead, abi.ExportRead, signature{[]api.ValueType{i32, i32}, []api.ValueType{i64}}},
	{OpPrompt, abi.ExportPrompt, signature{[]api.ValueType{i32, i32, i32, i32}, []api.ValueType{i64}}},
	{OpComplete, abi.ExportComplete, signature{[]api.ValueType{i32, i32}, []api.ValueType{i64}}},
}

// exportOf is the export that serves ops of kind k.
func exportOf(k OpKind) string {
	for _, e := range optionalExports {
		if e.kind == k {
			return e.name
		}
	}
	return abi.ExportCall
}

func (*wasmcp) kind() Kind            { return KindWasmcp }
func (*wasmcp) hostModules() []string { return []string{abi.ImportModule} }

func (*wasmcp) checkExports(fns map[string]api.FunctionDefinition, info *Info) error {
	var errs []error
	for _, want := range requiredExports {
		def, ok := fns[want.name]
		if !ok {
			errs = append(errs, fmt.Errorf("missing export %s: %s", want.name, want.sig))
		} else if got := sigOf(def); !got.equal(want.sig) {
			errs = append(errs, fmt.Errorf("export %s: signature %s, want %s", want.name, got, want.sig))
		}
	}
	info.AsksPermissions = true
	info.Serves = map[OpKind]bool{OpList: true}
	for _, want := range optionalExports {
		def, ok := fns[want.name]
		if !ok {
			continue
		}
		if got := sigOf(def); !got.equal(want.sig) {
			errs = append(errs, fmt.Errorf("export %s: signature %s, want %s", want.name, got, want.sig))
			continue
		}
		info.Serves[want.kind] = true
	}
	return errors.Join(append(errs, checkInits(fns, abi.ExportInitialize)...)...)
}

// inits: the start function, then the reactor's initialiser; a command's
// _start never runs.
func (*wasmcp) inits() []string { return []string{bounds.StartExport, abi.ExportInitialize} }

func (*wasmcp) setup(*instance) {}

// verify checks that the guest speaks this host's ABI version. ctx is the
// caller's, callCtx the one with the call deadline.
func (d *wasmcp) verify(ctx, callCtx context.Context, in *instance) error {
	stack := in.stack[:1]
	fn := in.export(abi.ExportVersion)
	if err := d.m.guard(callCtx, in, func() error { return fn.CallWithStack(withInstance(callCtx, in), stack) }); err != nil {
		return fmt.Errorf("%s: %w", abi.ExportVersion, d.m.classify(ctx, callCtx, in, err))
	}
	d.m.info.ABIVersion = api.DecodeU32(stack[0])
	if d.m.info.ABIVersion != abi.Version {
		return fmt.Errorf("ABI version %d is not supported (this host speaks %d)", d.m.info.ABIVersion, abi.Version)
	}
	return nil
}

// list calls wasmcp_describe in an instance that is closed afterwards, not
// pooled: a loader lists a module's tools once, and a plugin that is never
// called then holds no instance (a Go guest's is megabytes).
func (d *wasmcp) list(ctx context.Context) ([]byte, error) {
	var doc []byte
	err := d.m.run(ctx, callState{}, false, func(ctx context.Context, in *instance) error {
		region, err := in.region(ctx, in.export(abi.ExportDescribe), abi.MaxDescribeSize, in.stack[:1])
		doc = bytes.Clone(region)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("describe: %w", err)
	}
	return doc, nil
}

// serve copies the op's name and input into the one region wasmcp_alloc
// gives, and reads the document the op's export returns in place. Exports
// of two parameters (wasmcp_read, wasmcp_complete) get the region whole:
// their op has a name or an input, not both.
func (d *wasmcp) serve(ctx context.Context, op Op, hooks *CallHooks, read ReadFunc) error {
	m := d.m
	size := uint64(len(op.Name)) + uint64(len(op.Input))
	if size > math.MaxUint32 {
		return fmt.Errorf("%w: %d bytes of name and arguments do not fit a 32-bit memory", ErrMemory, size)
	}
	export := exportOf(op.Kind)
	return m.run(ctx, callState{tool: op.Name, hooks: hooks, waitLeft: m.opts.Limits.ClientTimeout}, true, func(ctx context.Context, in *instance) error {
		stack := in.stack[:4]
		stack[0] = api.EncodeU32(uint32(size))
		if err := in.export(abi.ExportAlloc).CallWithStack(ctx, stack); err != nil {
			return err
		}
		ptr := api.DecodeU32(stack[0])
		if ptr == 0 {
			return &callError{ErrMemory, nil, fmt.Sprintf(
				"%s(%d) returned 0: the guest could not allocate its arguments (memory limit %s)",
				abi.ExportAlloc, size, m.limitString())}
		}
		mem := in.mod.Memory()
		if !mem.WriteString(ptr, op.Name) || !mem.Write(ptr+uint32(len(op.Name)), op.Input) {
			return &callError{ErrTrap, nil, fmt.Sprintf("%s(%d) returned %d, a region outside memory of %d bytes",
				abi.ExportAlloc, size, ptr, mem.Size())}
		}
		switch op.Kind {
		case OpCall, OpPrompt:
			stack[0] = api.EncodeU32(ptr)
			stack[1] = api.EncodeU32(uint32(len(op.Name)))
			stack[2] = api.EncodeU32(ptr + uint32(len(op.Name)))
			stack[3] = api.EncodeU32(uint32(len(op.Input)))
		default:
			stack = stack[:2]
			stack[0] = api.EncodeU32(ptr)
			stack[1] = api.EncodeU32(uint32(size))
		}
		region, err := in.region(ctx, in.export(export), m.opts.Limits.MaxOutput, stack)
		if err != nil {
			return err
		}
		if err := read(region, false); err != nil {
			return &callError{ErrMalformed, err, err.Error()}
		}
		return nil
	})
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
