// Package mcpadapter serves a wasmcp host over the Model Context Protocol.
//
// It is the only package that imports the MCP Go SDK. It registers the
// host's tools with go-sdk servers as the host reports them (so clients
// receive notifications/tools/list_changed on hot reload), answers
// tools/list from the host itself, and turns tools/call requests into host
// calls. Everything the protocol does not dictate (validation, limits,
// result completion) happens in the host; this package only translates.
package mcpadapter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/seal"
)

// Host is the part of *host.Host the adapter uses. It is an interface so that
// the adapter's tests can drive it without compiling guests.
type Host interface {
	Tools() []host.Tool
	// ToolsFor returns the tools principal sees, sorted by name.
	ToolsFor(principal *host.Principal) []host.Tool
	// Local is the principal of a client the transport did not identify.
	Local() *host.Principal
	// MissingScopes returns the scopes a call of tool by principal needs
	// and its token lacks.
	MissingScopes(principal *host.Principal, tool string) []string
	Call(ctx context.Context, req host.CallRequest) (*host.Result, error)
	// Subscribe calls fn with the tools served now, then with every change,
	// in order and before the load that made it goes on (host.Subscribe).
	Subscribe(fn func(host.Change)) (cancel func())
	// Loaded is closed once the first load of the plugin directory is over.
	Loaded() <-chan struct{}
}

// Options configure an Adapter.
type Options struct {
	// Version is the server version reported to clients in initialize.
	Version string
	// Logger receives the adapter's and the MCP SDK's own log lines. Guest log
	// lines reach it through the host. Nil discards them.
	Logger *slog.Logger
	// MaxInput is the host's cap on a call's arguments, in bytes. The stdio
	// line limit and the HTTP body limit are raised to fit such a request, so
	// an oversized argument document gets the host's readable tool error
	// rather than a dropped connection.
	MaxInput int
	// MaxInFlight bounds the requests of one stdio connection being served
	// at once; the connection stops reading until one is answered. It is
	// also the most messages a batch may hold, on either transport. 0 means
	// DefaultMaxInFlight.
	MaxInFlight int
	// CallTimeout is the host's deadline of one call. It bounds how long a
	// call of a tool not known yet waits for the host's first load, and how
	// long the calls in flight when a stdio client closes its input have to
	// finish. 0 means host.DefaultTimeout.
	CallTimeout time.Duration
	// Audit, if set, receives one line per tools/call (see audit.go).
	Audit *slog.Logger
	// LogArgs adds each call's arguments to its audit line. They may hold
	// secrets or personal data, hence off by default.
	LogArgs bool
	// MeterProvider, if set, receives the MCP conventions'
	// mcp.server.operation.duration of every tools/call (by tool, plugin
	// and, for a failure, error.type) and wasmcp.sessions.open. What the
	// engine knows (loads, memory, outbound requests) the host reports
	// itself (host.Config.WithMeterProvider).
	MeterProvider metric.MeterProvider
	// TracerProvider, if set, receives one span per tools/call, continuing
	// the client's W3C trace context (the request's _meta, else its HTTP
	// headers). Without one the client's trace id still reaches the audit
	// line.
	TracerProvider trace.TracerProvider
	// StateSealer seals the requestState of 2026-07-28 clients' rounds
	// (round.go). Replicas that continue each other's rounds need sealers
	// of the same keys. Nil means a random key of the adapter's own, good
	// for one process until it restarts.
	StateSealer *seal.Sealer
	// Discovery offers the tools of progressive discovery (discovery.go):
	// in place of the plugins' tools in tools/list, beside them, or not.
	Discovery Discovery
}

// DefaultMaxInFlight is the default of Options.MaxInFlight.
const DefaultMaxInFlight = 64

// An Adapter serves one Host through go-sdk servers: one for stdio and the
// sessions of 2025-era HTTP clients, and, made by HTTPHandler, one for
// stateless HTTP requests of each protocol era (they advertise different
// capabilities).
type Adapter struct {
	host   Host
	logger *slog.Logger
	opts   Options
	server *mcp.Server
	cancel func()
	meters *meters
	tracer trace.Tracer

	mu      sync.Mutex
	servers []served // every server the tools are registered with; guarded by mu
	// registered are the tools registered with the servers, by name,
	// which go-sdk finds a tools/call's tool among; guarded by mu.
	registered map[string]host.Tool
	// offered are the prompts, resources and templates registered with
	// them (offers.go); guarded by mu.
	offered offered
}

// served is a server and the tools/call handler its tools are registered
// with.
type served struct {
	server *mcp.Server
	handle mcp.ToolHandler
}

// New creates an Adapter serving h's tools and keeps it in step with h until
// Close.
func New(h Host, opts Options) *Adapter {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = host.DefaultTimeout
	}
	if opts.StateSealer == nil {
		opts.StateSealer, _ = seal.New(DefaultStateMaxAge, seal.NewKey()) // valid arguments
	}
	a := &Adapter{host: h, logger: opts.Logger, opts: opts, tracer: newTracer(opts.TracerProvider)}
	a.server = a.newServer(true, false, false)
	var err error
	if a.meters, err = newMeters(opts.MeterProvider, a.sessions); err != nil {
		// Only a provider that refuses the instruments' names fails here.
		a.logger.Error("metrics of the MCP adapter not recorded", "error", err)
		a.meters, _ = newMeters(nil, a.sessions)
	}
	// Subscribe delivers the tools served now, then every change.
	a.cancel = h.Subscribe(a.onChange)
	return a
}

