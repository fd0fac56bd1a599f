package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/internal/telemetry"
)

// Call runs the tool name with the arguments JSON args. Absent or null
// arguments become {}. Arguments over Options.MaxInput or invalid against
// the tool's inputSchema give a result with IsError set and the validator's
// message, so that a model can correct them. Any failure of the guest (a
// trap, a timeout, exhausted memory, a malformed result, structured content
// that breaks the outputSchema) also gives an IsError result that explains
// it. The result is complete (ABI.md section 4): at least one content block,
// structured content mirrored as text when there is no content,
// StructuredContent "{}" when a successful tool gave none, and, on an
// error, structuredContent only when it conforms to the outputSchema; it
// marshals with encoding/json as an MCP CallToolResult.
//
// hooks, when not nil, connect the call to its client (log lines, progress,
// sampling, elicitation; see sandbox.CallHooks).
//
// The error is non-nil only for an unknown tool (ErrUnknownTool) or a closed
// plugin (ErrClosed).
func (p *Plugin) Call(ctx context.Context, name string, args json.RawMessage, hooks *sandbox.CallHooks) (*Result, error) {
	t, ok := p.byName[name]
	if !ok {
		return nil, fmt.Errorf("plugin %s: %w %q", p.name, ErrUnknownTool, name)
	}

	if isAbsent(args) {
		args = json.RawMessage("{}")
	}
	if res := p.validate(ctx, name, t, args); res != nil {
		return res, nil
	}

	ctx, span := p.tracer.Start(ctx, "guest", trace.WithAttributes(telemetry.PluginKey.String(p.name), sha256Key.String(p.sum)))
	defer span.End()
	res := new(Result)
	err := p.mod.Call(ctx, t.guest, args, hooks, func(out []byte, failed bool) error {
		if failed {
			// The guest's own error in place of a result (an Extism
			// plugin's error_set): a tool error, with its message for the
			// model to read.
			res.Result = abi.Result{Content: []abi.Content{abi.Text(strings.ToValidUTF8(string(out), "\uFFFD"))}, IsError: true}
			return nil
		}
		return decodeResult(out, &res.Result)
	})
	if errors.Is(err, sandbox.ErrClosed) {
		span.SetAttributes(outcomeKey.String("closed"))
		span.SetStatus(codes.Error, "closed")
		return nil, ErrClosed
	}
	res = p.finish(ctx, name, t, res, err)
	outcome := outcomeOf(res)
	span.SetAttributes(outcomeKey.String(outcome))
	if res.Failure != nil {
		span.SetStatus(codes.Error, outcome)
	}
	return res, nil
}

// validate checks args against t's input schema, in a "validate" span, and
// returns the result of arguments refused, nil for valid ones.
func (p *Plugin) validate(ctx context.Context, name string, t *tool, args json.RawMessage) *Result {
	_, span := p.tracer.Start(ctx, "validate")
	defer span.End()
	var res *Result
	switch {
	case len(args) > p.maxInput:
		res = invalidArguments(name, fmt.Sprintf("%d bytes, over the limit of %d bytes", len(args), p.maxInput))
	case !utf8.Valid(args):
		res = invalidArguments(name, "not valid UTF-8")
	default:
		if err := t.input.Validate(args); err != nil {
			res = invalidArguments(name, err.Error())
		}
	}
	if res != nil {
		span.SetStatus(codes.Error, "invalid_arguments")
	}
	return res
}

// Span attributes of the guest run.
var (
	sha256Key  = attribute.Key("wasmcp.sha256")
	outcomeKey = attribute.Key("wasmcp.outcome")
)

// outcomeOf names how a call ended, for its span: ok, tool_error (the tool
// reported an error), or the cause of the host's failure.
func outcomeOf(r *Result) string {
	switch f := r.Failure; {
	case f == nil && r.IsError:
		return "tool_error"
	case f == nil:
		return "ok"
	case errors.Is(f, ErrInvalidArguments):
		return "invalid_arguments"
	case errors.Is(f, ErrOutputSchema):
		return "output_schema"
	case errors.Is(f, sandbox.ErrTimeout):
		return "timeout"
	case errors.Is(f, sandbox.ErrMemory):
		return "memory"
	case errors.Is(f, sandbox.ErrCanceled):
		return "canceled"
	case errors.Is(f, sandbox.ErrInputRequired):
		return "input_required"
	}
	return "failed"
}

// invalidArguments is the result of arguments refused for why.
func invalidArguments(tool, why string) *Result {
	return errorResult(fmt.Sprintf("invalid arguments for tool %s: %s", tool, why), ErrInvalidArguments)
}

