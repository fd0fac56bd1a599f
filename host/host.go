package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/admission"
	"github.com/wasmcp/wasmcp/host/internal/plugin"
	"github.com/wasmcp/wasmcp/host/internal/registry"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/internal/telemetry"
	"github.com/wasmcp/wasmcp/host/policy"
)

// Tool is a served tool: its definition and the module serving it.
type Tool struct {
	abi.Tool
	// Plugin is the name of the serving module: its file name without
	// ".wasm".
	Plugin string
	// SHA256 is the hex SHA-256 of the serving module's file content.
	SHA256 string
}

// CallRequest asks for one tool call.
type CallRequest struct {
	// Tool is the tool name.
	Tool string
	// Arguments is the arguments object; nil or empty means {}.
	Arguments json.RawMessage
	// Caller identifies who makes the call, for the caller's rate of
	// Admission: an MCP session, or a principal's key. Calls with the same
	// Caller share one rate; "" is a caller too.
	Caller string
	// Principal is who makes the call, for the policy's views: a tool it
	// does not see is unknown to it, and one whose view requires a scope it
	// lacks is refused with a *ScopeError. Nil is a principal no view
	// matches (it sees every tool when the policy has no views).
	Principal *Principal
	// Log, if set, receives the guest's log lines during this call, with
	// the name of the plugin whose guest logged them (they also go to the
	// Config's logger).
	Log func(plugin string, level abi.LogLevel, msg string)
	// Progress, if set, receives the guest's progress reports: finite and
	// strictly increasing; total is negative when unknown. Unset, the
	// guest's reports are dropped.
	Progress func(progress, total float64, msg string)
	// Sample, if set, sends sampling/createMessage to the client and returns
	// its result. Unset, or failing with an error wrapping ErrNotSupported,
	// the guest is told sampling is unsupported.
	Sample RequestFunc
	// Elicit, if set, sends elicitation/create to the client, like Sample.
	Elicit RequestFunc
	// Roots, if set, sends roots/list to the client, like Sample.
	Roots RequestFunc
	// Notify, if set, sends the client a notification of the call's
	// session (notifications/elicitation/complete).
	Notify func(method string, params json.RawMessage)
}

// RequestFunc sends a guest's request (its params as JSON) to the client
// and returns the client's result as JSON.
type RequestFunc = func(ctx context.Context, params json.RawMessage) (json.RawMessage, error)

// hooks returns the sandbox's view of the request's client features for a
// call of plugin, nil when it has none.
func (req CallRequest) hooks(plugin string) *sandbox.CallHooks {
	if req.Log == nil && req.Progress == nil && req.Sample == nil && req.Elicit == nil && req.Roots == nil && req.Notify == nil {
		return nil
	}
	h := &sandbox.CallHooks{Progress: req.Progress, Sample: req.Sample, Elicit: req.Elicit, Roots: req.Roots, Notify: req.Notify}
	if req.Log != nil {
		h.Log = func(level abi.LogLevel, msg string) { req.Log(plugin, level, msg) }
	}
	return h
}

// Module names one version of a loaded module: what an audit line records
// about the code that ran a call.
type Module struct {
	// Plugin is the module's name: its file name without ".wasm".
	Plugin string
	// File is the path it was loaded from.
	File string
	// SHA256 is the hex SHA-256 of the bytes that were compiled.
	SHA256 string
}

// Change is a difference in the tool set, delivered to Subscribe callbacks.
// It is never empty. Added and Updated are sorted by name, Removed too.
type Change struct {
	// Added are tools that were not served before.
	Added []Tool
	// Updated are tools whose definition changed.
	Updated []Tool
	// Removed are the names of tools no longer served.
	Removed []string
	// Prompts, Resources and Templates are the changes of what plugins
	// offer besides tools; Removed names a resource by its URI, a template
	// by its URI template.
	Prompts   Delta[Prompt]
	Resources Delta[Resource]
	Templates Delta[ResourceTemplate]
	// Views says that the policy's views changed (Reconfigure): a
	// principal may now see other tools, though no tool changed.
	Views bool
}

// Delta is the change of one list of a Change.
type Delta[T any] struct {
	Added, Updated []T
	Removed        []string
}

// Empty reports whether d changes nothing.
func (d Delta[T]) Empty() bool { return len(d.Added)+len(d.Updated)+len(d.Removed) == 0 }

// Refusal is a tool a module defines but is not served from it because
// another module owns the name (see the package documentation).
type Refusal struct {
	// Tool is the tool name.
	Tool string `json:"tool"`
	// File is the module whose definition is refused.
	File string `json:"file"`
	// Owner is the module serving the tool.
	Owner string `json:"owner"`
}