// newServer makes a go-sdk server with the adapter's middleware and keeps
// its tools in step with the host's from then on, registering the tools
// served now when withTools is set (New has Subscribe deliver them).
// listChanged says whether its clients can be told of changes; stateless
// whether it serves 2025-era clients without sessions.
func (a *Adapter) newServer(listChanged, stateless, withTools bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "wasmcp", Version: a.opts.Version}, &mcp.ServerOptions{
		Logger: slog.New(sdkHandler{a.logger.Handler()}),
		// Set explicitly: the SDK infers "tools" only when a tool exists at
		// connect time, and a server started on an empty directory must still
		// promise list_changed for the tools hot reload will bring.
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{ListChanged: listChanged},
			Prompts:     &mcp.PromptCapabilities{ListChanged: listChanged},
			Resources:   &mcp.ResourceCapabilities{ListChanged: listChanged},
			Completions: &mcp.CompletionCapabilities{},
			Logging:     &mcp.LoggingCapabilities{},
			// MCP Apps: tools may name ui:// views (offers.go).
			Extensions: map[string]any{abi.AppExtension: map[string]any{"mimeTypes": []string{abi.AppMimeType}}},
		},
	})
	s.AddReceivingMiddleware(withErrorCodes, a.listTools, a.awaitLoad, a.serveOffers, checkLogLevel)
	handle := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return a.handle(ctx, req, stateless)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if withTools {
		// Under a.mu, which onChange takes: a change made while these are
		// read is applied after them, again, which changes nothing.
		for _, t := range a.host.Tools() {
			a.register(s, t, handle)
		}
		o := &a.offered
		a.registerOffers(s, slices.Collect(maps.Values(o.prompts)), slices.Collect(maps.Values(o.resources)),
			slices.Collect(maps.Values(o.templates)))
	}
	a.registerDiscovery(s, stateless)
	a.servers = append(a.servers, served{s, handle})
	return s
}

// Broadcast sends a log line to every session of the adapter's servers
// whose client set a log level at or below level (go-sdk sends none to a
// client that set none): what happens to the server rather than to one
// call, such as a build that failed under wasmcp dev.
func (a *Adapter) Broadcast(ctx context.Context, level abi.LogLevel, logger, msg string) {
	a.mu.Lock()
	servers := slices.Clone(a.servers)
	a.mu.Unlock()
	p := &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(level.String()), Logger: logger, Data: msg}
	for _, sv := range servers {
		for ss := range sv.server.Sessions() {
			if err := ss.Log(ctx, p); err != nil {
				a.logger.Debug("log line not sent to client", "session", ss.ID(), "error", err)
			}
		}
	}
}

// Close stops following the host's changes. It does not close the host.
func (a *Adapter) Close() {
	a.cancel()
	_ = a.meters.observing.Unregister()
}

// sessions counts the sessions open on the adapter's stateful server.
func (a *Adapter) sessions() int {
	n := 0
	for range a.server.Sessions() {
		n++
	}
	return n
}

// onChange registers added and updated tools with every server and removes
// removed ones. go-sdk tells clients of any of it with one debounced
// notifications/tools/list_changed. The host reports only effective
// changes, so a reload that leaves every definition as it was tells clients
// nothing.
func (a *Adapter) onChange(c host.Change) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.registered == nil {
		a.registered = map[string]host.Tool{}
	}
	for _, name := range c.Removed {
		delete(a.registered, name)
	}
	for _, ts := range [][]host.Tool{c.Added, c.Updated} {
		for _, t := range ts {
			a.registered[t.Name] = t
		}
	}
	for _, sv := range a.servers {
		if len(c.Removed) > 0 {
			sv.server.RemoveTools(c.Removed...)
		}
		for _, t := range c.Added {
			a.register(sv.server, t, sv.handle)
		}
		for _, t := range c.Updated {
			a.register(sv.server, t, sv.handle)
		}
	}
	a.applyOffers(c)
	if c.Views {
		a.viewsChanged()
	}
}

// viewsChanged tells clients that their tool lists may have changed though
// no tool did: the policy's views did. go-sdk sends list_changed only when
// a server's tools change, and to every session, so one tool is registered
// again as it was; a session whose view stayed as it was lists the same
// tools again. a.mu is held.
func (a *Adapter) viewsChanged() {
	if len(a.registered) == 0 {
		return // no tool: every view is empty, before and after
	}
	t := a.registered[slices.Min(slices.Collect(maps.Keys(a.registered)))]
	for _, sv := range a.servers {
		a.register(sv.server, t, sv.handle)
	}
}

