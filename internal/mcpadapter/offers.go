package mcpadapter

// Resources, resource templates, prompts and completion: the host's answers
// to the six methods, with the principal's views, pages bounded by size as
// for tools, audit lines and metrics; and the definitions registered with
// go-sdk, so that it sends each list's list_changed.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/mcpadapter/internal/wire"
)

// Offers is the part of *host.Host that serves what plugins offer besides
// tools.
type Offers interface {
	PromptsFor(principal *host.Principal) []host.Prompt
	ResourcesFor(principal *host.Principal) []host.Resource
	ResourceTemplatesFor(principal *host.Principal) []host.ResourceTemplate
	ReadResource(ctx context.Context, uri string, req host.Request) (*abi.ReadResult, host.Module, error)
	GetPrompt(ctx context.Context, name string, args json.RawMessage, req host.Request) (*abi.PromptResult, host.Module, error)
	Complete(ctx context.Context, c abi.CompleteRequest, req host.Request) (*abi.CompleteResult, error)
}

// offered are the definitions registered with go-sdk's servers, by key:
// each server gets them too (newServer). Guarded by Adapter.mu.
type offered struct {
	prompts   map[string]host.Prompt
	resources map[string]host.Resource
	templates map[string]host.ResourceTemplate
}

// applyOffers registers the prompts, resources and templates a change adds
// or updates with every server and removes those it removes; a.mu is held.
func (a *Adapter) applyOffers(c host.Change) {
	o := &a.offered
	if o.prompts == nil {
		o.prompts, o.resources, o.templates = map[string]host.Prompt{}, map[string]host.Resource{}, map[string]host.ResourceTemplate{}
	}
	for _, name := range c.Prompts.Removed {
		delete(o.prompts, name)
	}
	for _, uri := range c.Resources.Removed {
		delete(o.resources, uri)
	}
	for _, t := range c.Templates.Removed {
		delete(o.templates, t)
	}
	for _, sv := range a.servers {
		if n := c.Prompts.Removed; len(n) > 0 {
			sv.server.RemovePrompts(n...)
		}
		if n := c.Resources.Removed; len(n) > 0 {
			sv.server.RemoveResources(n...)
		}
		if n := c.Templates.Removed; len(n) > 0 {
			sv.server.RemoveResourceTemplates(n...)
		}
	}
	for _, p := range slices.Concat(c.Prompts.Added, c.Prompts.Updated) {
		o.prompts[p.Name] = p
	}
	for _, r := range slices.Concat(c.Resources.Added, c.Resources.Updated) {
		o.resources[r.URI] = r
	}
	for _, t := range slices.Concat(c.Templates.Added, c.Templates.Updated) {
		o.templates[t.URITemplate] = t
	}
	for _, sv := range a.servers {
		a.registerOffers(sv.server, c.Prompts.Added, c.Prompts.Updated, c.Resources.Added, c.Resources.Updated,
			c.Templates.Added, c.Templates.Updated)
	}
}

// registerOffers adds the definitions given to s. Its handlers are never
// reached (serveOffers answers every method first); go-sdk wants one.
func (a *Adapter) registerOffers(s *mcp.Server, lists ...any) {
	unreachable := errors.New("served by the adapter's middleware")
	for _, list := range lists {
		switch l := list.(type) {
		case []host.Prompt:
			for _, p := range l {
				var def mcp.Prompt
				if a.convert(p.Prompt, &def, "prompt", p.Name) {
					s.AddPrompt(&def, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, unreachable })
				}
			}
		case []host.Resource:
			for _, r := range l {
				var def mcp.Resource
				if a.convert(r.Resource, &def, "resource", r.URI) {
					a.guard("resource", r.URI, func() {
						s.AddResource(&def, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
							return nil, unreachable
						})
					})
				}
			}
		case []host.ResourceTemplate:
			for _, t := range l {
				var def mcp.ResourceTemplate
				if a.convert(t.ResourceTemplate, &def, "resource template", t.URITemplate) {
					a.guard("resource template", t.URITemplate, func() {
						s.AddResourceTemplate(&def, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
							return nil, unreachable
						})
					})
				}
			}
		}
	}
}

