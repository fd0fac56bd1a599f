package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	extism "github.com/extism/go-sdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tetratelabs/wazero"
)

// An extismHost runs a hyper-mcp plugin (protocol v1 or v2) under the Extism
// Go SDK's own host: the reference the extism experiment measures wasmcp
// against, and what the plugins of examples/extism are checked under. Its
// instances are pooled, one call each at a time, as an Extism plugin is not
// safe for concurrent calls; each instance keeps its own variables.
type extismHost struct {
	compiled *extism.CompiledPlugin
	v2       bool
	pool     chan *extism.Plugin
}

// extismOptions configure an extismHost as a manifest configures Extism.
type extismOptions struct {
	config       map[string]string
	allowedHosts []string
	// timeoutMs is the manifest's timeout_ms; zero, Extism's default, sets
	// no deadline.
	timeoutMs uint64
	// instances is the size of the pool, at least 1.
	instances int
	// logger receives the plugin's log lines; nil drops them.
	logger func(extism.LogLevel, string)
}

func newExtismHost(ctx context.Context, path string, o extismOptions) (*extismHost, error) {
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	manifest := extism.Manifest{
		Wasm:         []extism.Wasm{extism.WasmData{Data: wasm}},
		Config:       o.config,
		AllowedHosts: o.allowedHosts,
		Timeout:      o.timeoutMs,
	}
	compiled, err := extism.NewCompiledPlugin(ctx, manifest, extism.PluginConfig{
		EnableWasi:    true,
		RuntimeConfig: wazero.NewRuntimeConfig(),
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: compile under the Extism host: %w", path, err)
	}
	h := &extismHost{compiled: compiled, pool: make(chan *extism.Plugin, max(1, o.instances))}
	for range cap(h.pool) {
		p, err := compiled.Instance(ctx, extism.PluginInstanceConfig{ModuleConfig: wazero.NewModuleConfig()})
		if err != nil {
			h.close(ctx)
			return nil, fmt.Errorf("%s: instantiate under the Extism host: %w", path, err)
		}
		if o.logger != nil {
			p.SetLogger(o.logger)
		} else {
			p.SetLogger(func(extism.LogLevel, string) {})
		}
		h.v2 = p.FunctionExists("call_tool")
		if !h.v2 && !(p.FunctionExists("call") && p.FunctionExists("describe")) {
			h.close(ctx)
			return nil, fmt.Errorf("%s: exports neither call_tool (hyper-mcp v2) nor describe and call (v1)", path)
		}
		h.pool <- p
	}
	return h, nil
}

func (h *extismHost) close(ctx context.Context) {
	for {
		select {
		case p := <-h.pool:
			p.Close(ctx)
		default:
			h.compiled.Close(ctx)
			return
		}
	}
}

// invoke calls function fn of a pooled instance with input and returns its
// output; a non-zero return or a trap is an error with the plugin's message.
func (h *extismHost) invoke(ctx context.Context, fn string, input []byte) ([]byte, error) {
	var p *extism.Plugin
	select {
	case p = <-h.pool:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { h.pool <- p }()
	rc, out, err := p.CallWithContext(ctx, fn, input)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	if rc != 0 {
		return nil, fmt.Errorf("%s returned %d: %s", fn, rc, p.GetError())
	}
	return out, nil
}

// tools lists the plugin's tools: describe (v1) or list_tools (v2).
func (h *extismHost) tools(ctx context.Context) ([]*mcp.Tool, error) {
	fn, input := "describe", []byte(nil)
	if h.v2 {
		fn, input = "list_tools", []byte(`{"context":{"_meta":{},"id":1}}`)
	}
	out, err := h.invoke(ctx, fn, input)
	if err != nil {
		return nil, err
	}
	var list struct {
		Tools []*mcp.Tool `json:"tools"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	return list.Tools, nil
}

// call calls tool with args (a JSON object) and decodes its CallToolResult.
func (h *extismHost) call(ctx context.Context, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	params := map[string]any{"name": tool, "arguments": args}
	fn, req := "call", map[string]any{"params": params}
	if h.v2 {
		fn, req = "call_tool", map[string]any{"request": params, "context": map[string]any{"_meta": map[string]any{}, "id": 1}}
	}
	input, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	out, err := h.invoke(ctx, fn, input)
	if err != nil {
		return nil, err
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("%s %s: %w", fn, tool, err)
	}
	return &res, nil
}

// extismServer is a go-sdk server whose tools are those of the plugin h
// runs: what an MCP server built on the Extism Go SDK (hyper-mcp's design,
// in Go) amounts to. A plugin's error becomes an isError result.
func extismServer(ctx context.Context, h *extismHost) (*mcp.Server, error) {
	tools, err := h.tools(ctx)
	if err != nil {
		return nil, err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "extism-host", Version: "0"}, nil)
	for _, t := range tools {
		s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := h.call(ctx, req.Params.Name, req.Params.Arguments)
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
			}
			return res, nil
		})
	}
	return s, nil
}