// register adds t to s. The SDK panics on a definition it rejects; the host
// has validated every definition already, so such a panic is logged
// instead of taking the server down.
func (a *Adapter) register(s *mcp.Server, t host.Tool, handle mcp.ToolHandler) {
	defer func() {
		if r := recover(); r != nil {
			a.logger.Error("tool not served: the MCP SDK refused its definition", "tool", t.Name, "plugin", t.Plugin, "error", r)
		}
	}()
	s.AddTool(toMCPTool(t.Tool), handle)
}

// handle serves tools/call for every tool: the arguments go to the host as
// the client sent them, with the session as the caller the host's admission
// limits, and the host's result comes back translated. Every call leaves an audit line. stateless says
// that the request came without a session from a 2025-era client.
func (a *Adapter) handle(ctx context.Context, req *mcp.CallToolRequest, stateless bool) (_ *mcp.CallToolResult, err error) {
	name := req.Params.Name
	rec := callRecord{
		session: sessionID(req.Session),
		tool:    name,
		args:    req.Params.Arguments,
		start:   time.Now(),
	}
	principal, fromToken := a.principal(req)
	rec.principal = principal
	ctx, rec.span = a.startSpan(ctx, req)
	var res *host.Result
	defer func() { a.record(ctx, &rec, res, err) }()

	// A client of the 2026-07-28 protocol answers the guest's sampling and
	// elicitation requests in requests of its own (round.go).
	var rs *round
	if usesInputRequests(req) {
		var roundsErr error
		if rs, roundsErr = newRound(req, principal, a.opts.StateSealer); roundsErr != nil {
			rec.outcome = outcomeToolError
			res = refusedResult(fmt.Sprintf("tool %s: %v", name, roundsErr))
			return toCallToolResult(&res.Result), nil
		}
	}
	creq := host.CallRequest{Tool: name, Arguments: req.Params.Arguments, Caller: rec.session, Principal: principal}
	if fromToken {
		creq.Caller = limitKey(principal.Issuer, principal.Subject, principal.ClientID) // a principal's sessions share its limits
	}
	if !stateless {
		// Log lines: go-sdk sends none until the client sets a level, which a
		// stateless client cannot, so in both modes a client that never set
		// one gets none.
		creq.Log = a.clientLog(ctx, req.Session, &rec, rs)
	}
	a.clientFeatures(ctx, req, &creq, rs, stateless) // progress, sampling, elicitation (client.go)
	res, err = a.host.Call(ctx, creq)
	if errors.Is(err, host.ErrUnknownTool) {
		// The tool went away between the SDK's lookup and the host call (a
		// reload), or the caller does not see it: answer as the SDK does
		// for a name it never knew.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	}
	if scope, ok := errors.AsType[*host.ScopeError](err); ok {
		// Over HTTP the request never gets here (a 403 asks for the
		// scope); a client the transport did not identify cannot step up.
		rec.outcome = outcomeForbidden
		res = refusedResult(fmt.Sprintf("%v: the client's credentials do not carry it", scope))
		return toCallToolResult(&res.Result), nil
	}
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", name, err)
	}
	rec.module, rec.views = res.Module, res.Views
	if rs != nil && errors.Is(res.Failure, host.ErrInputRequired) {
		out, asked := rs.result()
		if asked {
			rec.outcome = outcomeInputRequired
		}
		return out, nil
	}
	if n, over := overWire(&res.Result); over {
		res = &host.Result{Module: res.Module, Result: abi.Result{IsError: true, Content: []abi.Content{abi.Text(fmt.Sprintf(
			"tool %s returned a result of %d bytes as sent to the client, over the %d bytes a client reads in one message "+
				"(text is sent with <, > and & escaped as 6 bytes each): return less", name, n, maxWire))}}}
	}
	return toCallToolResult(&res.Result), nil
}

// refusedResult is the tool error of a call that was not run.
func refusedResult(msg string) *host.Result {
	return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text(msg)}, IsError: true}}
}

// sessionID is the MCP session of a request: the Mcp-Session-Id of a
// stateful HTTP session, or "" for stdio (one client) and for requests
// without a session (stateless HTTP, the 2026-07-28 protocol).
func sessionID(ss *mcp.ServerSession) string {
	if ss == nil {
		return ""
	}
	return ss.ID()
}

// clientLog forwards a call's guest log lines to the client as
// notifications/message. The session drops lines below the level the client
// chose with logging/setLevel, and all of them until it chose one. The host
// logs every line to the server's logger as well. A guest run again for
// another round of input requests (rs) does not send again the lines its
// earlier rounds sent.
func (a *Adapter) clientLog(ctx context.Context, ss *mcp.ServerSession, rec *callRecord, rs *round) func(string, abi.LogLevel, string) {
	if ss == nil {
		return nil
	}
	return func(plugin string, level abi.LogLevel, msg string) {
		if rs != nil && rs.replaying() {
			return // sent in an earlier round
		}
		err := ss.Log(ctx, &mcp.LoggingMessageParams{
			Level:  mcp.LoggingLevel(level.String()),
			Logger: plugin,
			Data:   msg,
		})
		if err != nil {
			a.logger.Debug("guest log line not sent to client", "tool", rec.tool, "error", err)
		}
	}
}
