package plugin

// Reads, prompts and completions: the requests of ABI.md's "Resources and
// prompts", run in the sandbox under the limits of a call.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/internal/telemetry"
)

// RequestError is a read, a prompt or a completion that failed: the guest
// refused it, or the host could not run it. Code is the JSON-RPC error code
// the client gets (abi.CodeResourceNotFound, abi.CodeInvalidParams or
// abi.CodeInternalError), Message what it reads; Failure, for the host's
// own failures, is the sandbox's error (sandbox.ErrTimeout, ...).
type RequestError struct {
	Code    int
	Message string
	Failure error
}

func (e *RequestError) Error() string { return e.Message }
func (e *RequestError) Unwrap() error { return e.Failure }

// Read reads the resource uri: one the plugin lists, or one a template of
// it matches.
func (p *Plugin) Read(ctx context.Context, uri string, hooks *sandbox.CallHooks) (*abi.ReadResult, error) {
	if err := CheckURI(uri); err != nil {
		return nil, &RequestError{Code: abi.CodeInvalidParams, Message: fmt.Sprintf("read %s: %v", uri, err)}
	}
	tmpl, _, ok := p.MatchTemplate(uri)
	switch {
	case p.offers.has(uri):
	case !ok:
		return nil, &RequestError{Code: abi.CodeResourceNotFound, Message: fmt.Sprintf("plugin %s has no resource %s", p.name, uri)}
	default:
		if err := p.checkVariables(tmpl, uri); err != nil {
			return nil, &RequestError{Code: abi.CodeInvalidParams, Message: fmt.Sprintf("read %s: %v", uri, err)}
		}
	}
	var res abi.ReadResult
	err := p.serve(ctx, "read", sandbox.Op{Kind: sandbox.OpRead, Name: uri}, hooks, &res, func() (*abi.GuestError, error) {
		if res.Error != nil {
			return res.Error, nil
		}
		return nil, res.Validate()
	})
	if err != nil {
		return nil, err
	}
	// Every content is capped, whatever its uri: a host renders the
	// contents of a view's read as the view, and the guest writes their uri.
	for i := range res.Contents {
		c := &res.Contents[i]
		var dropped []string
		if c.Meta, dropped = capCSP(c.Meta, p.granted.Net); len(dropped) > 0 {
			p.logger.WarnContext(ctx, "app view asks for origins the plugin is not granted: clients do not get them",
				"plugin", p.name, "uri", uri, "content_uri", c.URI, "origins", dropped)
		}
	}
	return &res, nil
}

// GetPrompt gets the prompt name with args, a JSON object of strings that
// must give every required argument and no other.
func (p *Plugin) GetPrompt(ctx context.Context, name string, args json.RawMessage, hooks *sandbox.CallHooks) (*abi.PromptResult, error) {
	i, ok := p.offers.byPrompt[name]
	if !ok {
		return nil, &RequestError{Code: abi.CodeInvalidParams, Message: fmt.Sprintf("plugin %s has no prompt %s", p.name, name)}
	}
	input, err := p.promptArguments(&p.offers.prompts[i], args)
	if err != nil {
		return nil, &RequestError{Code: abi.CodeInvalidParams, Message: fmt.Sprintf("invalid arguments for prompt %s: %v", name, err)}
	}
	var res abi.PromptResult
	err = p.serve(ctx, "prompt", sandbox.Op{Kind: sandbox.OpPrompt, Name: name, Input: input}, hooks, &res, func() (*abi.GuestError, error) {
		if res.Error != nil {
			return res.Error, nil
		}
		return nil, res.Validate()
	})
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// promptArguments checks args against the prompt's arguments and returns
// them as the object the guest gets.
func (p *Plugin) promptArguments(pr *abi.Prompt, args json.RawMessage) ([]byte, error) {
	if len(args) > p.maxInput {
		return nil, fmt.Errorf("%d bytes, over the limit of %d bytes", len(args), p.maxInput)
	}
	values := map[string]string{}
	if !isAbsent(args) {
		var raw map[string]any
		if err := decodeObject(args, &raw); err != nil {
			return nil, err
		}
		for k, v := range raw {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("argument %q is not a string", k)
			}
			if !slices.ContainsFunc(pr.Arguments, func(a abi.PromptArgument) bool { return a.Name == k }) {
				return nil, fmt.Errorf("the prompt has no argument %q", k)
			}
			values[k] = s
		}
	}
	for _, a := range pr.Arguments {
		if _, ok := values[a.Name]; a.Required && !ok {
			return nil, fmt.Errorf("argument %q is required", a.Name)
		}
	}
	return json.Marshal(values)
}