// convert turns a definition into go-sdk's type, through their common JSON.
func (a *Adapter) convert(from, to any, what, name string) bool {
	b, err := json.Marshal(from)
	if err == nil {
		err = json.Unmarshal(b, to)
	}
	if err != nil {
		a.logger.Error(what+" not registered with the MCP SDK", "name", name, "error", err)
	}
	return err == nil
}

// guard runs add, logging the panic go-sdk raises for a definition it
// refuses rather than taking the server down.
func (a *Adapter) guard(what, name string, add func()) {
	defer func() {
		if r := recover(); r != nil {
			a.logger.Error(what+" not served: the MCP SDK refused its definition", "name", name, "error", r)
		}
	}()
	add()
}

// serveOffers answers the six methods of resources, prompts and
// completion from the host.
func (a *Adapter) serveOffers(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		principal, _ := a.principal(req)
		switch method {
		case "prompts/list":
			var cursor string
			if p, _ := req.GetParams().(*mcp.ListPromptsParams); p != nil {
				cursor = p.Cursor
			}
			items, next, err := pageOf(a.offers().PromptsFor(principal), cursor, func(p host.Prompt) string { return p.Name },
				func(p host.Prompt) any { return p.Prompt })
			return rawList(&mcp.ListPromptsResult{NextCursor: next, Cacheable: private}, "prompts", items, err)
		case "resources/list":
			var cursor string
			if p, _ := req.GetParams().(*mcp.ListResourcesParams); p != nil {
				cursor = p.Cursor
			}
			items, next, err := pageOf(a.offers().ResourcesFor(principal), cursor, func(r host.Resource) string { return r.URI },
				func(r host.Resource) any { return r.Resource })
			return rawList(&mcp.ListResourcesResult{NextCursor: next, Cacheable: private}, "resources", items, err)
		case "resources/templates/list":
			var cursor string
			if p, _ := req.GetParams().(*mcp.ListResourceTemplatesParams); p != nil {
				cursor = p.Cursor
			}
			items, next, err := pageOf(a.offers().ResourceTemplatesFor(principal), cursor,
				func(t host.ResourceTemplate) string { return t.URITemplate }, func(t host.ResourceTemplate) any { return t.ResourceTemplate })
			return rawList(&mcp.ListResourceTemplatesResult{NextCursor: next, Cacheable: private}, "resourceTemplates", items, err)
		case "resources/read":
			p, _ := req.GetParams().(*mcp.ReadResourceParams)
			if p == nil || p.URI == "" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "resources/read needs params with a uri"}
			}
			return a.read(ctx, req, principal, p.URI)
		case "prompts/get":
			p, _ := req.GetParams().(*mcp.GetPromptParams)
			if p == nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "prompts/get needs params with a name"}
			}
			return a.getPrompt(ctx, req, principal, p)
		case "completion/complete":
			p, _ := req.GetParams().(*mcp.CompleteParams)
			return a.complete(ctx, req, principal, p)
		}
		return next(ctx, method, req)
	}
}

// private is the cache scope of lists and reads: each principal sees its
// views (MCP 2026-07-28 caching hints).
var private = mcp.Cacheable{CacheScope: "private"}

// offers is the host's side of them; a Host without it offers nothing.
func (a *Adapter) offers() Offers {
	if o, ok := a.host.(Offers); ok {
		return o
	}
	return noOffers{}
}

// read answers resources/read.
func (a *Adapter) read(ctx context.Context, req mcp.Request, principal *host.Principal, uri string) (mcp.Result, error) {
	start := time.Now()
	res, mod, err := a.offers().ReadResource(ctx, uri, a.offerRequest(req, principal))
	if err == nil {
		var contents json.RawMessage
		if contents, err = wire.Marshal(res.Contents); err == nil && len(contents) > maxWire {
			err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
				"resource %s is %d bytes as sent to the client, over the %d bytes a client reads in one message", uri, len(contents), maxWire)}
		}
		a.recordOffer(ctx, "resources/read", uri, principal, req, mod, start, len(contents), err)
		if err != nil {
			return nil, err
		}
		return &raw{Result: &mcp.ReadResourceResult{Cacheable: private}, fields: map[string]any{"contents": contents}}, nil
	}
	err = toJSONRPC(err, uri)
	a.recordOffer(ctx, "resources/read", uri, principal, req, mod, start, 0, err)
	return nil, err
}

