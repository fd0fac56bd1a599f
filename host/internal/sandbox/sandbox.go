// Package sandbox runs guest modules in wazero: modules of the wasmcp ABI
// and Extism plugins, each kind a dialect (dialect.go) chosen once when the
// module compiles, so that nothing outside this package asks which kind a
// module is.
//
// A Runtime holds the wazero runtime, the host modules every dialect's
// guests import and the compiled code, shared by content; Runtime.Compile
// makes a Module, which keeps a pool of instances, since an instance serves
// one call at a time. Only WASI preview 1 and the dialect's host functions
// are offered: no environment, no file system, no network, a deterministic
// clock and random source, stdout and stderr discarded, unless SetGrants
// grants more; HTTP requests go through package egress, mounts through
// package mountfs. An instance that fails in any way is closed and never
// reused. The life of a call, from instance to result, is call.go.
package sandbox

import (
	"errors"
	"log/slog"
	"runtime"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/egress"
	"github.com/wasmcp/wasmcp/host/internal/telemetry"
)

// Defaults applied to zero fields of Limits and Options. They match the
// defaults of ABI.md section 6 and of the wasmcp command.
const (
	// DefaultTimeout is the per-call deadline.
	DefaultTimeout = 30 * time.Second
	// DefaultMemoryPages is the per-instance memory limit: 256 MiB.
	DefaultMemoryPages = 4096
	// DefaultMaxOutput is the largest result document read back: 4 MiB.
	DefaultMaxOutput = 4 << 20
)

// pageSize is the size of a WebAssembly memory page.
const pageSize = 65536

// maxPages is the most pages a 32-bit linear memory can have (4 GiB).
const maxPages = 65536

// tableElementSize is what a table element takes of the memory limit:
// wazero keeps a reference, a pointer, for each, and copies them all to a
// larger array as the table grows, leaving the old ones to the garbage
// collector: a table grown an element at a time has left about two more
// by the time it is full.
const tableElementSize = 32

// LogFunc receives the log lines a guest emits during one call. It runs on
// the calling goroutine while the guest waits, so it should return quickly.
type LogFunc func(level abi.LogLevel, msg string)

// Kind is the ABI a module was built for, told by its imports: "wasmcp"
// (ABI.md sections 1-8) or "extism" (section 9).
type Kind string

// The kinds of module, one per dialect.
const (
	KindWasmcp Kind = "wasmcp"
	KindExtism Kind = "extism"
)

// ReadFunc gets what a call gave back: out is the result document (a
// Result of ABI.md section 4, which an Extism plugin's CallToolResult is
// too), valid only until ReadFunc returns; with failed set, out is instead
// the message of an error the guest reported in place of a result (an
// Extism plugin's error_set). An error of ReadFunc makes the call fail with
// ErrMalformed.
type ReadFunc func(out []byte, failed bool) error

// Limits bound what one call may consume.
type Limits struct {
	// MemoryPages is the memory limit of one instance, in 64 KiB pages: its
	// linear memory and its tables together, a table element counting 32
	// bytes at the table's maximum. Zero means DefaultMemoryPages; values
	// above 65536 mean 65536.
	MemoryPages uint32
	// Timeout is the deadline of one call, including the instantiation of a
	// fresh instance when the pool is empty. A guest stuck in a loop is
	// stopped when it passes. Zero means DefaultTimeout.
	Timeout time.Duration
	// ClientTimeout is the most time one call may spend, in total, waiting for
	// its client to answer sample and elicit requests. That time does not
	// count against Timeout (the call's clock stops while it waits); when
	// ClientTimeout runs out the pending request gets abi.StatusTimeout. Zero
	// means DefaultClientTimeout.
	ClientTimeout time.Duration
	// MaxOutput is the largest result document, in bytes, read back from a
	// call. Zero means DefaultMaxOutput. The describe document is bounded by
	// abi.MaxDescribeSize instead, because ABI.md fixes that limit for every
	// host: a module that loads in one host must load in all.
	MaxOutput uint32
}

// Options configure Compile. The zero value is usable.
type Options struct {
	// Limits bound every call.
	Limits Limits
	// Logger receives every guest log line, with "plugin" and "tool"
	// attributes. Nil means slog.Default().
	Logger *slog.Logger
	// Resolver looks up the host names of the guests' HTTP requests. Nil
	// means net.DefaultResolver; tests give their own.
	Resolver egress.Resolver
	// Instruments record the module's memory high-water mark and its
	// guests' outbound requests. Nil records nothing.
	Instruments *telemetry.Instruments
	// Config are the values an Extism plugin reads with config_get (ABI.md
	// section 9); wasmcp modules have no use for them.
	Config map[string]string
	// Secrets are the values an Extism plugin reads with hyper-mcp's
	// get_keyring_secret, by "service/user" (ABI.md section 9).
	Secrets map[string]string
	// ListChanged, if set, is told when a plugin says one of its lists
	// (ListTools, ListPrompts, ListResources) changed; it runs in the
	// guest's goroutine and must not block.
	ListChanged func(list string)
	// MaxIdle is how many idle instances the pool keeps for reuse. More are
	// created on demand when calls overlap, and closed when they finish.
	// Zero or less means runtime.GOMAXPROCS(0): throughput saturates at about
	// one instance per core.
	MaxIdle int
}