// ErrUnknownTool is returned by Call, wrapped with the name, for a tool that
// is not served. The MCP adapter maps it to JSON-RPC error -32602.
var ErrUnknownTool = plugin.ErrUnknownTool

// ErrNotSupported is wrapped by the error of a CallRequest's Sample or
// Elicit function when the client does not support the request; the guest
// is told the feature is unsupported (abi.StatusUnsupported).
var ErrNotSupported = sandbox.ErrNotSupported

// ErrClosed is returned by the methods of a Host after Close.
var ErrClosed = errors.New("host closed")

// Host serves the tools of a set of modules. Its methods are safe for
// concurrent use.
type Host struct {
	cfg   Config
	dir   string // absolute plugin directory; empty if none
	log   *slog.Logger
	opts  plugin.Options
	cache wazero.CompilationCache
	// runtime is shared by every module: its host modules are set up once.
	runtime *sandbox.Runtime
	reg     *registry.Registry[*plugin.Plugin]
	open    atomic.Int64 // modules loaded and not yet closed
	reclaim *reclaimer
	inst    *telemetry.Instruments
	// admission admits each call once its plugin is known.
	admission *admission.Controller
	// policy is the policy in force, for the views of calls and lists
	// (cfg.policy is the loaders', replaced under loading); sights keeps
	// the tool list of each view.
	policy atomic.Pointer[policy.Policy]
	sights sightLists
	// viewed are the subscribers told when Reconfigure changes the views.
	viewed subscribers
	// relists reads again the lists of plugins that say they changed.
	relists relister
	// observing stops the callback of the observable instruments.
	observing metric.Registration

	// loading serialises the loaders (LoadDir, LoadFile, Watch batches,
	// Reconfigure) so that an older read of a file never replaces a newer
	// one. It also guards cfg.policy and cfg.trust, which Reconfigure
	// replaces, and generation.
	loading sync.Mutex
	// generation counts Reconfigure calls: a module loaded under an older
	// one is loaded again even when its file has not changed.
	generation uint64
	// failed are the files that failed to load, by path, with what they
	// failed with (load.go). failMu guards it: loads run in parallel.
	failMu sync.Mutex
	failed map[string]failure

	// loaded is closed once the first load of the directory is over.
	loaded     chan struct{}
	loadedOnce sync.Once

	// stopCtx is cancelled by Close to stop every Watch.
	stopCtx  context.Context
	stop     context.CancelFunc
	mu       sync.Mutex
	closed   bool           // guarded by mu
	watchers sync.WaitGroup // running Watch calls; Add under mu
}

// New validates cfg and returns a Host with no modules. It opens the
// compilation cache in the cache directory, creating the directory (0700);
// if that fails it logs a warning and works without a cache on disk.
func New(ctx context.Context, cfg Config) (*Host, error) {
	pages, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	h := &Host{cfg: cfg, log: cfg.log(), failed: map[string]failure{}, loaded: make(chan struct{}), reclaim: newReclaimer(cfg.memoryReturn),
		admission: admission.New(cfg.admission.config())}
	if cfg.dir != "" {
		if h.dir, err = filepath.Abs(cfg.dir); err != nil {
			return nil, fmt.Errorf("config: plugin directory %s: %w", cfg.dir, err)
		}
	}
	if h.inst, err = telemetry.New(cfg.meters, cfg.tracer); err != nil {
		return nil, fmt.Errorf("config: meter or tracer provider: %w", err)
	}
	h.stopCtx, h.stop = context.WithCancel(context.Background())
	var claims registry.ClaimStore
	h.cache, claims = openCache(cfg.cacheDir, h.dir, h.log)
	rc := sandbox.RuntimeConfig{Cache: h.cache, LongCalls: sandbox.LongCalls(cfg.longCalls)}
	if h.runtime, err = sandbox.NewRuntime(ctx, rc); err != nil {
		_ = h.cache.Close(ctx)
		return nil, fmt.Errorf("new runtime: %w", err)
	}
	h.opts = plugin.Options{
		Runtime: h.runtime,
		Sandbox: sandbox.Options{
			Limits:      sandbox.Limits{MemoryPages: pages, Timeout: cfg.timeout, ClientTimeout: cfg.clientTimeout, MaxOutput: uint32(cfg.maxOutput)},
			Logger:      h.log,
			Resolver:    cfg.resolver,
			Instruments: h.inst,
		},
		MaxInput: cfg.maxInput,
	}
	h.reg = registry.New[*plugin.Plugin](registry.Options{Logger: h.log, Claims: claims})
	h.relists.h = h
	h.policy.Store(cfg.policy)
	if h.observing, err = h.observe(); err != nil {
		_ = h.runtime.Close(ctx)
		_ = h.cache.Close(ctx)
		return nil, fmt.Errorf("config: meter provider: %w", err)
	}
	return h, nil
}

