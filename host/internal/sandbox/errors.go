package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmcp/wasmcp/abi"
)

// callError is an error of a call, classified by kind and worded for a user.
type callError struct {
	kind  error // one of the Err values
	cause error // what wazero or a callback said, may be nil
	msg   string
}

func (e *callError) Error() string { return e.msg }

// Unwrap lets errors.Is match both the kind and the cause, for example
// ErrTimeout and context.DeadlineExceeded.
func (e *callError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

// classify turns an error from wazero into a callError. ctx is the caller's
// context and callCtx the one with the call deadline; in is the instance
// that failed, nil if there was none.
func (m *Module) classify(ctx, callCtx context.Context, in *instance, err error) error {
	if ce, ok := errors.AsType[*callError](err); ok {
		// Unwrapped from what wazero made of it when a host function
		// panicked with it, so that its message is the sandbox's.
		return ce
	}
	if m.isClosed() {
		return &callError{ErrClosed, err, "the module is closed"}
	}
	exit, isExit := errors.AsType[*sys.ExitError](err)
	switch {
	case ctx.Err() != nil:
		// The caller gave up (cancelled, or its own deadline passed), which
		// may look like our deadline to wazero: report the caller's reason.
		return &callError{ErrCanceled, context.Cause(ctx), fmt.Sprintf("canceled: %v", context.Cause(ctx))}
	case callCtx.Err() != nil && !isExit:
		// The interrupt flag's trap, or whatever the guest was doing when
		// its time ran out.
		return &callError{ErrTimeout, callCtx.Err(), fmt.Sprintf("timed out after %s", m.opts.Limits.Timeout)}
	case isExit:
		return &callError{ErrExit, err, fmt.Sprintf("exited with code %d (proc_exit)", exit.ExitCode())}
	case in != nil && in.memory != nil:
		if limit, own, full := m.outOfMemory(in); full {
			if own {
				return &callError{ErrMemory, err, fmt.Sprintf("exceeded its own declared memory maximum of %s", limit)}
			}
			return &callError{ErrMemory, err, fmt.Sprintf("exceeded memory limit of %s", limit)}
		}
	}
	return &callError{ErrTrap, err, "trapped: " + trapMessage(err)}
}

// outOfMemory reports whether a trap in in is due to memory exhaustion: a
// grow was refused during the call, or the memory is full. It also returns
// the limit that was hit, and whether that is the module's own declared
// maximum, lower than ours (wazero refuses grows past it before asking
// limitedMemory).
func (m *Module) outOfMemory(in *instance) (limit string, own, full bool) {
	pages := uint64(m.opts.Limits.MemoryPages)
	room := m.memoryLimit() / pageSize // what the tables leave of the limit
	if def, ok := m.compiled.ExportedMemories()[abi.ExportMemory]; ok {
		if declared, ok := def.Max(); ok && uint64(declared) < room {
			pages, room, own = uint64(declared), uint64(declared), true
		}
	}
	full = in.memory.refused || in.memory.pages() >= room
	return formatBytes(pages * pageSize), own, full
}

func (m *Module) limitString() string {
	return formatBytes(uint64(m.opts.Limits.MemoryPages) * pageSize)
}

// trapMessage keeps the first line of a wazero error, without its stack
// trace and its "wasm error: " prefix: "unreachable", "integer divide by
// zero", "out of bounds memory access", or the error of a host function.
func trapMessage(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if i := strings.LastIndex(msg, "wasm error: "); i >= 0 {
		msg = msg[i+len("wasm error: "):]
	}
	// wazero marks errors it recovered from a panicking host function.
	msg = strings.TrimSuffix(msg, " (recovered by wazero)")
	return strings.TrimSpace(msg)
}
