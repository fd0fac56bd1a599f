package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/bounds"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/kernel"
)

// ExtismModule is the module whose imports make a module an Extism plugin
// (ABI.md section 9). Its functions are implemented here, in Go, on a
// kernel memory of each instance's own (package kernel, extismhost.go).
const ExtismModule = "extism:host/env"

// The exports of hyper-mcp's plugin protocols: version 1 lists its tools
// with describe and runs one with call; version 2 with list_tools and
// call_tool. Each takes its input and gives its output through the kernel,
// and returns 0 for success (or nothing).
const (
	exportDescribeV1 = "describe"
	exportCallV1     = "call"
	exportListV2     = "list_tools"
	exportCallV2     = "call_tool"
)

// extismStart is a command's entry point, which Extism's runtime runs when
// it instantiates a plugin.
const extismStart = "_start"

// MaxVarBytes bounds the Extism variables of one plugin (var_set), keys
// and values together: 1 MiB, the default of Extism's own runtime. Each
// variable also counts a small overhead (varOverhead).
const MaxVarBytes = 1 << 20

// extism is the dialect of an Extism plugin serving one of hyper-mcp's
// plugin protocols. Its tool list is a ListToolsResult, {"tools": [...]},
// the shape of a Describe document; a call's output is a CallToolResult,
// the shape of a wasmcp Result.
type extism struct {
	m *Module
	// protocol is the hyper-mcp plugin protocol, 1 or 2.
	protocol int
	// vars are the plugin's variables (var_get, var_set), shared by its
	// instances.
	vars varStore
	// calls numbers the calls of protocol 2, whose input names one.
	calls atomic.Uint64
}

func newExtism(m *Module) *extism { return &extism{m: m} }

func (*extism) kind() Kind         { return KindExtism }
func (*extism) hostModule() string { return ExtismModule }

func (d *extism) checkExports(fns map[string]api.FunctionDefinition, info *Info) error {
	var err error
	d.protocol, err = extismProtocol(fns)
	info.Protocol = d.protocol
	return errors.Join(append([]error{err}, checkInits(fns, abi.ExportInitialize, extismStart)...)...)
}

// inits: the start function, a command's _start, which Extism's runtime
// runs when it instantiates a plugin (TinyGo plugins built as commands, as
// Extism's Go PDK shows, need it), then a reactor's initialiser.
func (*extism) inits() []string {
	return []string{bounds.StartExport, extismStart, abi.ExportInitialize}
}

// setup gives the instance its kernel memory.
func (d *extism) setup(in *instance) {
	in.ext = &extismState{plugin: d, mem: kernel.New(d.m.memoryLimit())}
}

func (*extism) verify(context.Context, context.Context, *instance) error { return nil }

// extismContext is the "context" member of protocol 2's inputs: the MCP
// request's id and _meta. wasmcp numbers the calls of each plugin, and
// passes no _meta.
type extismContext struct {
	ID   uint64         `json:"id"`
	Meta map[string]any `json:"_meta"`
}

// extismCallParams are the params of an MCP tools/call request.
type extismCallParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// list runs the protocol's listing export, in an instance that is closed
// afterwards, as a wasmcp module's describe.
func (d *extism) list(ctx context.Context) ([]byte, error) {
	export, input := exportDescribeV1, []byte(nil)
	if d.protocol == 2 {
		export = exportListV2
		input, _ = json.Marshal(struct {
			Context extismContext `json:"context"`
		}{extismContext{Meta: map[string]any{}}})
	}
	var doc []byte
	var failure string
	err := d.run(ctx, export, "", input, nil, func(out []byte, failed bool) error {
		if failed {
			failure = string(out)
		}
		doc = bytes.Clone(out)
		return nil
	})
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", export, err)
	case failure != "":
		return nil, fmt.Errorf("%s reported an error: %s", export, strings.ToValidUTF8(failure, "\uFFFD"))
	}
	return doc, nil
}

// call builds the input of the protocol's call export from the tool's name
// and arguments, as hyper-mcp does, and runs it.
func (d *extism) call(ctx context.Context, tool string, args []byte, hooks *CallHooks, read ReadFunc) error {
	params := extismCallParams{tool, args}
	export := exportCallV1
	var input []byte
	var err error
	if d.protocol == 1 {
		input, err = json.Marshal(struct {
			Params extismCallParams `json:"params"`
		}{params})
	} else {
		export = exportCallV2
		input, err = json.Marshal(struct {
			Request extismCallParams `json:"request"`
			Context extismContext    `json:"context"`
		}{params, extismContext{ID: d.calls.Add(1), Meta: map[string]any{}}})
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return d.run(ctx, export, tool, input, hooks, read)
}

// run runs export with input as the call's input, in a pooled instance
// under the call deadline, and gives read the output. When the guest
// reports an error (error_set, or a non-zero return code), read gets its
// message and failed. tool names the call in logs and audit lines; an
// empty tool is a listing, which may not make HTTP requests and whose
// instance is closed afterwards.
func (d *extism) run(ctx context.Context, export, tool string, input []byte, hooks *CallHooks, read ReadFunc) error {
	m := d.m
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
		fn := in.export(export)
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
	}{{1, exportDescribeV1, exportCallV1}, {2, exportListV2, exportCallV2}} {
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
		exportDescribeV1, exportCallV1, exportListV2, exportCallV2)
}

// extismState is what an Extism instance keeps besides its linear memory.
type extismState struct {
	// plugin is the dialect of the instance's module: its variables.
	plugin *extism
	mem    *kernel.Memory
	// httpStatus and httpHeaders describe the last response of the call;
	// httpHeaders is nil before any.
	httpStatus  int32
	httpHeaders []byte
	// work is the kernel memory allocated or moved since the last
	// checkpoint.
	work uint64
}

// reset empties the state for the next call.
func (x *extismState) reset() {
	x.mem.Reset()
	x.httpStatus, x.httpHeaders = 0, nil
}
