// Package plugin loads a wasmcp guest module as a plugin: it compiles the
// module in a sandbox, reads and validates its tool definitions, and calls
// its tools with validated arguments, returning results completed by the
// rules of ABI.md section 4.
package plugin

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/trace"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/admission"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/internal/schema"
	"github.com/wasmcp/wasmcp/host/internal/telemetry"
	"github.com/wasmcp/wasmcp/host/policy"
)

// DefaultMaxInput is the largest arguments document accepted when
// Options.MaxInput is zero: 4 MiB, the default of ABI.md section 4.
const DefaultMaxInput = 4 << 20

// Errors of Call. Every other failure is a result with IsError set.
var (
	// ErrUnknownTool: the plugin defines no tool of that name.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrClosed: the plugin was closed; a caller holding a newer version of
	// the plugin may retry there.
	ErrClosed = errors.New("plugin closed")
)

// Failures of a call that Result.Failure wraps, besides the sandbox's own
// (sandbox.ErrTimeout, ErrMemory, ErrCanceled, ErrTrap, ErrExit,
// ErrOutputTooLarge, ErrNoResult, ErrMalformed).
var (
	// ErrInvalidArguments: the arguments were refused before the guest ran:
	// over the size limit, not UTF-8, or not valid against the inputSchema.
	ErrInvalidArguments = errors.New("invalid arguments")
	// ErrOutputSchema: the tool's structuredContent is missing or does not
	// match its outputSchema.
	ErrOutputSchema = errors.New("structured content does not match the output schema")
)

// Result is what a call gives: the complete result a client gets (ABI.md
// section 4), and, when the host rather than the tool made it an error,
// why.
type Result struct {
	abi.Result
	// Failure is nil when the tool ran and returned its result, with
	// IsError or without. Otherwise the result is the host's explanation,
	// with IsError, and Failure is its cause, matched with errors.Is:
	// ErrInvalidArguments, ErrOutputSchema or one of the sandbox's errors.
	// Only the host sets it, so that a guest cannot pass its own error for a
	// timeout, say, by writing the host's wording.
	Failure error `json:"-"`
}

// Options configure Load.
type Options struct {
	// Runtime is the sandbox runtime the module compiles in, shared by the
	// host's plugins.
	Runtime *sandbox.Runtime
	// Sandbox configures the module's limits and logging.
	Sandbox sandbox.Options
	// MaxInput is the largest arguments document, in bytes. Zero or less
	// means DefaultMaxInput.
	MaxInput int
	// Permit, when set, decides what the module's permissions request gets
	// (see permissions.go). Nil grants nothing.
	Permit PermitFunc
	// Implicit is the permissions request of a module that cannot make
	// one (sandbox.Info.AsksPermissions), an Extism plugin (ABI.md section
	// 9): what the operator's policy offers it. Others ignore it.
	Implicit *abi.Permissions
	// Generation is the host's configuration the plugin is loaded under,
	// which it reports (Generation) so that a newer one loads it again.
	Generation uint64
	// Closed, if set, is called once when the plugin is closed.
	Closed func()
	// Admission are the plugin's own admission limits, from the operator's
	// policy: the host applies them before each call.
	Admission admission.PluginLimits
	// Surface says which of the module's tools are served, and under which
	// names; nil serves every tool under its own.
	Surface *policy.Surface
}

// Plugin is a loaded module and its tools. Its methods are safe for
// concurrent use.
type Plugin struct {
	name, path, sum string
	mod             *sandbox.Module
	info            sandbox.Info // the module's kind and protocol
	tools           []abi.Tool
	byName          map[string]*tool
	maxInput        int
	logger          *slog.Logger
	requested       *abi.Permissions
	granted         policy.Grants
	standIns        []string // see StandIns
	admission       admission.PluginLimits
	tracer          trace.Tracer
	generation      uint64
	closed          func()
	surface         *policy.Surface
	closeOnce       sync.Once
	// offers are its resources, templates and prompts (offers.go).
	offers offers
	// successor is set once Relist handed the module to a new Plugin:
	// Close then leaves it open.
	successor atomic.Bool
}

// tool is a definition, as served, with its compiled schemas.
type tool struct {
	def abi.Tool
	// guest is the tool's name in the module, which a served name the
	// policy gives (Options.Surface) stands for.
	guest  string
	input  *schema.Schema
	output *schema.Schema // nil without outputSchema
}