// finish turns the outcome of running tool name, the result res decoded by
// decodeResult or the sandbox's error err, into the complete result a
// client sees. It is apart from Call so that the fuzz tests can feed it
// result documents without a guest.
func (p *Plugin) finish(ctx context.Context, name string, t *tool, res *Result, err error) *Result {
	switch {
	case errors.Is(err, sandbox.ErrCanceled), errors.Is(err, sandbox.ErrInputRequired):
		// The caller gave up, or takes the call up again in a request of
		// its client's: nobody is at fault.
		return errorResult(fmt.Sprintf("tool %s in plugin %s: %v", name, p.name, err), err)
	case errors.Is(err, sandbox.ErrMalformed):
		return p.guestError(ctx, name, fmt.Sprintf("plugin %s returned a malformed result: %v", p.name, err), err)
	case err != nil:
		return p.guestError(ctx, name, fmt.Sprintf("tool %s in plugin %s: %v", name, p.name, err), err)
	}
	if t.output != nil {
		if problem := p.checkStructured(ctx, name, t, res); problem != "" {
			msg := fmt.Sprintf("tool %s in plugin %s %s", name, p.name, problem)
			return p.guestError(ctx, name, msg, fmt.Errorf("%w: %s", ErrOutputSchema, problem))
		}
	}
	complete(&res.Result, name)
	return res
}

// checkStructured applies the outputSchema of t to a result the guest
// returned, and reports why a successful one breaks it. An error result
// keeps its structuredContent only when it conforms: official clients (the
// TypeScript SDK 1.x, the Inspector) validate any structuredContent against
// the outputSchema, isError or not, and would throw away the error's text
// with it. So a non-conforming one is dropped, and logged for the plugin's
// author.
func (p *Plugin) checkStructured(ctx context.Context, name string, t *tool, res *Result) (problem string) {
	if res.StructuredContent == nil {
		if res.IsError {
			return ""
		}
		return "has an outputSchema but returned no structuredContent"
	}
	err := t.output.Validate(res.StructuredContent)
	switch {
	case err == nil:
		return ""
	case res.IsError:
		p.logger.LogAttrs(ctx, slog.LevelWarn, "error result's structuredContent dropped: it does not match the outputSchema",
			slog.String("plugin", p.name), slog.String("tool", name), slog.String("error", err.Error()))
		res.StructuredContent = nil
		return ""
	}
	return "returned structuredContent that does not match its outputSchema: " + err.Error()
}

// guestError logs a failure that is the plugin's fault, not the caller's,
// and returns it as a result.
func (p *Plugin) guestError(ctx context.Context, tool, msg string, err error) *Result {
	p.logger.LogAttrs(ctx, slog.LevelWarn, "tool call failed",
		slog.String("plugin", p.name), slog.String("tool", tool), slog.String("error", err.Error()))
	return errorResult(msg, err)
}

// errorResult is a complete result carrying one error message, made by the
// host because of failure. It has no structuredContent (ABI.md section 4).
func errorResult(msg string, failure error) *Result {
	return &Result{
		Result:  abi.Result{Content: []abi.Content{abi.Text(msg)}, IsError: true},
		Failure: failure,
	}
}

// decodeResult decodes a Result document into res, which must be zero, and
// checks its shape: every content block valid and structuredContent, when
// present, a JSON object. It runs on the guest's memory before the instance
// serves another call; what it keeps is copied.
func decodeResult(doc []byte, res *abi.Result) error {
	if err := decodeObject(doc, res); err != nil {
		return err
	}
	if err := validateContent(res.Content); err != nil {
		return err
	}
	if isAbsent(res.StructuredContent) {
		res.StructuredContent = nil
		return nil
	}
	if bytes.TrimLeft(res.StructuredContent, " \t\r\n")[0] != '{' {
		return errors.New("structuredContent is not a JSON object")
	}
	out, err := compact(res.StructuredContent)
	if err != nil {
		return fmt.Errorf("structuredContent: %w", err)
	}
	res.StructuredContent = out
	return nil
}

// validateContent reports the first invalid content block.
func validateContent(content []abi.Content) error {
	for i := range content {
		if err := content[i].Validate(); err != nil {
			return fmt.Errorf("content[%d]: %w", i, err)
		}
	}
	return nil
}

// compact returns a compacted copy of the JSON value raw. Structured content
// is compacted once, so that the mirrored text block and the marshalled
// structuredContent are the same bytes.
func compact(raw []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// complete applies rules 3 and 4 of ABI.md section 4: a result without
// content gets one text block (structuredContent mirrored as JSON; for an
// error without either, a text naming the tool, so that the model does not
// read a blank), and a successful result's structuredContent is {} when
// absent. An error result carries structuredContent only when it has one.
func complete(res *abi.Result, tool string) {
	if len(res.Content) == 0 {
		switch {
		case res.StructuredContent != nil:
			res.Content = []abi.Content{abi.Text(string(res.StructuredContent))}
		case res.IsError:
			res.Content = []abi.Content{abi.Text(fmt.Sprintf("tool %s failed without a message", tool))}
		default:
			res.Content = []abi.Content{abi.Text("")}
		}
	}
	if res.StructuredContent == nil && !res.IsError {
		res.StructuredContent = json.RawMessage("{}")
	}
}
