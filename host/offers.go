package host

// Resources, resource templates and prompts: what plugins offer besides
// tools (ABI.md section 4, "Resources and prompts").

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/plugin"
	"github.com/wasmcp/wasmcp/host/internal/registry"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/policy"
)

// Prompt is a served prompt and the plugin serving it.
type Prompt struct {
	abi.Prompt
	Plugin string
}

// Resource is a served resource and the plugin serving it.
type Resource struct {
	abi.Resource
	Plugin string
}

// ResourceTemplate is a served resource template and the plugin serving it.
type ResourceTemplate struct {
	abi.ResourceTemplate
	Plugin string
}

// RequestError is the error of ReadResource, GetPrompt and Complete when the
// guest refused the request or the host could not run it: Code is the
// JSON-RPC code a client gets (abi.CodeResourceNotFound,
// abi.CodeInvalidParams, abi.CodeInternalError), Message what it reads.
type RequestError = plugin.RequestError

// ErrUnknownPrompt and ErrUnknownResource are wrapped by the errors of
// GetPrompt and ReadResource for a prompt or a URI no plugin serves to the
// principal.
var (
	ErrUnknownPrompt   = errors.New("unknown prompt")
	ErrUnknownResource = errors.New("unknown resource")
)

// Request is who asks for a read, a prompt or a completion, and its
// client's features: a CallRequest without its tool and arguments.
type Request struct {
	Caller    string
	Principal *Principal
	Log       func(plugin string, level abi.LogLevel, msg string)
	Progress  func(progress, total float64, msg string)
}

// PromptsFor returns the prompts p sees, sorted by name.
func (h *Host) PromptsFor(p *Principal) []Prompt {
	sight := h.policy.Load().Sight(p)
	var out []Prompt
	for _, e := range h.reg.Snapshot().Offered(registry.KindPrompt) {
		if sight.Sees(e.Plugin.Name(), e.Name) {
			out = append(out, Prompt{*e.Def.(*abi.Prompt), e.Plugin.Name()})
		}
	}
	return out
}

// ResourcesFor returns the resources p sees, sorted by URI: those its views
// show by name, and the views (MCP Apps) of the tools it sees.
func (h *Host) ResourcesFor(p *Principal) []Resource {
	s := h.reg.Snapshot()
	sight := h.policy.Load().Sight(p)
	var out []Resource
	for _, e := range s.Offered(registry.KindResource) {
		r := e.Def.(*abi.Resource)
		if h.seesResource(s, sight, e.Plugin, r) {
			out = append(out, Resource{*r, e.Plugin.Name()})
		}
	}
	return out
}

// seesResource reports whether sight shows r of pl: by its name, or as the
// view of a tool of pl in sight.
func (h *Host) seesResource(s *registry.Snapshot[*plugin.Plugin], sight *policy.Sight, pl *plugin.Plugin, r *abi.Resource) bool {
	if sight.Sees(pl.Name(), r.Name) {
		return true
	}
	if !abi.IsApp(r.URI) {
		return false
	}
	for _, t := range pl.Tools() {
		if uri, ok := plugin.ViewOf(t.Meta); ok && uri == r.URI && sight.Sees(pl.Name(), t.Name) {
			if e, ok := s.Lookup(t.Name); ok && e.Plugin == pl {
				return true
			}
		}
	}
	return false
}

// ResourceTemplatesFor returns the resource templates p sees, sorted by
// template.
func (h *Host) ResourceTemplatesFor(p *Principal) []ResourceTemplate {
	sight := h.policy.Load().Sight(p)
	var out []ResourceTemplate
	for _, e := range h.reg.Snapshot().Offered(registry.KindTemplate) {
		t := e.Def.(*abi.ResourceTemplate)
		if sight.Sees(e.Plugin.Name(), t.Name) {
			out = append(out, ResourceTemplate{*t, e.Plugin.Name()})
		}
	}
	return out
}