// observe registers the host's observable instruments: the modules open.
func (h *Host) observe() (metric.Registration, error) {
	open, err := h.inst.Meter.Int64ObservableUpDownCounter("wasmcp.modules.open", metric.WithUnit("{module}"),
		metric.WithDescription("Modules loaded and not yet closed, old versions still finishing calls included."))
	if err != nil {
		return nil, err
	}
	return h.inst.Meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(open, h.open.Load())
		return nil
	}, open)
}

// recordReload records the duration of one load of a set of modules.
func (h *Host) recordReload(ctx context.Context, trigger string, start time.Time) {
	h.inst.ReloadDuration.Record(ctx, time.Since(start).Seconds(),
		metric.WithAttributes(telemetry.TriggerKey.String(trigger)))
}

// recordLoad counts one attempt to load the module of plugin name.
func (h *Host) recordLoad(ctx context.Context, name, result string) {
	h.inst.ModuleLoads.Add(ctx, 1, metric.WithAttributeSet(attribute.NewSet(
		telemetry.PluginKey.String(name), telemetry.ResultKey.String(result))))
}

// openCache returns the compilation cache and, when there is a plugin
// directory (absolute) and a cache directory, the claims file of that
// directory. A cache directory that cannot be used leaves an in-memory
// compilation cache, which still shares compiled code between modules and
// between versions of one module.
func openCache(cacheDir, dir string, log *slog.Logger) (wazero.CompilationCache, registry.ClaimStore) {
	if cacheDir == "" {
		return wazero.NewCompilationCache(), nil
	}
	// wazero creates the directory (0700) if needed, and its own
	// version-specific subdirectory in it.
	cache, err := wazero.NewCompilationCacheWithDir(cacheDir)
	if err != nil {
		log.Warn("cache directory unusable; compiling without a disk cache, claims in memory only", "dir", cacheDir, "err", err)
		return wazero.NewCompilationCache(), nil
	}
	if dir == "" {
		return cache, nil
	}
	return cache, registry.NewFileStore(claimsPath(cacheDir, dir), dir)
}

// claimsPath names the claims file of the plugin directory absDir.
func claimsPath(cacheDir, absDir string) string {
	sum := sha256.Sum256([]byte(absDir))
	return filepath.Join(cacheDir, "claims", hex.EncodeToString(sum[:])[:16]+".json")
}

// Tools returns the served tools sorted by name.
func (h *Host) Tools() []Tool {
	return toTools(h.reg.Snapshot().Entries())
}

// Refused returns the tools refused because another module owns their
// name, sorted by tool and file.
func (h *Host) Refused() []Refusal {
	return refusals(h.reg.Snapshot())
}

func refusals(s *registry.Snapshot[*plugin.Plugin]) []Refusal {
	var out []Refusal
	for _, r := range s.Refused() {
		p, _ := s.Plugin(r.Plugin)
		o, _ := s.Plugin(r.Owner)
		out = append(out, Refusal{Tool: r.Tool, File: p.Path(), Owner: o.Path()})
	}
	return out
}

func toTools(es []registry.Entry[*plugin.Plugin]) []Tool {
	if len(es) == 0 {
		return nil
	}
	out := make([]Tool, len(es))
	for i, e := range es {
		out[i] = Tool{Tool: e.Tool, Plugin: e.Plugin.Name(), SHA256: e.Plugin.SHA256()}
	}
	return out
}

// Result is what Call gives: the result a client gets, the module version
// that ran it, and, when the host failed the call rather than the tool, why.
type Result struct {
	abi.Result
	// Failure is nil when the tool ran and returned its result, with
	// IsError or without. Otherwise the result is the host's explanation,
	// with IsError, and Failure is its cause, matched with errors.Is against
	// ErrInvalidArguments, ErrOutputSchema, ErrTimeout, ErrMemory, ... Only
	// the host sets it, so that a guest cannot pass its own error for a
	// timeout, say, by writing the host's wording.
	Failure error `json:"-"`
	// Module is the module version that served the call.
	Module Module `json:"-"`
	// Views names the policy's views the caller matched, comma-separated
	// in the file's order (policy.Sight.Views); "" without views. The
	// policy bounds them, so they may label a metric.
	Views string `json:"-"`
}

