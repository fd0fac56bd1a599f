package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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

// The exports of protocol 2 for prompts, resources and completion: each
// listing with the export that serves what it lists, the member of the
// Describe document its output's list becomes, and the kind of Op.
var extismLists = []struct {
	list, member, serve string
	kind                OpKind
}{
	{"list_prompts", "prompts", "get_prompt", OpPrompt},
	{"list_resources", "resources", "read_resource", OpRead},
	{"list_resource_templates", "resourceTemplates", "read_resource", OpRead},
}

// exportCompleteV2 completes an argument of a prompt or a template.
const exportCompleteV2 = "complete"

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
	// lists are the exports of extismLists the plugin has, in that order.
	lists []string
}

func newExtism(m *Module) *extism { return &extism{m: m} }

func (*extism) kind() Kind            { return KindExtism }
func (*extism) hostModules() []string { return []string{ExtismModule, ExtismUserModule} }

func (d *extism) checkExports(fns map[string]api.FunctionDefinition, info *Info) error {
	var err error
	d.protocol, err = extismProtocol(fns)
	info.Protocol = d.protocol
	errs := append([]error{err}, checkInits(fns, abi.ExportInitialize, extismStart)...)
	if d.protocol == 2 {
		info.Serves, d.lists = map[OpKind]bool{}, nil
		for _, l := range extismLists {
			if _, ok := fns[l.list]; !ok {
				continue
			}
			if _, ok := fns[l.serve]; !ok {
				errs = append(errs, fmt.Errorf("missing export %s: the plugin lists with %s what it serves", l.serve, l.list))
				continue
			}
			d.lists = append(d.lists, l.list)
			info.Serves[l.kind], info.Serves[OpList] = true, true
		}
		if _, ok := fns[exportCompleteV2]; ok {
			info.Serves[OpComplete] = true
		}
		for _, name := range []string{"list_prompts", "get_prompt", "list_resources", "list_resource_templates", "read_resource", exportCompleteV2} {
			if _, e := extismExport(fns, name); e != nil {
				errs = append(errs, e)
			}
		}
	}
	return errors.Join(errs...)
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
// passes a progress token in _meta when the client asked for progress.
type extismContext struct {
	ID   uint64         `json:"id"`
	Meta map[string]any `json:"_meta"`
}

// extismCallParams are the params of an MCP tools/call request.
type extismCallParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// list runs the protocol's listing exports in one instance, closed
// afterwards, as a wasmcp module's describe: the tools' listing, and with
// protocol 2 those of prompts and resources, whose lists join it as
// members of one Describe document.
func (d *extism) list(ctx context.Context) ([]byte, error) {
	export, input := exportDescribeV1, []byte(nil)
	if d.protocol == 2 {
		export, input = exportListV2, listInput
	}
	var doc []byte
	err := d.m.run(ctx, callState{}, false, func(ctx context.Context, in *instance) error {
		defer in.ext.reset()
		out, err := d.listing(ctx, in, export, input)
		if err != nil || len(d.lists) == 0 {
			doc = out
			return err
		}
		var merged map[string]json.RawMessage
		if err := json.Unmarshal(out, &merged); err != nil || merged == nil {
			return fmt.Errorf("%s: the output is not a JSON object", export)
		}
		for _, l := range extismLists {
			if !slices.Contains(d.lists, l.list) {
				continue
			}
			out, err := d.listing(ctx, in, l.list, listInput)
			if err != nil {
				return err
			}
			var got map[string]json.RawMessage
			if err := json.Unmarshal(out, &got); err != nil {
				return fmt.Errorf("%s: the output is not a JSON object", l.list)
			}
			merged[l.member] = got[l.member]
		}
		doc, err = json.Marshal(merged)
		if err == nil && len(doc) > abi.MaxDescribeSize {
			err = fmt.Errorf("the listings together are %d bytes, over the limit of %s", len(doc), formatBytes(abi.MaxDescribeSize))
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", export, err)
	}
	return doc, nil
}

// listing runs one listing export in in and returns a copy of its output.
func (d *extism) listing(ctx context.Context, in *instance, export string, input []byte) ([]byte, error) {
	out, failed, err := d.invoke(ctx, in, export, input, abi.MaxDescribeSize)
	switch {
	case err != nil:
		return nil, err
	case failed:
		return nil, fmt.Errorf("%s reported an error: %s", export, strings.ToValidUTF8(string(out), "\uFFFD"))
	}
	return bytes.Clone(out), nil
}

// listInput is the input of protocol 2's listings, as hyper-mcp gives it:
// a context alone, of request 0.
var listInput = []byte(`{"context":{"id":0,"_meta":{}}}`)

// input is the input of a protocol 2 export: the MCP request's params and
// the context of a new request.
func (d *extism) input(params any, hooks *CallHooks) []byte {
	c := extismContext{ID: d.calls.Add(1), Meta: map[string]any{}}
	if hooks != nil && hooks.Progress != nil {
		// The plugin hands it back to notify_progress, as hyper-mcp
		// passes the client's; any value reaches this call's client.
		c.Meta["progressToken"] = fmt.Sprintf("wasmcp-%d", c.ID)
	}
	b, _ := json.Marshal(struct {
		Request any           `json:"request"`
		Context extismContext `json:"context"`
	}{params, c})
	return b
}

// serve builds the input of the protocol's export for op from its name and
// input, as hyper-mcp does, and runs it. A completion's output, MCP's
// CompleteResult, is unwrapped into the CompleteResult document of ABI.md.
func (d *extism) serve(ctx context.Context, op Op, hooks *CallHooks, read ReadFunc) error {
	var export string
	var input []byte
	switch op.Kind {
	case OpCall:
		params := extismCallParams{op.Name, op.Input}
		if d.protocol == 1 {
			export = exportCallV1
			input, _ = json.Marshal(struct {
				Params extismCallParams `json:"params"`
			}{params})
		} else {
			export, input = exportCallV2, d.input(params, hooks)
		}
	case OpRead:
		export, input = "read_resource", d.input(struct {
			URI string `json:"uri"`
		}{op.Name}, hooks)
	case OpPrompt:
		export, input = "get_prompt", d.input(extismCallParams{op.Name, op.Input}, hooks)
	case OpComplete:
		// hyper-mcp names the reference's type without its "ref/".
		var req map[string]any
		if err := json.Unmarshal(op.Input, &req); err != nil {
			return fmt.Errorf("%w: completion request: %w", ErrMalformed, err)
		}
		if ref, ok := req["ref"].(map[string]any); ok {
			if t, ok := ref["type"].(string); ok {
				ref["type"] = strings.TrimPrefix(t, "ref/")
			}
		}
		export, input = exportCompleteV2, d.input(req, hooks)
		inner := read
		read = func(out []byte, failed bool) error {
			if failed {
				return inner(out, true)
			}
			var r struct {
				Completion json.RawMessage `json:"completion"`
			}
			if err := json.Unmarshal(out, &r); err != nil || r.Completion == nil {
				return errors.New(`the output is not a CompleteResult ({"completion": {...}})`)
			}
			return inner(r.Completion, false)
		}
	}
	return d.run(ctx, export, op.Name, input, hooks, read)
}

// run runs export with input as the call's input, in a pooled instance
// under the call deadline, and gives read the output. When the guest
// reports an error (error_set, or a non-zero return code), read gets its
// message and failed. tool names the call in logs and audit lines.
func (d *extism) run(ctx context.Context, export, tool string, input []byte, hooks *CallHooks, read ReadFunc) error {
	m := d.m
	state := callState{tool: tool, hooks: hooks, waitLeft: m.opts.Limits.ClientTimeout}
	return m.run(ctx, state, true, func(ctx context.Context, in *instance) error {
		defer in.ext.reset() // the pooled instance keeps no bytes of this call
		out, failed, err := d.invoke(ctx, in, export, input, m.opts.Limits.MaxOutput)
		if err != nil {
			return err
		}
		if err := read(out, failed); err != nil {
			return &callError{ErrMalformed, err, err.Error()}
		}
		return nil
	})
}

// invoke runs export in in with input, and returns its output, or its
// error message and failed; the output lives in the kernel memory until
// the next invoke. An output over limit is ErrOutputTooLarge.
func (d *extism) invoke(ctx context.Context, in *instance, export string, input []byte, limit uint32) (out []byte, failed bool, err error) {
	x := in.ext
	x.reset()
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
		return nil, false, err
	}
	var rc int32
	if len(fn.Definition().ResultTypes()) == 1 {
		rc = api.DecodeI32(stack[0])
	}
	out, _ = x.mem.Output()
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
		return nil, false, &callError{ErrOutputTooLarge, nil, fmt.Sprintf("%s of %s gave %d bytes, over the limit of %s",
			what, export, len(out), formatBytes(uint64(limit)))}
	}
	return out, failed, nil
}

// extismProtocol returns the hyper-mcp protocol version of an Extism
// module's exports, or why it has none.
func extismProtocol(fns map[string]api.FunctionDefinition) (int, error) {
	has := func(name string) (bool, error) { return extismExport(fns, name) }
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

// extismExport reports whether fns has the plugin export name, and an
// error if its signature is not an Extism export's.
func extismExport(fns map[string]api.FunctionDefinition, name string) (bool, error) {
	def, ok := fns[name]
	if !ok {
		return false, nil
	}
	if s := sigOf(def); len(s.params) != 0 || len(s.results) > 1 || (len(s.results) == 1 && s.results[0] != i32) {
		return true, fmt.Errorf("export %s: signature %s, want () -> i32 or () -> ()", name, s)
	}
	return true, nil
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