// ReadResource reads uri for req's principal: the resource of that URI, or
// else the one the best template matches (ABI.md, "Owners"). The error is
// a *RequestError, one wrapping ErrUnknownResource for a URI no plugin
// serves to the principal, or ErrClosed.
func (h *Host) ReadResource(ctx context.Context, uri string, req Request) (*abi.ReadResult, Module, error) {
	if err := plugin.CheckURI(uri); err != nil {
		return nil, Module{}, &RequestError{Code: abi.CodeInvalidParams, Message: fmt.Sprintf("read %s: %v", uri, err)}
	}
	s := h.reg.Snapshot()
	sight := h.policy.Load().Sight(req.Principal)
	key, ok := "", false
	var e registry.Entry[*plugin.Plugin]
	if r, found := s.Lookup(registry.Key(registry.KindResource, uri)); found {
		e, key, ok = r, registry.Key(registry.KindResource, uri), h.seesResource(s, sight, r.Plugin, r.Def.(*abi.Resource))
	} else if t, found := bestTemplate(s, uri); found {
		e, key, ok = t, t.Key(), sight.Sees(t.Plugin.Name(), t.Def.(*abi.ResourceTemplate).Name)
	}
	if !ok {
		return nil, Module{}, fmt.Errorf("read %s: %w", uri, ErrUnknownResource)
	}
	if err := needs(sight, req.Principal, e.Plugin.Name(), offerName(e.Def)); err != nil {
		return nil, Module{}, fmt.Errorf("read %s: %w", uri, err)
	}
	var res *abi.ReadResult
	mod, err := h.serve(ctx, key, uri, req, func(p *plugin.Plugin) (int, error) {
		r, err := p.Read(ctx, uri, req.hooks(p.Name()))
		if r != nil {
			res = r
			return readSize(r), nil
		}
		return 0, err
	})
	return res, mod, err
}

// needs returns a *ScopeError when a view requires of p, for the prompt,
// resource or template of plugin named name, scopes p lacks: a view's
// require holds for what a plugin offers as for its tools.
func needs(sight *policy.Sight, p *Principal, plugin, name string) error {
	if missing := sight.Needs(p, plugin, name); len(missing) > 0 {
		return &ScopeError{Tool: name, Scopes: missing}
	}
	return nil
}

// offerName is the name views match a resource or a template by.
func offerName(def any) string {
	switch d := def.(type) {
	case *abi.Resource:
		return d.Name
	case *abi.ResourceTemplate:
		return d.Name
	}
	return ""
}

// bestTemplate returns the template that matches uri with the longest text
// before its first expression; between two as long, the one of the plugin
// whose name sorts first.
func bestTemplate(s *registry.Snapshot[*plugin.Plugin], uri string) (registry.Entry[*plugin.Plugin], bool) {
	var best registry.Entry[*plugin.Plugin]
	bestLen, found := -1, false
	for _, e := range s.Offered(registry.KindTemplate) {
		if !strings.HasPrefix(uri, abi.TemplatePrefix(e.Name)) {
			continue
		}
		tmpl, n, ok := e.Plugin.MatchTemplate(uri)
		if !ok || tmpl != e.Name {
			continue
		}
		if n > bestLen || n == bestLen && e.Plugin.Name() < best.Plugin.Name() {
			best, bestLen, found = e, n, true
		}
	}
	return best, found
}

// GetPrompt gets the prompt name with args (a JSON object of strings) for
// req's principal. The error is a *RequestError, one wrapping
// ErrUnknownPrompt for a prompt no plugin serves to the principal, or
// ErrClosed.
func (h *Host) GetPrompt(ctx context.Context, name string, args json.RawMessage, req Request) (*abi.PromptResult, Module, error) {
	key := registry.Key(registry.KindPrompt, name)
	e, ok := h.reg.Snapshot().Lookup(key)
	sight := h.policy.Load().Sight(req.Principal)
	if !ok || !sight.Sees(e.Plugin.Name(), name) {
		return nil, Module{}, fmt.Errorf("prompt %s: %w", name, ErrUnknownPrompt)
	}
	if err := needs(sight, req.Principal, e.Plugin.Name(), name); err != nil {
		return nil, Module{}, fmt.Errorf("prompt %s: %w", name, err)
	}
	var res *abi.PromptResult
	mod, err := h.serve(ctx, key, name, req, func(p *plugin.Plugin) (int, error) {
		r, err := p.GetPrompt(ctx, name, args, req.hooks(p.Name()))
		if r != nil {
			res = r
			return len(args), nil
		}
		return 0, err
	})
	return res, mod, err
}