// getPrompt answers prompts/get.
func (a *Adapter) getPrompt(ctx context.Context, req mcp.Request, principal *host.Principal, p *mcp.GetPromptParams) (mcp.Result, error) {
	start := time.Now()
	args, _ := json.Marshal(p.Arguments)
	res, mod, err := a.offers().GetPrompt(ctx, p.Name, args, a.offerRequest(req, principal))
	if err != nil {
		err = toJSONRPC(err, p.Name)
		a.recordOffer(ctx, "prompts/get", p.Name, principal, req, mod, start, 0, err)
		return nil, err
	}
	messages, err := wire.Marshal(res.Messages)
	if n := len(messages) + wireLen(res.Description); err == nil && n > maxWire {
		err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
			"prompt %s is %d bytes as sent to the client, over the %d bytes a client reads in one message", p.Name, n, maxWire)}
	}
	a.recordOffer(ctx, "prompts/get", p.Name, principal, req, mod, start, len(messages), err)
	if err != nil {
		return nil, err
	}
	return &raw{Result: &mcp.GetPromptResult{Description: res.Description}, fields: map[string]any{"messages": json.RawMessage(messages)}}, nil
}

// complete answers completion/complete.
func (a *Adapter) complete(ctx context.Context, req mcp.Request, principal *host.Principal, p *mcp.CompleteParams) (mcp.Result, error) {
	if p == nil || p.Ref == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "completion/complete needs params with a ref"}
	}
	c := abi.CompleteRequest{
		Ref:      abi.CompleteReference{Type: p.Ref.Type, Name: p.Ref.Name, URI: p.Ref.URI},
		Argument: abi.CompleteArgument{Name: p.Argument.Name, Value: p.Argument.Value},
	}
	if p.Context != nil {
		c.Context = &abi.CompleteContext{Arguments: p.Context.Arguments}
	}
	res, err := a.offers().Complete(ctx, c, a.offerRequest(req, principal))
	if err != nil {
		return nil, toJSONRPC(err, p.Argument.Name)
	}
	n := 0
	for _, v := range res.Values {
		n += wireLen(v) + 1
	}
	if n > maxWire {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
			"completion of %s is %d bytes as sent to the client, over the %d bytes a client reads in one message", p.Argument.Name, n, maxWire)}
	}
	out := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: res.Values, HasMore: res.HasMore}}
	if res.Total != nil {
		out.Completion.Total = *res.Total
	}
	return out, nil
}

// offerRequest is who makes req, for the host.
func (a *Adapter) offerRequest(req mcp.Request, principal *host.Principal) host.Request {
	r := host.Request{Caller: sessionOf(req), Principal: principal}
	if p := tokenPrincipal(req.GetExtra()); p != nil {
		r.Caller = limitKey(p.Issuer, p.Subject, p.ClientID) // a principal's sessions share its limits
	}
	return r
}

// sessionOf is the session of req, "" without one.
func sessionOf(req mcp.Request) string {
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
		return sessionID(ss)
	}
	return ""
}

