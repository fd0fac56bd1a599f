package sandbox

// The host functions of ExtismModule, "extism:host/env" (ABI.md section 9),
// which an Extism plugin imports: the kernel memory (package kernel), and
// config, variables, logs and HTTP, mapped onto wasmcp's policy, logging
// and egress.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/egress"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/kernel"
)

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
	panic(&callError{ErrTrap, err, fmt.Sprintf("trapped: %s: %v", qualified(fn), err)})
}

// qualified is the name of the host function fn, of ExtismModule unless fn
// names its module (the functions of ExtismUserModule do: userFn).
func qualified(fn string) string {
	if strings.Contains(fn, ".") {
		return fn
	}
	return ExtismModule + "." + fn
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
	msg := fmt.Sprintf("exceeded memory limit of %s: %s(%d) with %s of kernel memory and %s of linear memory in use",
		in.module.limitString(), qualified(fn), n, formatBytes(in.ext.mem.Bytes()), formatBytes(l.size))
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

// The host functions of ExtismModule beyond the kernel: config, variables,
// logs and HTTP, mapped onto wasmcp's policy, logging and egress.

// extismLogLevels map Extism's log functions onto MCP's levels, in
// Extism's order: get_log_level returns the index of the lowest level
// wanted. MCP has no trace: trace lines are debug lines.
var extismLogLevels = []struct {
	name  string
	level abi.LogLevel
}{{"trace", abi.LogDebug}, {"debug", abi.LogDebug}, {"info", abi.LogInfo}, {"warn", abi.LogWarning}, {"error", abi.LogError}}

// extismLogOff is what get_log_level returns when no line is wanted.
const extismLogOff = math.MaxInt32

// varStore holds the Extism variables of one Module: shared by its
// instances, and gone with it when the plugin is reloaded.
type varStore struct {
	mu    sync.Mutex
	vals  map[string][]byte // guarded by mu
	bytes int               // guarded by mu
}

func (v *varStore) get(key string) ([]byte, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	val, ok := v.vals[key]
	return val, ok
}

// varOverhead is what each variable counts against MaxVarBytes beyond its
// key and value: the host's map entry, string and slice. Without it a
// plugin keeping many one-byte variables held dozens of times the limit.
const varOverhead = 64

// varSize is what a variable counts against MaxVarBytes.
func varSize(key string, val []byte) int { return len(key) + len(val) + varOverhead }

// set sets or, for a nil value, deletes key; it fails when the store would
// exceed MaxVarBytes.
func (v *varStore) set(key string, val []byte) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	old, had := v.vals[key]
	size := v.bytes
	if had {
		size -= varSize(key, old)
	}
	if val == nil {
		delete(v.vals, key)
		v.bytes = size
		return nil
	}
	size += varSize(key, val)
	if size > MaxVarBytes {
		return fmt.Errorf("the plugin's variables would take %d bytes, over the limit of %s", size, formatBytes(MaxVarBytes))
	}
	if v.vals == nil {
		v.vals = map[string][]byte{}
	}
	v.vals[key], v.bytes = val, size
	return nil
}

func (in *instance) configGet(ctx context.Context, s []uint64) {
	key := in.kblock("config_get", "the key", s[0])
	v, ok := in.module.opts.Config[string(key)]
	s[0] = 0
	if ok {
		s[0] = in.kbytes(ctx, "config_get", []byte(v))
	}
}

func (in *instance) varGet(ctx context.Context, s []uint64) {
	key := in.kblock("var_get", "the key", s[0])
	v, _ := in.ext.plugin.vars.get(string(key))
	s[0] = in.kbytes(ctx, "var_get", v)
}

func (in *instance) varSet(_ context.Context, s []uint64) {
	key := string(in.kblock("var_set", "the key", s[0]))
	var val []byte
	if s[1] != 0 {
		// A copy: the block's memory is the call's. Never empty, as
		// alloc(0) gives no block.
		val = bytes.Clone(in.kblock("var_set", "the value", s[1]))
	}
	in.kcheck("var_set", in.ext.plugin.vars.set(key, val))
}

