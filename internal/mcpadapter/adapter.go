// Package mcpadapter serves a wasmcp host over the Model Context Protocol.
//
// It is the only package that imports the MCP Go SDK. It mirrors the host's
// tool set onto an mcp.Server, keeps it in step with the host's change events
// (so clients receive notifications/tools/list_changed on hot reload), and
// turns tools/call requests into host calls. Everything the protocol does not
// dictate (validation, limits, result completion) happens in the host; this
// package only translates.
package mcpadapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/limits"
)

// Host is the part of *host.Host the adapter uses. It is an interface so that
// the adapter's tests can drive it without compiling guests.
type Host interface {
	Tools() []host.Tool
	Call(ctx context.Context, req host.CallRequest) (*host.Result, error)
	Subscribe(fn func(host.Change)) (cancel func())
}

// Options configure an Adapter.
type Options struct {
	// Version is the server version reported to clients in initialize.
	Version string
	// Logger receives the adapter's and the MCP SDK's own log lines. Guest log
	// lines reach it through the host. Nil discards them.
	Logger *slog.Logger
	// MaxInput is the host's cap on a call's arguments, in bytes. The stdio
	// transport's line limit is raised to fit such a request, so an oversized
	// argument document gets the host's readable tool error rather than a
	// dropped connection.
	MaxInput int
	// Limits is the admission policy of tool calls: rate limits per session
	// and per tool, and a concurrency cap per plugin. A refused call is a
	// tool error that says which limit refused it. The zero value admits
	// every call.
	Limits limits.Config
	// Audit, if set, receives one line per tools/call (see audit.go).
	Audit *slog.Logger
	// LogArgs adds each call's arguments to its audit line. They may hold
	// secrets or personal data, hence off by default.
	LogArgs bool
}

// An Adapter mirrors one Host onto one mcp.Server.
type Adapter struct {
	host     Host
	server   *mcp.Server
	logger   *slog.Logger
	maxInput int
	cancel   func()
	policy   *limits.Policy
	clock    limits.Clock
	audit    *slog.Logger // nil: no audit lines
	logArgs  bool

	mu sync.Mutex
	// tools maps each registered tool name to its definition as last given to
	// the server, so that a change that leaves a definition as it was does not
	// make clients reload their tool lists.
	tools map[string]registered
}

type registered struct {
	plugin string
	sha256 string
	def    []byte // JSON of the abi.Tool
}

// New creates an Adapter serving h's tools and keeps it in step with h until
// Close.
func New(h Host, opts Options) *Adapter {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	clock := opts.Limits.Clock
	if clock == nil {
		clock = limits.SystemClock{}
	}
	a := &Adapter{
		host:     h,
		logger:   logger,
		maxInput: opts.MaxInput,
		policy:   limits.New(opts.Limits),
		clock:    clock,
		audit:    opts.Audit,
		logArgs:  opts.LogArgs,
		tools:    map[string]registered{},
	}
	a.server = mcp.NewServer(&mcp.Implementation{Name: "wasmcp", Version: opts.Version}, &mcp.ServerOptions{
		Logger: slog.New(sdkHandler{logger.Handler()}),
		// Set explicitly: the SDK infers "tools" only when a tool exists at
		// connect time, and a server started on an empty directory must still
		// promise list_changed for the tools hot reload will bring.
		Capabilities: &mcp.ServerCapabilities{
			Tools:   &mcp.ToolCapabilities{ListChanged: true},
			Logging: &mcp.LoggingCapabilities{},
		},
	})
	a.server.AddReceivingMiddleware(growStackForCalls)
	// Subscribe before taking the snapshot so that no change falls between
	// the two; one that is seen twice is ignored by apply.
	a.cancel = h.Subscribe(a.onChange)
	a.apply(h.Tools(), nil)
	return a
}

// Close stops following the host's changes. It does not close the host.
func (a *Adapter) Close() { a.cancel() }

// Serve speaks MCP over r and w (newline-delimited JSON-RPC, the stdio
// transport) until the client closes r, or ctx is done. A client that hangs
// up is a normal end and returns nil.
func (a *Adapter) Serve(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	return a.serve(ctx, newStdioTransport(r, w, a.lineLimit(), a.logger))
}

func (a *Adapter) serve(ctx context.Context, t mcp.Transport) error {
	ss, err := a.server.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case <-ctx.Done():
		ss.Close()
		<-done
		return nil
	case err := <-done:
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("session: %w", err)
		}
		return nil
	}
}

// lineLimit is the longest JSON-RPC message accepted: the SDK's default, or
// more when the host accepts larger arguments.
func (a *Adapter) lineLimit() int {
	const envelope = 1 << 20 // room for the request around the arguments
	return max(mcp.DefaultMaxLineLength, a.maxInput+envelope)
}

func (a *Adapter) onChange(c host.Change) {
	added, removed := a.apply(append(slices.Clone(c.Added), c.Updated...), c.Removed)
	a.logger.Debug("tool set changed", "registered", added, "removed", removed)
}