// Load compiles wasm, the contents of the file at path, calls its
// wasmcp_describe and validates every definition: a valid and unique name,
// an inputSchema of type "object", schemas that compile, at most
// abi.MaxTools tools. Any failure refuses the whole module, with an error
// naming the file, the tool and the problem.
func Load(ctx context.Context, path string, wasm []byte, opts Options) (*Plugin, error) {
	p := &Plugin{
		name:       strings.TrimSuffix(filepath.Base(path), ".wasm"),
		path:       path,
		maxInput:   opts.MaxInput,
		logger:     opts.Sandbox.Logger,
		admission:  opts.Admission,
		generation: opts.Generation,
		closed:     opts.Closed,
		surface:    opts.Surface,
	}
	if p.maxInput <= 0 {
		p.maxInput = DefaultMaxInput
	}
	if p.logger == nil {
		p.logger = slog.Default()
	}
	inst := opts.Sandbox.Instruments
	if inst == nil {
		inst = telemetry.Noop()
	}
	p.tracer = inst.Tracer
	mod, err := opts.Runtime.Compile(ctx, p.name, wasm, opts.Sandbox)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	p.mod, p.info = mod, mod.Info()
	sum := mod.Sum() // the sandbox's, which keys its compiled code by it
	p.sum = hex.EncodeToString(sum[:])
	doc, err := mod.List(ctx)
	if err == nil {
		err = p.define(doc)
	}
	if !p.info.AsksPermissions {
		p.requested = opts.Implicit
	}
	if err == nil {
		err = p.permit(ctx, opts.Permit)
	}
	if err != nil {
		_ = mod.Close(ctx)
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	if !p.info.AsksPermissions {
		p.standIns = findStandIns(p.info.Imports, p.granted)
	}
	p.capViews(p.granted.Net)
	if len(p.offers.dropped) > 0 {
		p.logger.Warn("app view asks for origins the plugin is not granted: clients do not get them",
			"plugin", p.name, "origins", p.offers.dropped)
	}
	for _, t := range p.tools {
		if len(t.Name) > clientNameLimit {
			p.logger.Warn("tool name longer than several clients accept: rename it in the policy's tools section",
				"plugin", p.name, "tool", t.Name, "length", len(t.Name), "limit", clientNameLimit)
		}
	}
	return p, nil
}

// clientNameLimit is the longest tool name every client takes: the spec
// allows 128 characters, several clients refuse more than 64.
const clientNameLimit = 64

// Name is the file name without ".wasm"; it names the plugin in messages.
func (p *Plugin) Name() string { return p.name }

// Path is the file the plugin was loaded from.
func (p *Plugin) Path() string { return p.path }

// Admission are the plugin's own admission limits (Options.Admission).
func (p *Plugin) Admission() admission.PluginLimits { return p.admission }

// SHA256 is the hex SHA-256 of the module's bytes.
func (p *Plugin) SHA256() string { return p.sum }

// Tools returns the tool definitions in the order the module gave them. The
// schemas are shared: callers must not modify them.
func (p *Plugin) Tools() []abi.Tool { return slices.Clone(p.tools) }

// Info describes the module's kind, imports, exports and ABI or protocol
// version.
func (p *Plugin) Info() sandbox.Info { return p.mod.Info() }

// Generation is Options.Generation.
func (p *Plugin) Generation() uint64 { return p.generation }

// Relist reads the module's lists again, in a new instance of the same
// module (an Extism plugin said they changed), and returns a Plugin of
// them on the same module, with p's grants. The new Plugin takes the module
// over only once HandOver is called: until then p's Close closes it, so
// that a Plugin the caller drops (p was replaced meanwhile) leaks nothing.
func (p *Plugin) Relist(ctx context.Context) (*Plugin, error) {
	doc, err := p.mod.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("relist %s: %w", p.path, err)
	}
	n := &Plugin{
		name: p.name, path: p.path, sum: p.sum, mod: p.mod, info: p.info, maxInput: p.maxInput, logger: p.logger,
		requested: p.requested, granted: p.granted, standIns: p.standIns, admission: p.admission, tracer: p.tracer,
		generation: p.generation, closed: p.closed, surface: p.surface,
	}
	if err := n.define(doc); err != nil {
		return nil, fmt.Errorf("relist %s: %w", p.path, err)
	}
	n.requested = p.requested // what was granted stands
	n.capViews(n.granted.Net)
	return n, nil
}

// HandOver gives p's module to the Plugin Relist made of it: p's Close then
// leaves the module open, so that calls running in p finish and later ones
// go to the new Plugin. Call it before the new Plugin replaces p.
func (p *Plugin) HandOver() { p.successor.Store(true) }

// Close refuses new calls (they get ErrClosed), waits for the calls in
// flight to finish, and closes the module (sandbox.Module.Close: if ctx is
// done first, the calls still running are stopped, and Close returns an
// error wrapping ctx's cause). Close may be called more than once.
func (p *Plugin) Close(ctx context.Context) error {
	if p.successor.Load() {
		return nil // the module serves on, in the plugin Relist made
	}
	err := p.mod.Close(ctx)
	if p.closed != nil {
		p.closeOnce.Do(p.closed)
	}
	if err != nil {
		return fmt.Errorf("close plugin %s: %w", p.name, err)
	}
	return nil
}