// extismLog implements log_*: the message block goes out as a log line of
// the plugin, like one of wasmcp.log.
func (in *instance) extismLog(ctx context.Context, fn string, level abi.LogLevel, p uint64) {
	msg := in.kblock(fn, "the message", p)
	in.module.emit(ctx, level, msg)
}

// extismLogLevel is the lowest Extism level anyone would see: trace (0)
// when the call has a client to send lines to, which filters them by the
// level it chose, or when the logger wants debug lines; else the logger's.
func (in *instance) extismLogLevel(ctx context.Context) int32 {
	if st := in.call(); st != nil {
		if st.hooks != nil && st.hooks.Log != nil {
			return 0
		}
		if st.budget != nil {
			ctx = st.budget.caller()
		}
	}
	logger := in.module.opts.Logger
	for i, l := range extismLogLevels {
		if logger.Enabled(ctx, slogLevel(l.level)) {
			return int32(i)
		}
	}
	return extismLogOff
}

// extismRequest is the request document of Extism's http_request.
type extismRequest struct {
	URL     string            `json:"url"`
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
}

// extismHTTP implements http_request: (request, body) -> response body.
// The request goes through the instance's egress client, like one of
// wasmcp.http_request, within the plugin's net grant. Any outcome but a
// response ends the call with ErrNet, naming the URL and the reason, as
// Extism's runtime does for a host it does not allow.
func (in *instance) extismHTTP(ctx context.Context, s []uint64) {
	const fn = "http_request"
	head := in.kblock(fn, "the request", s[0])
	var body []byte
	if s[1] != 0 {
		body = in.kblock(fn, "the body", s[1])
	}
	var req extismRequest
	if err := json.Unmarshal(head, &req); err != nil {
		in.fault(fn, fmt.Errorf("the request is not an HTTP request object: %w", err))
	}
	in.ext.httpStatus, in.ext.httpHeaders = 0, nil
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = "GET"
	}
	st := in.call()
	if st == nil || st.budget == nil {
		panic(&callError{ErrNet, nil, fmt.Sprintf("%s %s %s: denied: no request is allowed outside a tool call", fn, method, req.URL)})
	}
	r := abi.HTTPRequest{Method: method, URL: req.URL, Body: body}
	names := make([]string, 0, len(req.Headers))
	for name := range req.Headers {
		names = append(names, name)
	}
	sort.Strings(names) // a map has no order; the wire gets a stable one
	for _, name := range names {
		r.Headers = append(r.Headers, abi.HTTPHeader{Name: name, Value: req.Headers[name]})
	}
	rctx := st.budget.caller()
	var resp *abi.HTTPResponse
	var err error
	in.outside(func() { resp, err = in.net.Do(rctx, st.tool, r) })
	if f, ok := errors.AsType[*egress.Failure](err); ok {
		if f.Status == abi.StatusTimeout && ctx.Err() != nil {
			panic(ctx.Err()) // the call's deadline: classify says so
		}
		panic(&callError{ErrNet, nil, fmt.Sprintf("%s %s %s: %s: %s", fn, method, req.URL, f.Status, f.Reason)})
	}
	in.ext.httpStatus = int32(resp.Status)
	headers := map[string]string{}
	for _, h := range resp.Headers {
		name := strings.ToLower(h.Name) // as Extism's runtime gives them
		if v, ok := headers[name]; ok {
			headers[name] = v + ", " + h.Value
		} else {
			headers[name] = h.Value
		}
	}
	in.ext.httpHeaders, _ = json.Marshal(headers)
	defer egress.Release(resp) // kbytes copies it into the kernel
	if len(resp.Body) == 0 {
		s[0] = 0
		return
	}
	s[0] = in.kbytes(ctx, fn, resp.Body)
}
