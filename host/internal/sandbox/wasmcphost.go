package sandbox

// The host functions of the "wasmcp" module (ABI.md section 5), which a
// module of the wasmcp dialect imports: log, the client features, HTTP
// requests, and the yield of the instrumentation.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/egress"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/bounds"
)

// instantiateWasmcp instantiates the "wasmcp" host module in the module's
// runtime: log, the client functions of ABI.md section 5 (client.go), and
// the yield function of the instrumentation (interrupt.go). Only the
// functions it exports may be imported; bounds.Instrument refuses a module
// that imports yield itself.
func instantiateWasmcp(ctx context.Context, rt wazero.Runtime) (api.Module, error) {
	b := rt.NewHostModuleBuilder(abi.ImportModule).
		NewFunctionBuilder().
		WithGoModuleFunction(ofModule((*Module).log), []api.ValueType{i32, i32, i32}, nil).
		WithParameterNames("level", "msg_ptr", "msg_len").
		Export(abi.ImportLog).
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(yield), nil, []api.ValueType{i32}).
		Export(bounds.YieldImport)
	for _, f := range clientFunctions() {
		b = b.NewFunctionBuilder().
			WithGoModuleFunction(f.fn, f.params, f.results).
			WithParameterNames(f.names...).
			Export(f.name)
	}
	return b.Instantiate(ctx)
}

// ofModule makes a method of Module a host function: the runtime's host
// module serves every Module compiled in it, so the method's Module is the
// one whose instance called, found in the context.
func ofModule(fn func(*Module, context.Context, api.Module, []uint64)) api.GoModuleFunc {
	return func(ctx context.Context, mod api.Module, stack []uint64) {
		in := instanceFrom(ctx)
		if in == nil {
			panic(errors.New("host function called outside a call of the sandbox"))
		}
		fn(in.module, ctx, mod, stack)
	}
}

const f64 = api.ValueTypeF64

// hostFunction is one function of the "wasmcp" host module.
type hostFunction struct {
	name    string
	fn      api.GoModuleFunction
	params  []api.ValueType
	names   []string
	results []api.ValueType
}

// clientFunctions are the host functions of the client features, and
// http_request (net.go), which shares their replies.
func clientFunctions() []hostFunction {
	return []hostFunction{
		{abi.ImportProgress, ofModule((*Module).progress), []api.ValueType{f64, f64, i32, i32},
			[]string{"progress", "total", "msg_ptr", "msg_len"}, nil},
		{abi.ImportCancelled, api.GoModuleFunc(cancelled), nil, nil, []api.ValueType{i32}},
		{abi.ImportSample, ofModule((*Module).sample), []api.ValueType{i32, i32},
			[]string{"req_ptr", "req_len"}, []api.ValueType{i64}},
		{abi.ImportElicit, ofModule((*Module).elicit), []api.ValueType{i32, i32},
			[]string{"req_ptr", "req_len"}, []api.ValueType{i64}},
		{abi.ImportReadReply, api.GoModuleFunc(readReply), []api.ValueType{i32, i32},
			[]string{"dst_ptr", "dst_len"}, []api.ValueType{i32}},
		{abi.ImportHTTPRequest, ofModule((*Module).httpRequest), []api.ValueType{i32, i32},
			[]string{"req_ptr", "req_len"}, []api.ValueType{i64}},
	}
}

// guestRegion returns the region [ptr, ptr+n) of mod's memory, or panics,
// which traps the call: ABI.md section 3 makes a region outside memory a
// guest error.
func guestRegion(mod api.Module, fn string, ptr, n uint32) []byte {
	buf, ok := mod.Memory().Read(ptr, n)
	if !ok {
		panic(fmt.Errorf("%s.%s: region [%d, %d) outside memory of %d bytes",
			abi.ImportModule, fn, ptr, uint64(ptr)+uint64(n), mod.Memory().Size()))
	}
	return buf
}

// log implements wasmcp.log: (level, msg_ptr, msg_len) -> (). The message is
// copied (truncated to abi.MaxLogSize) before the guest resumes, then given
// to the call's LogFunc and to Options.Logger. A line neither wants (a debug
// line, say, with no LogFunc and the logger at info) is dropped before it is
// copied: guests log such lines on every call, and with cold caches the
// copy and the record took several microseconds of a call.
func (m *Module) log(ctx context.Context, mod api.Module, stack []uint64) {
	level := min(abi.LogLevel(api.DecodeU32(stack[0])), abi.LogEmergency)
	ptr, n := api.DecodeU32(stack[1]), api.DecodeU32(stack[2])
	// The whole region must lie in memory (ABI.md section 3), even the part
	// that truncation drops; a guest passing a bad pointer has a bug worth
	// failing the call for. The panic becomes a trap of this call.
	buf, ok := mod.Memory().Read(ptr, n)
	if !ok {
		panic(fmt.Errorf("%s.%s: message [%d, %d) outside memory of %d bytes",
			abi.ImportModule, abi.ImportLog, ptr, uint64(ptr)+uint64(n), mod.Memory().Size()))
	}
	m.emit(ctx, level, buf)
}