// apply registers upserts and removes removed, skipping any tool whose
// definition the server already has, and reports how many tools it
// registered and removed. The server tells clients of any of it with one
// debounced notifications/tools/list_changed.
func (a *Adapter) apply(upserts []host.Tool, removed []string) (added, gone int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var names []string
	for _, name := range removed {
		if _, ok := a.tools[name]; ok {
			delete(a.tools, name)
			names = append(names, name)
		}
	}
	if len(names) > 0 {
		a.server.RemoveTools(names...)
	}
	for _, t := range upserts {
		def, err := json.Marshal(t.Tool)
		if err != nil {
			a.logger.Error("tool not served", "tool", t.Name, "plugin", t.Plugin, "error", err)
			continue
		}
		if old, ok := a.tools[t.Name]; ok && bytes.Equal(old.def, def) {
			// Clients would see nothing new; only the serving module
			// (named in forwarded log lines) may have changed.
			a.tools[t.Name] = registered{plugin: t.Plugin, sha256: t.SHA256, def: def}
			continue
		}
		if err := a.addTool(t.Tool); err != nil {
			a.logger.Error("tool not served", "tool", t.Name, "plugin", t.Plugin, "error", err)
			continue
		}
		a.tools[t.Name] = registered{plugin: t.Plugin, sha256: t.SHA256, def: def}
		added++
	}
	return added, len(names)
}

// addTool registers t with the server. The SDK panics on a definition it
// rejects; the host has validated every definition already, so such a panic
// is reported as an error instead of taking the server down.
func (a *Adapter) addTool(t abi.Tool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("MCP SDK refused the definition: %v", r)
		}
	}()
	a.server.AddTool(toMCPTool(t), a.handle)
	return nil
}

// handle serves tools/call for every tool: the call is admitted by the
// policy, the arguments go to the host as the client sent them, and the
// host's result comes back translated. Every call leaves an audit line.
func (a *Adapter) handle(ctx context.Context, req *mcp.CallToolRequest) (_ *mcp.CallToolResult, err error) {
	name := req.Params.Name
	a.mu.Lock()
	reg := a.tools[name]
	a.mu.Unlock()
	rec := callRecord{
		session: sessionID(req.Session),
		tool:    name,
		plugin:  reg.plugin,
		sha256:  reg.sha256,
		args:    req.Params.Arguments,
		start:   a.clock.Now(),
	}
	var res *host.Result
	defer func() { a.record(ctx, &rec, res, err) }()

	release, err := a.policy.Admit(ctx, rec.session, name, reg.plugin)
	if err != nil {
		var rateErr *limits.RateError
		var busyErr *limits.BusyError
		switch {
		case errors.As(err, &rateErr):
			rec.outcome = outcomeRateLimited
		case errors.As(err, &busyErr):
			rec.outcome = outcomeBusy
		default: // the client went away while the call waited for a turn
			rec.outcome = outcomeCanceled
			return nil, err
		}
		res = refusal(err.Error())
		return toCallToolResult(&res.Result), nil
	}
	defer release()

	// A client of the 2026-07-28 protocol answers the guest's sampling and
	// elicitation requests in requests of its own (rounds.go).
	var rs *rounds
	if usesInputRequests(req) {
		var roundsErr error
		if rs, roundsErr = newRounds(req); roundsErr != nil {
			rec.outcome = outcomeToolError
			res = refusal(fmt.Sprintf("tool %s: %v", name, roundsErr))
			return toCallToolResult(&res.Result), nil
		}
	}
	creq := host.CallRequest{
		Tool:      name,
		Arguments: req.Params.Arguments,
		Log:       a.clientLog(ctx, req.Session, name, reg.plugin, rs),
	}
	a.clientFeatures(ctx, req, &creq, rs) // progress, sampling, elicitation (client.go)
	res, err = a.host.Call(ctx, creq)
	if errors.Is(err, host.ErrUnknownTool) {
		// The tool went away between the SDK's lookup and the host call (a
		// reload): answer as the SDK does for a name it never knew.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	}
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", name, err)
	}
	if rs != nil && errors.Is(res.Failure, host.ErrInputRequired) {
		out, asked := rs.result()
		if asked {
			rec.outcome = outcomeInputRequired
		}
		return out, nil
	}
	return toCallToolResult(&res.Result), nil
}

// refusal is the tool error of a call that was not run.
func refusal(msg string) *host.Result {
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
func (a *Adapter) clientLog(ctx context.Context, ss *mcp.ServerSession, tool, plugin string, rs *rounds) func(abi.LogLevel, string) {
	if ss == nil {
		return nil
	}
	return func(level abi.LogLevel, msg string) {
		if rs != nil && rs.replaying() {
			return // sent in an earlier round
		}
		err := ss.Log(ctx, &mcp.LoggingMessageParams{
			Level:  mcp.LoggingLevel(level.String()),
			Logger: plugin,
			Data:   msg,
		})
		if err != nil {
			a.logger.Debug("guest log line not sent to client", "tool", tool, "error", err)
		}
	}
}
