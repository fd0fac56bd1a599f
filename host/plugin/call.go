package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"unicode/utf8"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/sandbox"
)

// Call runs the tool name with the arguments JSON args. Absent or null
// arguments become {}. Arguments over Options.MaxInput or invalid against
// the tool's inputSchema give a result with IsError set and the validator's
// message, so that a model can correct them. Any failure of the guest (a
// trap, a timeout, exhausted memory, a malformed result, structured content
// that breaks the outputSchema) also gives an IsError result that explains
// it. The result is complete (ABI.md section 4): at least one content block,
// structured content mirrored as text when there is no content, and
// StructuredContent "{}" when the tool gave none; it marshals with
// encoding/json as an MCP CallToolResult.
//
// hooks, when not nil, connect the call to its client (log lines, progress,
// sampling, elicitation; see sandbox.CallHooks).
//
// The error is non-nil only for an unknown tool (ErrUnknownTool) or a closed
// plugin (ErrClosed).
func (p *Plugin) Call(ctx context.Context, name string, args json.RawMessage, hooks *sandbox.CallHooks) (*Result, error) {
	if !p.enter() {
		return nil, ErrClosed
	}
	defer p.leave()
	t, ok := p.byName[name]
	if !ok {
		return nil, fmt.Errorf("plugin %s: %w %q", p.name, ErrUnknownTool, name)
	}

	if isAbsent(args) {
		args = json.RawMessage("{}")
	}
	if len(args) > p.maxInput {
		return invalidArguments(name, fmt.Sprintf("%d bytes, over the limit of %d bytes", len(args), p.maxInput)), nil
	}
	if !utf8.Valid(args) {
		return invalidArguments(name, "not valid UTF-8"), nil
	}
	if err := t.input.Validate(args); err != nil {
		return invalidArguments(name, err.Error()), nil
	}

	res := new(Result)
	err := p.mod.CallRead(ctx, name, args, hooks, func(doc []byte) error { return decodeResult(doc, &res.Result) })
	if errors.Is(err, sandbox.ErrClosed) {
		return nil, ErrClosed
	}
	return p.finish(ctx, name, t, res, err), nil
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
	if !res.IsError && t.output != nil {
		var problem string
		if res.StructuredContent == nil {
			problem = "has an outputSchema but returned no structuredContent"
		} else if err := t.output.Validate(res.StructuredContent); err != nil {
			problem = "returned structuredContent that does not match its outputSchema: " + err.Error()
		}
		if problem != "" {
			msg := fmt.Sprintf("tool %s in plugin %s %s", name, p.name, problem)
			return p.guestError(ctx, name, msg, fmt.Errorf("%w: %s", ErrOutputSchema, problem))
		}
	}
	complete(&res.Result)
	return res
}

// guestError logs a failure that is the plugin's fault, not the caller's,
// and returns it as a result.
func (p *Plugin) guestError(ctx context.Context, tool, msg string, err error) *Result {
	p.logger.LogAttrs(ctx, slog.LevelWarn, "tool call failed",
		slog.String("plugin", p.name), slog.String("tool", tool), slog.String("error", err.Error()))
	return errorResult(msg, err)
}

// errorResult is a complete result carrying one error message, made by the
// host because of failure.
func errorResult(msg string, failure error) *Result {
	return &Result{
		Result: abi.Result{
			Content:           []abi.Content{abi.Text(msg)},
			StructuredContent: json.RawMessage("{}"),
			IsError:           true,
		},
		Failure: failure,
	}
}

// decodeResult decodes a Result document into res, which must be zero, and
// checks its shape: every content block valid and structuredContent, when
// present, a JSON object. It runs on the guest's memory before the instance
// serves another call; what it keeps is copied. The common shapes take
// fastResult (fastresult.go); anything else takes decodeResultJSON, and the
// outcome is the same either way.
func decodeResult(doc []byte, res *abi.Result) error {
	fast, raw, ok := fastResult(doc)
	if !ok {
		return decodeResultJSON(doc, res)
	}
	*res = fast
	if err := validateContent(res.Content); err != nil {
		// decodeResultJSON leaves structuredContent as decoded, uncompacted.
		res.StructuredContent = bytes.Clone(raw)
		return err
	}
	return nil
}

// decodeResultJSON is decodeResult by encoding/json, for every document.
func decodeResultJSON(doc []byte, res *abi.Result) error {
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

// complete applies rules 2 and 3 of ABI.md section 4: a result without
// content gets one text block (structuredContent mirrored as JSON, or
// empty), and structuredContent is {} when absent.
func complete(res *abi.Result) {
	if len(res.Content) == 0 {
		res.Content = []abi.Content{abi.Text(string(res.StructuredContent))}
	}
	if res.StructuredContent == nil {
		res.StructuredContent = json.RawMessage("{}")
	}
}
