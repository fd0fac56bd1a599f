package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
)

// An Extism plugin speaks one of hyper-mcp's plugin protocols (ABI.md
// section 9). Its tool list is a ListToolsResult, {"tools": [...]}, the
// shape of a describe document; a call's output is a CallToolResult, the
// shape of a wasmcp result. So both go through the same validation as a
// wasmcp module's; only the inputs differ.

// extismContext is the "context" member of protocol 2's inputs: the MCP
// request's id and _meta. wasmcp numbers the calls of each plugin, and
// passes no _meta.
type extismContext struct {
	ID   uint64         `json:"id"`
	Meta map[string]any `json:"_meta"`
}

// extismCallParams are the params of an MCP tools/call request.
type extismCallParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// extismList returns the export that lists an Extism plugin's tools and
// its input.
func (p *Plugin) extismList() (export string, input []byte) {
	if p.info.Protocol == 1 {
		return sandbox.ExportDescribeV1, nil
	}
	input, _ = json.Marshal(struct {
		Context extismContext `json:"context"`
	}{extismContext{Meta: map[string]any{}}})
	return sandbox.ExportListV2, input
}

// extismCall returns the export that runs a tool of an Extism plugin and
// its input.
func (p *Plugin) extismCall(name string, args json.RawMessage) (export string, input []byte, err error) {
	params := extismCallParams{name, args}
	if p.info.Protocol == 1 {
		input, err = json.Marshal(struct {
			Params extismCallParams `json:"params"`
		}{params})
		return sandbox.ExportCallV1, input, err
	}
	input, err = json.Marshal(struct {
		Request extismCallParams `json:"request"`
		Context extismContext    `json:"context"`
	}{params, extismContext{ID: p.calls.Add(1), Meta: map[string]any{}}})
	return sandbox.ExportCallV2, input, err
}

// describe returns the module's tool list: wasmcp_describe's document, or
// an Extism plugin's listing.
func (p *Plugin) describe(ctx context.Context) ([]byte, error) {
	if p.info.Kind != sandbox.KindExtism {
		return p.mod.Describe(ctx)
	}
	export, input := p.extismList()
	var doc []byte
	var failure string
	err := p.mod.CallExtism(ctx, export, "", input, nil, func(out []byte, failed bool) error {
		if failed {
			failure = string(out)
		}
		doc = bytes.Clone(out)
		return nil
	})
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", export, err)
	case failure != "":
		return nil, fmt.Errorf("%s reported an error: %s", export, strings.ToValidUTF8(failure, "\uFFFD"))
	}
	return doc, nil
}

// run runs tool name in the guest and decodes its result into res.
func (p *Plugin) run(ctx context.Context, name string, args json.RawMessage, hooks *sandbox.CallHooks, res *Result) error {
	if p.info.Kind != sandbox.KindExtism {
		return p.mod.CallRead(ctx, name, args, hooks, func(doc []byte) error { return decodeResult(doc, &res.Result) })
	}
	export, input, err := p.extismCall(name, args)
	if err != nil {
		return fmt.Errorf("%w: %w", sandbox.ErrMalformed, err)
	}
	return p.mod.CallExtism(ctx, export, name, input, hooks, func(out []byte, failed bool) error {
		if failed {
			// The plugin's own error (error_set): a tool error, with the
			// plugin's message for the model to read.
			res.Result = abi.Result{Content: []abi.Content{abi.Text(strings.ToValidUTF8(string(out), "\uFFFD"))}, IsError: true}
			return nil
		}
		return decodeResult(out, &res.Result)
	})
}