// progress implements wasmcp.progress.
func (m *Module) progress(ctx context.Context, mod api.Module, stack []uint64) {
	p, total := api.DecodeF64(stack[0]), api.DecodeF64(stack[1])
	ptr, n := api.DecodeU32(stack[2]), api.DecodeU32(stack[3])
	guestRegion(mod, abi.ImportProgress, ptr, n)
	buf, _ := mod.Memory().Read(ptr, min(n, abi.MaxLogSize))
	if n > abi.MaxLogSize {
		buf = trimPartialRune(buf)
	}
	instanceFrom(ctx).report(p, total, string(buf))
}

// report passes a progress report of the call on to its client: MCP
// requires increasing progress, so a report that breaks the rule is the
// guest's mistake and is dropped rather than sent; a total that is not
// finite or negative is unknown.
func (in *instance) report(p, total float64, msg string) {
	st := in.call()
	if st == nil || st.hooks == nil || st.hooks.Progress == nil {
		return
	}
	if math.IsNaN(p) || math.IsInf(p, 0) || (st.reported && p <= st.lastProgress) {
		return
	}
	st.reported, st.lastProgress = true, p
	if math.IsNaN(total) || math.IsInf(total, 0) || total < 0 {
		total = -1
	}
	if len(msg) > abi.MaxLogSize {
		msg = string(trimPartialRune([]byte(msg[:abi.MaxLogSize])))
	}
	in.outside(func() { st.hooks.Progress(p, total, msg) })
}

// cancelled implements wasmcp.cancelled: 1 once the call's context is done,
// because the caller cancelled it or its deadline passed.
func cancelled(ctx context.Context, _ api.Module, stack []uint64) {
	stack[0] = 0
	if ctx.Err() != nil {
		stack[0] = 1
	}
}

func (m *Module) sample(ctx context.Context, mod api.Module, stack []uint64) {
	m.request(ctx, mod, stack, abi.ImportSample, "sampling", func(h *CallHooks) RequestFunc { return h.Sample })
}

func (m *Module) elicit(ctx context.Context, mod api.Module, stack []uint64) {
	m.request(ctx, mod, stack, abi.ImportElicit, "elicitation", func(h *CallHooks) RequestFunc { return h.Elicit })
}

// request implements wasmcp.sample and wasmcp.elicit: it sends the guest's
// params through the hook hookOf picks, keeps the reply for read_reply and
// returns abi.PackReply(status, len(reply)).
func (m *Module) request(ctx context.Context, mod api.Module, stack []uint64, fn, feature string, hookOf func(*CallHooks) RequestFunc) {
	params := bytes.Clone(guestRegion(mod, fn, api.DecodeU32(stack[0]), api.DecodeU32(stack[1])))
	st := stateFrom(ctx)
	if st == nil {
		stack[0] = abi.PackReply(abi.StatusUnsupported, 0)
		return
	}
	var hook RequestFunc
	if st.hooks != nil {
		hook = hookOf(st.hooks)
	}
	status, reply := m.ask(ctx, st, feature, hook, params)
	st.reply = reply
	stack[0] = abi.PackReply(status, uint32(len(reply)))
}

// readReply implements wasmcp.read_reply: the reply of the last sample,
// elicit or http_request of the call.
func readReply(ctx context.Context, mod api.Module, stack []uint64) {
	ptr, n := api.DecodeU32(stack[0]), api.DecodeU32(stack[1])
	var reply []byte
	if st := stateFrom(ctx); st != nil {
		reply = st.reply
	}
	n = min(n, uint32(len(reply)))
	guestRegion(mod, abi.ImportReadReply, ptr, n)
	mod.Memory().Write(ptr, reply[:n])
	stack[0] = api.EncodeU32(n)
}

// httpRequest implements wasmcp.http_request: (req_ptr, req_len) -> i64: it
// decodes the guest's document (ABI.md section 5), and the instance's
// client (egress) checks the request against the plugin's net policy and
// sends it; the response, or why there is none, is the reply for
// read_reply. The
// wait takes no processor's turn, and, unlike a wait for the client's
// answer, counts against the call's deadline: the network is the guest's
// doing. The deadline, and cancellation, abort the request.
func (m *Module) httpRequest(ctx context.Context, mod api.Module, stack []uint64) {
	// The guest runs no code while the request is made, so its memory
	// stays as it is: the request is decoded in place.
	doc := guestRegion(mod, abi.ImportHTTPRequest, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]))
	in := instanceFrom(ctx)
	st := in.call()
	if st == nil || st.budget == nil {
		// _initialize and describe run before any grant, outside a call.
		stack[0] = abi.PackReply(abi.StatusDenied, 0)
		return
	}
	// The caller's context: done with the call's budget, and carrying the
	// caller's values for the audit line's logger.
	rctx := st.budget.caller()
	var resp *abi.HTTPResponse
	r, err := abi.DecodeHTTPRequest(doc)
	if err != nil {
		err = in.net.Invalid(rctx, st.tool, "http request: "+err.Error())
	} else {
		in.outside(func() { resp, err = in.net.Do(rctx, st.tool, r) })
	}
	status := abi.StatusOK
	if f, ok := errors.AsType[*egress.Failure](err); ok {
		status, st.reply = f.Status, []byte(f.Reason)
	} else {
		st.reply = abi.EncodeHTTPResponse(*resp)
		egress.Release(resp)
	}
	stack[0] = abi.PackReply(status, uint32(len(st.reply)))
}

// yield implements the instrumentation's wasmcp.yield: () -> i32.
func yield(ctx context.Context, _ api.Module, stack []uint64) {
	instanceFrom(ctx).checkpoint(ctx)
	stack[0] = bounds.Fuel
}