// Complete suggests values for an argument of a prompt or a resource
// template the principal sees; anything else gets none.
func (h *Host) Complete(ctx context.Context, c abi.CompleteRequest, req Request) (*abi.CompleteResult, error) {
	var key, name string
	switch c.Ref.Type {
	case abi.RefPrompt:
		key, name = registry.Key(registry.KindPrompt, c.Ref.Name), c.Ref.Name
	case abi.RefResource:
		key = registry.Key(registry.KindTemplate, c.Ref.URI)
	default:
		return nil, &RequestError{Code: abi.CodeInvalidParams, Message: fmt.Sprintf("completion: ref type %q is neither %s nor %s",
			c.Ref.Type, abi.RefPrompt, abi.RefResource)}
	}
	none := &abi.CompleteResult{Values: []string{}}
	e, ok := h.reg.Snapshot().Lookup(key)
	if !ok {
		return none, nil
	}
	if name == "" {
		name = e.Def.(*abi.ResourceTemplate).Name
	}
	sight := h.policy.Load().Sight(req.Principal)
	if !sight.Sees(e.Plugin.Name(), name) {
		return none, nil
	}
	if err := needs(sight, req.Principal, e.Plugin.Name(), name); err != nil {
		return nil, fmt.Errorf("completion of %s: %w", name, err)
	}
	var res *abi.CompleteResult
	_, err := h.serve(ctx, key, name, req, func(p *plugin.Plugin) (int, error) {
		r, err := p.Complete(ctx, c)
		res = r
		return 0, err
	})
	return res, err
}

// serve routes key to its plugin and runs fn there under admission, as
// Call runs a tool: fn returns the bytes it moved, for the memory the host
// gives back.
func (h *Host) serve(ctx context.Context, key, name string, req Request, fn func(*plugin.Plugin) (int, error)) (Module, error) {
	var mod Module
	err := h.reg.Route(key, func(p *plugin.Plugin) error {
		mod = Module{Plugin: p.Name(), File: p.Path(), SHA256: p.SHA256()}
		release, refused := h.admit(ctx, CallRequest{Tool: name, Caller: req.Caller}, p, mod)
		if refused != nil {
			return &RequestError{Code: abi.CodeInternalError, Message: refused.Content[0].Text, Failure: refused.Failure}
		}
		defer release()
		n, err := fn(p)
		h.reclaim.add(n)
		return err
	})
	switch {
	case errors.Is(err, registry.ErrClosed):
		return mod, fmt.Errorf("%s: %w", name, ErrClosed)
	case errors.Is(err, ErrUnknownTool):
		// Gone between the lookup and the route.
		return mod, &RequestError{Code: abi.CodeResourceNotFound, Message: fmt.Sprintf("%s is no longer served", name)}
	}
	return mod, err
}

// hooks returns the sandbox's view of the request's client features.
func (req Request) hooks(plugin string) *sandbox.CallHooks {
	return CallRequest{Log: req.Log, Progress: req.Progress}.hooks(plugin)
}

// readSize is the bytes of a read's contents.
func readSize(r *abi.ReadResult) int {
	n := 0
	for _, c := range r.Contents {
		if c.Text != nil {
			n += len(*c.Text)
		}
		if c.Blob != nil {
			n += len(*c.Blob)
		}
	}
	return n
}

// toChange splits a change of the registry by kind.
func toChange(c registry.Change[*plugin.Plugin]) Change {
	var out Change
	split := func(es []registry.Entry[*plugin.Plugin], tools *[]Tool, prompts *[]Prompt, resources *[]Resource, templates *[]ResourceTemplate) {
		for _, e := range es {
			name := e.Plugin.Name()
			switch e.Kind {
			case registry.KindTool:
				*tools = append(*tools, Tool{Tool: e.Tool, Plugin: name, SHA256: e.Plugin.SHA256()})
			case registry.KindPrompt:
				*prompts = append(*prompts, Prompt{*e.Def.(*abi.Prompt), name})
			case registry.KindResource:
				*resources = append(*resources, Resource{*e.Def.(*abi.Resource), name})
			case registry.KindTemplate:
				*templates = append(*templates, ResourceTemplate{*e.Def.(*abi.ResourceTemplate), name})
			}
		}
	}
	split(c.Added, &out.Added, &out.Prompts.Added, &out.Resources.Added, &out.Templates.Added)
	split(c.Updated, &out.Updated, &out.Prompts.Updated, &out.Resources.Updated, &out.Templates.Updated)
	for _, key := range c.Removed {
		switch kind, name := registry.ParseKey(key); kind {
		case registry.KindTool:
			out.Removed = append(out.Removed, name)
		case registry.KindPrompt:
			out.Prompts.Removed = append(out.Prompts.Removed, name)
		case registry.KindResource:
			out.Resources.Removed = append(out.Resources.Removed, name)
		case registry.KindTemplate:
			out.Templates.Removed = append(out.Templates.Removed, name)
		}
	}
	return out
}
