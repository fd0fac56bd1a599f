package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"unicode/utf8"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/bounds"
)

// instantiateHost instantiates the "wasmcp" host module in the module's
// runtime: log, the client functions of ABI.md section 5 (client.go), and
// the yield function of the instrumentation (interrupt.go). Only the
// functions it exports may be imported; bounds.Instrument refuses a module
// that imports yield itself.
func instantiateHost(ctx context.Context, rt wazero.Runtime) (api.Module, error) {
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

// emit passes one guest log line on, as log says: to the call's LogFunc and
// to Options.Logger, truncated to abi.MaxLogSize, within the call's log
// bounds. buf may be the guest's memory: it is copied.
func (m *Module) emit(ctx context.Context, level abi.LogLevel, buf []byte) {
	if len(buf) > abi.MaxLogSize {
		buf = trimPartialRune(buf[:abi.MaxLogSize])
	}
	// Outside a call (_initialize, describe) there is no call state: no
	// limits, no LogFunc and no tool to name.
	var st *callState
	in := instanceFrom(ctx)
	if in != nil {
		if b := in.state.budget; b != nil {
			ctx = b.caller() // the logger may want the caller's values
		}
		if ok, first := in.state.logs.allow(len(buf)); !ok {
			if first {
				m.opts.Logger.LogAttrs(ctx, slog.LevelWarn, "guest log lines dropped: over the limit of one call",
					slog.String("plugin", m.name), slog.String("tool", in.state.tool),
					slog.Int("max_lines", MaxLogLines), slog.Int("max_bytes", MaxLogBytes))
			}
			return
		}
		st = in.call()
	}
	var hook LogFunc
	if st != nil && st.hooks != nil {
		hook = st.hooks.Log
	}
	lvl := slogLevel(level)
	logged := m.opts.Logger.Enabled(ctx, lvl)
	if hook == nil && !logged {
		return
	}
	msg := string(buf) // copies: the guest may reuse its memory at once
	if hook != nil {
		// The client may be slow to read: its wait takes no processor.
		in.outside(func() { hook(level, msg) })
	}
	if !logged {
		return
	}
	if st == nil {
		m.opts.Logger.LogAttrs(ctx, lvl, msg, slog.String("plugin", m.name))
		return
	}
	m.opts.Logger.LogAttrs(ctx, lvl, msg, slog.String("plugin", m.name), slog.String("tool", st.tool))
}

// trimPartialRune drops an incomplete UTF-8 sequence that truncation left
// at the end of b, so that a truncated message stays valid UTF-8.
func trimPartialRune(b []byte) []byte {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// slogLevel maps the syslog severities of MCP onto slog's four levels.
func slogLevel(l abi.LogLevel) slog.Level {
	switch {
	case l <= abi.LogDebug:
		return slog.LevelDebug
	case l <= abi.LogNotice:
		return slog.LevelInfo
	case l == abi.LogWarning:
		return slog.LevelWarn
	}
	return slog.LevelError
}