// Causes of a Result's Failure, for errors.Is. A failure of another kind (a
// trap, a malformed result, an output over the limit, ...) wraps none of
// these.
var (
	ErrInvalidArguments = plugin.ErrInvalidArguments
	ErrOutputSchema     = plugin.ErrOutputSchema
	ErrTimeout          = sandbox.ErrTimeout
	ErrMemory           = sandbox.ErrMemory
	ErrCanceled         = sandbox.ErrCanceled
	// ErrInputRequired: a CallRequest's Sample or Elicit returned an error
	// wrapping it, and the guest was stopped where it asked (see
	// sandbox.ErrInputRequired).
	ErrInputRequired = sandbox.ErrInputRequired
)

// Call runs a tool. A tool error (invalid arguments, a guest failure, a
// timeout, a refusal by Admission, ...) is a Result with IsError set and a
// nil error; the error is non-nil only for an unknown tool, or one the
// principal does not see (ErrUnknownTool), a tool it sees without a scope
// it needs (a *ScopeError), or a closed Host (ErrClosed).
func (h *Host) Call(ctx context.Context, req CallRequest) (*Result, error) {
	sight := h.policy.Load().Sight(req.Principal)
	var res *Result
	err := h.reg.Route(req.Tool, func(p *plugin.Plugin) error {
		if err := checkSight(sight, req.Principal, p.Name(), req.Tool); err != nil {
			return err
		}
		mod := Module{Plugin: p.Name(), File: p.Path(), SHA256: p.SHA256()}
		release, refused := h.admit(ctx, req, p, mod)
		if refused != nil {
			res = refused
			return nil
		}
		defer release()
		r, err := p.Call(ctx, req.Tool, req.Arguments, req.hooks(mod.Plugin))
		if err != nil {
			return err
		}
		res = &Result{Result: r.Result, Failure: r.Failure, Module: mod}
		h.reclaim.add(len(req.Arguments) + resultSize(&res.Result))
		return nil
	})
	if errors.Is(err, registry.ErrClosed) {
		return nil, fmt.Errorf("call %s: %w", req.Tool, ErrClosed)
	}
	if errors.Is(err, ErrUnknownTool) {
		return nil, fmt.Errorf("call %s: %w", req.Tool, ErrUnknownTool)
	}
	if errors.Is(err, ErrInsufficientScope) {
		return nil, fmt.Errorf("call %s: %w", req.Tool, err)
	}
	if res != nil {
		res.Views = sight.Views()
	}
	return res, err
}

// Subscribe calls fn with the tools served now (as one Change of added
// tools, unless there are none) and then after each effective change of the
// tool set, in order. fn runs in the goroutine that made the change, before
// the load that made it goes on, so that once a load is over its
// subscribers have seen it: fn must be quick and must not call the Host's
// loading methods or Close. cancel stops further calls.
func (h *Host) Subscribe(fn func(Change)) (cancel func()) {
	stopTools := h.reg.Subscribe(func(c registry.Change[*plugin.Plugin]) { fn(toChange(c)) })
	stopViews := h.viewed.add(fn)
	return func() { stopTools(); stopViews() }
}

// subscribers are functions to tell of a Change.
type subscribers struct {
	mu   sync.Mutex
	next int
	fns  map[int]func(Change)
}

func (s *subscribers) add(fn func(Change)) (cancel func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fns == nil {
		s.fns = map[int]func(Change){}
	}
	id := s.next
	s.next++
	s.fns[id] = fn
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.fns, id)
	}
}

func (s *subscribers) tell(c Change) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, fn := range s.fns {
		fn(c)
	}
}

// Close stops every Watch, waits for them to return, closes every module
// (waiting for running calls, bounded by ctx) and the compilation cache.
// Later calls fail with ErrClosed. Close is idempotent.
func (h *Host) Close(ctx context.Context) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	h.mu.Unlock()
	h.markLoaded()
	h.stop()
	h.reclaim.stop()
	_ = h.observing.Unregister()
	h.watchers.Wait()
	h.relists.close()
	// A load in progress finishes before the registry closes; its Update
	// then closes what it loaded.
	h.loading.Lock()
	defer h.loading.Unlock()
	err := h.reg.Close(ctx)
	if cerr := h.runtime.Close(ctx); cerr != nil {
		err = errors.Join(err, fmt.Errorf("close runtime: %w", cerr))
	}
	if cerr := h.cache.Close(ctx); cerr != nil {
		err = errors.Join(err, fmt.Errorf("close compilation cache: %w", cerr))
	}
	return err
}

func (h *Host) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}