// toJSONRPC is the JSON-RPC error a client gets for the host's error.
func toJSONRPC(err error, target string) error {
	if re, ok := errors.AsType[*host.RequestError](err); ok {
		return &jsonrpc.Error{Code: int64(re.Code), Message: re.Message}
	}
	if scope, ok := errors.AsType[*host.ScopeError](err); ok {
		// No step-up for these methods: the client reads which scope.
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"%s needs the scope %s: the client's credentials do not carry it", scope.Tool, strings.Join(scope.Scopes, " "))}
	}
	switch {
	case errors.Is(err, host.ErrUnknownResource):
		data, _ := json.Marshal(map[string]string{"uri": target})
		return &jsonrpc.Error{Code: abi.CodeResourceNotFound, Message: fmt.Sprintf("resource not found: %s", target), Data: data}
	case errors.Is(err, host.ErrUnknownPrompt):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", target)}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// recordOffer measures a read or a prompt and writes its audit line.
func (a *Adapter) recordOffer(ctx context.Context, method, target string, principal *host.Principal, req mcp.Request,
	mod host.Module, start time.Time, bytesOut int, err error) {
	took := time.Since(start)
	outcome := outcomeOK
	if err != nil {
		outcome = outcomeProtocolError
	}
	a.meters.recordOffer(ctx, method, mod.Plugin, outcome, took)
	if a.opts.Audit == nil {
		return
	}
	attrs := []slog.Attr{
		slog.String("session", sessionOf(req)),
		slog.String("subject", subjectOf(principal)),
		slog.String("client_id", clientOf(principal)),
		slog.String("method", method),
		slog.String("target", target),
		slog.String("plugin", mod.Plugin),
		slog.String("sha256", mod.SHA256),
		slog.Float64("duration_ms", float64(took.Microseconds())/1000),
		slog.String("outcome", outcome),
		slog.Int("bytes_out", bytesOut),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	a.opts.Audit.LogAttrs(ctx, slog.LevelInfo, method, attrs...)
}

// pageOf returns one page of items, sorted by name: those after the one
// cursor names, with the cursor of the next page ("" after the last), each
// item written as def gives it. A page is bounded as tools/list's.
func pageOf[T any](items []T, cursor string, name func(T) string, def func(T) any) (defs []json.RawMessage, next string, err error) {
	start := 0
	if cursor != "" {
		after, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil {
			return nil, "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid cursor %q", cursor)}
		}
		start, _ = slices.BinarySearchFunc(items, string(after), func(it T, n string) int {
			if name(it) <= n {
				return -1
			}
			return 1
		})
	}
	size := 0
	defs = []json.RawMessage{}
	for i := start; i < len(items); i++ {
		d, err := wire.Marshal(def(items[i]))
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", name(items[i]), err)
		}
		if len(defs) > 0 && (len(defs) == maxPageTools || size+len(d) > maxPageBytes) {
			return defs, base64.RawURLEncoding.EncodeToString([]byte(name(items[i-1]))), nil
		}
		defs = append(defs, d)
		size += len(d)
	}
	return defs, "", nil
}

// rawList is a list result whose member holds the definitions' own JSON.
func rawList(res mcp.Result, member string, items []json.RawMessage, err error) (mcp.Result, error) {
	if err != nil {
		return nil, err
	}
	return &raw{Result: res, fields: map[string]any{member: items}}, nil
}

// raw is a go-sdk result with some members written as given: go-sdk's
// types drop what they have no field for, and an empty text.
type raw struct {
	mcp.Result
	fields map[string]any
}

// MarshalJSON writes the go-sdk result, then replaces the members of
// fields, without escaping <, > and & (as toolList).
func (r *raw) MarshalJSON() ([]byte, error) {
	b, err := wire.Marshal(r.Result)
	if err != nil {
		return nil, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	for k, v := range r.fields {
		if all[k], err = wire.Marshal(v); err != nil {
			return nil, err
		}
	}
	return wire.Marshal(all)
}

// noOffers is the Offers of a Host that has none.
type noOffers struct{}

func (noOffers) PromptsFor(*host.Principal) []host.Prompt     { return nil }
func (noOffers) ResourcesFor(*host.Principal) []host.Resource { return nil }
func (noOffers) ResourceTemplatesFor(*host.Principal) []host.ResourceTemplate {
	return nil
}
func (noOffers) ReadResource(_ context.Context, uri string, _ host.Request) (*abi.ReadResult, host.Module, error) {
	return nil, host.Module{}, fmt.Errorf("read %s: %w", uri, host.ErrUnknownResource)
}
func (noOffers) GetPrompt(_ context.Context, name string, _ json.RawMessage, _ host.Request) (*abi.PromptResult, host.Module, error) {
	return nil, host.Module{}, fmt.Errorf("prompt %s: %w", name, host.ErrUnknownPrompt)
}
func (noOffers) Complete(context.Context, abi.CompleteRequest, host.Request) (*abi.CompleteResult, error) {
	return &abi.CompleteResult{Values: []string{}}, nil
}