// withDefaults returns o with every zero field replaced by its default.
func (o Options) withDefaults() Options {
	if o.Limits.MemoryPages == 0 {
		o.Limits.MemoryPages = DefaultMemoryPages
	}
	o.Limits.MemoryPages = min(o.Limits.MemoryPages, maxPages)
	if o.Limits.Timeout <= 0 {
		o.Limits.Timeout = DefaultTimeout
	}
	if o.Limits.ClientTimeout <= 0 {
		o.Limits.ClientTimeout = DefaultClientTimeout
	}
	if o.Limits.MaxOutput == 0 {
		o.Limits.MaxOutput = DefaultMaxOutput
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Instruments == nil {
		o.Instruments = telemetry.Noop()
	}
	if o.MaxIdle <= 0 {
		o.MaxIdle = runtime.GOMAXPROCS(0)
	}
	return o
}

// moduleConfig is the sandbox every instance runs in. wazero's defaults are
// the policy of ABI.md section 6: no arguments, environment or mounts, fake
// clocks and random, stdin empty, stdout and stderr discarded. Operator-granted
// capabilities are added to it by Grants.configure (grants.go, SetGrants).
func (o Options) moduleConfig() wazero.ModuleConfig {
	return wazero.NewModuleConfig().
		// Anonymous instances: many instances of one module share a runtime,
		// and nothing may import them by name.
		WithName("").
		// None: instantiate runs the start function and _initialize itself,
		// under the call's deadline; never a command's _start.
		WithStartFunctions()
}

// Info describes a compiled module for `wasmcp inspect`.
type Info struct {
	// Kind is the ABI the module was built for.
	Kind Kind
	// AsksPermissions reports whether the module's tool list can ask for
	// permissions (ABI.md section 4). One that cannot, an Extism plugin,
	// is offered what the policy grants its name.
	AsksPermissions bool
	// ABIVersion is what the module's wasmcp_abi_version returned; 0 for an
	// Extism module.
	ABIVersion uint32
	// Protocol is the hyper-mcp plugin protocol version of an Extism
	// module, 1 or 2; 0 for a wasmcp module.
	Protocol int
	// Imports are "module.name: signature" lines, sorted, such as
	// "wasmcp.log: (i32, i32, i32) -> ()".
	Imports []string
	// Exports are "name: signature" lines, sorted, such as
	// "wasmcp_alloc: (i32) -> i32" or "memory: memory (min 17 pages)".
	Exports []string
	// Serves are the kinds of Op besides OpCall the module has an export
	// for; OpList is set when it may list resources or prompts.
	Serves map[OpKind]bool
}

// OpKind is what an Op asks of a module.
type OpKind uint8

const (
	// OpCall runs the tool Name with the arguments Input.
	OpCall OpKind = iota
	// OpRead reads the resource whose URI is Name.
	OpRead
	// OpPrompt gets the prompt Name with the arguments Input.
	OpPrompt
	// OpComplete completes an argument: Input is a CompleteRequest.
	OpComplete
	// OpList is set in Info.Serves when the module may list resources or
	// prompts; it is not an Op of Serve.
	OpList
)

var opNames = [...]string{"call", "read", "prompt", "complete", "list"}

func (k OpKind) String() string { return opNames[k] }

// An Op is one request a module serves (Module.Serve): a tools/call, a
// resources/read, a prompts/get or a completion/complete.
type Op struct {
	Kind OpKind
	// Name is the tool's or the prompt's name, or the resource's URI.
	Name string
	// Input is the call's or the prompt's arguments, or the completion
	// request, as JSON.
	Input []byte
}

// Errors a call fails with, matched with errors.Is. The error returned wraps
// one of them and says what happened in terms a user can act on.
var (
	// ErrTimeout: the call passed its deadline (Limits.Timeout).
	ErrTimeout = errors.New("timeout")
	// ErrCanceled: the caller's context was done before the call finished.
	ErrCanceled = errors.New("canceled")
	// ErrMemory: the guest ran out of memory within Limits.MemoryPages.
	ErrMemory = errors.New("memory limit exceeded")
	// ErrTrap: the guest trapped, or handed the host a region outside its
	// memory.
	ErrTrap = errors.New("trap")
	// ErrExit: the guest called WASI proc_exit.
	ErrExit = errors.New("exit")
	// ErrOutputTooLarge: the result document exceeds Limits.MaxOutput.
	ErrOutputTooLarge = errors.New("output too large")
	// ErrNoResult: the guest returned 0 instead of a document.
	ErrNoResult = errors.New("no result")
	// ErrHostFunction: a host function the guest called failed the call:
	// one of hyper-mcp's that cannot serve it (get_access_token), or a
	// request of the client past MaxClientRequests.
	ErrHostFunction = errors.New("host function failed")
	// ErrUnsupported: the module has no export for the Op (Serve).
	ErrUnsupported = errors.New("not served")
	// ErrMalformed: the ReadFunc of Call refused the result.
	ErrMalformed = errors.New("malformed result")
	// ErrNet: an Extism plugin's http_request was refused or failed; the
	// call ends, as in Extism's own runtime.
	ErrNet = errors.New("http request failed")
	// ErrClosed: the module was closed.
	ErrClosed = errors.New("module closed")
)
