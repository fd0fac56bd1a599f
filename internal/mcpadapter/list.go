package mcpadapter

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/mcpadapter/internal/wire"
)

// Pages of tools/list. go-sdk pages by count only; definitions are up to a
// few MiB each (abi.MaxDescribeSize), so a page of its thousand could pass
// the 16 MiB line limit of go-sdk's client and of our own reader, and one
// module's large definitions would take every tool away from such a
// client. A page holds at most maxPageTools tools and maxPageBytes bytes of
// definitions, but always at least one tool.
const (
	maxPageTools = 1000
	maxPageBytes = 2 << 20
)

// listTools answers tools/list from the host's tool set, with every field
// of each definition as the guest wrote it (go-sdk's Tool has no field for
// some, execution among them), in pages bounded by size.
func (a *Adapter) listTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/list" {
			return next(ctx, method, req)
		}
		var cursor string
		if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p != nil {
			cursor = p.Cursor
		}
		principal, _ := a.principal(req)
		tools, nextCursor, err := page(a.listed(principal), cursor)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		res := &mcp.ListToolsResult{NextCursor: nextCursor, Cacheable: private}
		return &toolList{ListToolsResult: res, tools: tools}, nil
	}
}

// page returns the definitions of one page of tools, sorted by name: those
// after the one cursor names, and the cursor of the next page ("" after the
// last).
func page(tools []host.Tool, cursor string) (defs []json.RawMessage, next string, err error) {
	start := 0
	if cursor != "" {
		after, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || !abi.ValidToolName(string(after)) {
			return nil, "", fmt.Errorf("invalid cursor %q", cursor)
		}
		start, _ = slices.BinarySearchFunc(tools, string(after), func(t host.Tool, name string) int {
			if t.Name <= name {
				return -1
			}
			return 1
		})
	}
	size := 0
	defs = []json.RawMessage{} // [] rather than null
	for i := start; i < len(tools); i++ {
		def, err := wire.Marshal(tools[i].Tool)
		if err != nil {
			return nil, "", fmt.Errorf("tool %s: %w", tools[i].Name, err)
		}
		if len(defs) > 0 && (len(defs) == maxPageTools || size+len(def) > maxPageBytes) {
			return defs, base64.RawURLEncoding.EncodeToString([]byte(tools[i-1].Name)), nil
		}
		defs = append(defs, def)
		size += len(def)
	}
	return defs, "", nil
}

// toolList is a ListToolsResult whose tools are the definitions' own JSON.
// It embeds go-sdk's type for everything else the SDK fills in (the result
// type of the 2026-07-28 protocol, _meta, cache hints).
type toolList struct {
	*mcp.ListToolsResult
	tools []json.RawMessage
}

// MarshalJSON writes <, > and & as they are, as go-sdk writes its own
// messages: json.Marshal's escapes would make a definition of them up to six
// times its size, more than a client reads in one message.
func (l *toolList) MarshalJSON() ([]byte, error) {
	b, err := wire.Marshal(l.ListToolsResult)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	if fields["tools"], err = wire.Marshal(l.tools); err != nil {
		return nil, err
	}
	return wire.Marshal(fields)
}

// awaitLoad makes a tools/call of a tool the host does not serve (yet), and
// any prompts/get, resources/read or completion, wait, while the host's
// first load is running, until it is over: a client that connects while
// large modules compile gets the tool rather than "unknown tool". The wait is bounded by the request's context and the host's call
// timeout.
// Subscribers see every module before the load is over, so once it is,
// go-sdk knows every tool the host does.
func (a *Adapter) awaitLoad(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call", "prompts/get", "resources/read", "completion/complete":
		default:
			return next(ctx, method, req)
		}
		select {
		case <-a.host.Loaded():
			return next(ctx, method, req)
		default:
		}
		p, isCall := req.GetParams().(*mcp.CallToolParamsRaw)
		if !isCall || p != nil && !a.serves(p.Name) && p.Name != callToolName {
			a.waitLoaded(ctx)
		}
		return next(ctx, method, req)
	}
}

// waitLoaded waits for the host's first load to be over, within the call
// timeout and ctx.
func (a *Adapter) waitLoaded(ctx context.Context) {
	wait, cancel := context.WithTimeout(ctx, a.opts.CallTimeout)
	defer cancel()
	select {
	case <-a.host.Loaded():
	case <-wait.Done():
	}
}

// serves reports whether tool is registered with go-sdk's servers now. The
// host lists a tool a moment before the adapter has registered it, and
// go-sdk answers a call of a tool it does not have with "unknown tool".
func (a *Adapter) serves(tool string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.registered[tool]
	return ok
}

// withErrorCodes gives an error without a JSON-RPC code one: go-sdk sends
// such an error (a second initialize, say) with code 0, which JSON-RPC does
// not define.
func withErrorCodes(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var rpcErr *jsonrpc.Error
		if err != nil && !errors.As(err, &rpcErr) {
			code := int64(jsonrpc.CodeInternalError)
			if method == "initialize" {
				code = jsonrpc.CodeInvalidRequest
			}
			err = &jsonrpc.Error{Code: code, Message: err.Error()}
		}
		return res, err
	}
}

// checkLogLevel refuses logging/setLevel with a level MCP does not define,
// as invalid params (go-sdk would store it and then compare levels with it).
func checkLogLevel(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "logging/setLevel" {
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && p != nil && !knownLevel(p.Level) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: fmt.Sprintf("unknown log level %q: want one of debug, info, notice, warning, error, critical, alert, emergency", p.Level)}
			}
		}
		return next(ctx, method, req)
	}
}

func knownLevel(l mcp.LoggingLevel) bool {
	for lv := abi.LogDebug; lv <= abi.LogEmergency; lv++ {
		if string(l) == lv.String() {
			return true
		}
	}
	return false
}