// Complete completes an argument of one of the plugin's prompts or
// templates; anything else, or a plugin without the export, gets no
// values.
func (p *Plugin) Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	none := &abi.CompleteResult{Values: []string{}}
	if !p.info.Serves[sandbox.OpComplete] || !p.completes(req.Ref, req.Argument.Name) {
		return none, nil
	}
	input, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var res abi.CompleteResult
	err = p.serve(ctx, "complete", sandbox.Op{Kind: sandbox.OpComplete, Input: input}, nil, &res, func() (*abi.GuestError, error) {
		return res.Error, nil
	})
	if err != nil {
		return nil, err
	}
	if res.Values == nil {
		res.Values = []string{}
	}
	if len(res.Values) > abi.MaxCompletionValues {
		res.Values, res.HasMore = res.Values[:abi.MaxCompletionValues], true
	}
	return &res, nil
}

// completes reports whether ref names a prompt or a template of the plugin
// that has the argument (the template's variable) arg.
func (p *Plugin) completes(ref abi.CompleteReference, arg string) bool {
	switch ref.Type {
	case abi.RefPrompt:
		i, ok := p.offers.byPrompt[ref.Name]
		return ok && slices.ContainsFunc(p.offers.prompts[i].Arguments, func(a abi.PromptArgument) bool { return a.Name == arg })
	case abi.RefResource:
		for _, t := range p.offers.templates {
			if t.def.URITemplate == ref.URI {
				return slices.Contains(t.parsed.Varnames(), arg)
			}
		}
	}
	return false
}

// serve runs op and decodes the guest's document into doc; check returns
// the guest's error, if it gave one, or why the document is invalid. Every
// failure is a *RequestError.
func (p *Plugin) serve(ctx context.Context, what string, op sandbox.Op, hooks *sandbox.CallHooks, doc any,
	check func() (*abi.GuestError, error)) error {
	ctx, span := p.tracer.Start(ctx, "guest", trace.WithAttributes(telemetry.PluginKey.String(p.name), sha256Key.String(p.sum)))
	defer span.End()
	target := op.Name
	if op.Kind == sandbox.OpComplete {
		target = "an argument"
	}
	var refused *abi.GuestError
	err := p.mod.Serve(ctx, op, hooks, func(out []byte, failed bool) error {
		if failed {
			refused = &abi.GuestError{Message: strings.ToValidUTF8(string(out), "\uFFFD")}
			return nil
		}
		if err := decodeObject(out, doc); err != nil {
			return err
		}
		g, err := check()
		refused = g
		return err
	})
	switch {
	case errors.Is(err, sandbox.ErrClosed):
		span.SetStatus(codes.Error, "closed")
		return ErrClosed
	case err != nil:
		span.SetStatus(codes.Error, "failed")
		p.logger.WarnContext(ctx, what+" failed", "plugin", p.name, "target", target, "error", err.Error())
		msg := fmt.Sprintf("%s %s in plugin %s: %v", what, target, p.name, err)
		if errors.Is(err, sandbox.ErrMalformed) {
			msg = fmt.Sprintf("plugin %s returned a malformed %s result: %v", p.name, what, err)
		}
		return &RequestError{Code: abi.CodeInternalError, Message: msg, Failure: err}
	case refused != nil:
		span.SetStatus(codes.Error, "refused")
		msg := refused.Message
		if !utf8.ValidString(msg) || msg == "" {
			msg = what + " refused without a message"
		}
		return &RequestError{Code: refused.JSONRPCCode(), Message: fmt.Sprintf("plugin %s: %s", p.name, msg)}
	}
	return nil
}
