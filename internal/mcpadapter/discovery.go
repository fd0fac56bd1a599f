package mcpadapter

// Progressive discovery: two tools of the server's own that find the tools
// a caller may see and call one by name, for clients that cap how many
// tools they take or ignore list_changed, and for servers of many tools.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"iter"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
)

// Discovery says whether the server offers its discovery tools.
type Discovery string

const (
	// DiscoveryOff lists the plugins' tools alone.
	DiscoveryOff Discovery = ""
	// DiscoveryOnly lists the two discovery tools in place of the
	// plugins' tools, which stay callable by name.
	DiscoveryOnly Discovery = "only"
	// DiscoveryBeside lists the discovery tools beside the plugins'.
	DiscoveryBeside Discovery = "beside"
)

// ParseDiscovery reads a Discovery from its name: "off", "only" or
// "beside".
func ParseDiscovery(s string) (Discovery, error) {
	switch s {
	case "", "off":
		return DiscoveryOff, nil
	case "only", "beside":
		return Discovery(s), nil
	}
	return DiscoveryOff, fmt.Errorf("discovery %q is none of off, only, beside", s)
}

// The discovery tools' names, which no plugin may serve (abi.Reserved).
const (
	SearchToolName = abi.SearchToolName
	CallToolName   = abi.CallToolName
	searchToolName = SearchToolName
	callToolName   = CallToolName
)

// Bounds of a search.
const (
	maxQueryWords   = 32 // at most 64: score keeps a bit per word
	maxQueryBytes   = 4 << 10
	defaultPageSize = 10
	maxPageSize     = 50
)

// discoveryTools are the two tools' definitions.
var discoveryTools = []host.Tool{
	{Plugin: "wasmcp", Tool: toolDef(searchToolName, "Search tools",
		"Finds the tools you can call on this server. Give a few words of what you want to do (such as "+
			"\"convert json to yaml\" or \"fetch web page\"); it returns the best matching tools with their "+
			"names, descriptions and input schemas, best first. Search again with other words when none fits. "+
			"Call a tool it finds with "+callToolName+". An empty query lists every tool, a page at a time.",
		`{"type":"object","properties":{
			"query":{"type":"string","description":"Words of what you want to do, matched against the tools' names, titles and descriptions."},
			"limit":{"type":"integer","minimum":1,"maximum":50,"description":"Most tools to return (default 10)."},
			"cursor":{"type":"string","description":"nextCursor of the previous page, to get the next one."}},
			"additionalProperties":false}`,
		`{"type":"object","properties":{
			"tools":{"type":"array","items":{"type":"object","properties":{
				"name":{"type":"string"},"title":{"type":"string"},"description":{"type":"string"},
				"inputSchema":{"type":"object"},"outputSchema":{"type":"object"}},"required":["name","inputSchema"]}},
			"total":{"type":"integer","description":"How many tools match in all."},
			"nextCursor":{"type":"string","description":"Pass it as cursor for more; absent after the last page."}},
			"required":["tools","total"]}`, true)},
	{Plugin: "wasmcp", Tool: toolDef(callToolName, "Call a tool",
		"Calls a tool that "+searchToolName+" found, by its exact name, with arguments that follow its "+
			"inputSchema. It returns what the tool returns.",
		`{"type":"object","properties":{
			"name":{"type":"string","description":"The tool's exact name, as `+searchToolName+` gave it."},
			"arguments":{"type":"object","description":"The tool's arguments, as its inputSchema describes them."}},
			"required":["name"],"additionalProperties":false}`,
		`{"type":"object","description":"The tool's own structured content; {} when it has none."}`, false)},
}

// toolDef is the definition of a discovery tool.
func toolDef(name, title, description, input, output string, readOnly bool) (t abi.Tool) {
	t.Name, t.Title, t.Description = name, title, description
	t.InputSchema, t.OutputSchema = compactJSON(input), compactJSON(output)
	t.Annotations = &abi.ToolAnnotations{ReadOnlyHint: &readOnly}
	return t
}

func compactJSON(s string) json.RawMessage {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err) // the literals above
	}
	b, _ := json.Marshal(v)
	return b
}

// listed are the tools tools/list shows principal, given the mode.
func (a *Adapter) listed(principal *host.Principal) []host.Tool {
	switch a.opts.Discovery {
	case DiscoveryOnly:
		return discoveryTools
	case DiscoveryBeside:
		tools := append(a.host.ToolsFor(principal), discoveryTools...)
		slices.SortFunc(tools, func(x, y host.Tool) int { return strings.Compare(x.Name, y.Name) })
		return tools
	}
	return a.host.ToolsFor(principal)
}

// registerDiscovery adds the discovery tools to s.
func (a *Adapter) registerDiscovery(s *mcp.Server, stateless bool) {
	if a.opts.Discovery == DiscoveryOff {
		return
	}
	s.AddTool(toMCPTool(discoveryTools[0].Tool), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return a.search(req)
	})
	s.AddTool(toMCPTool(discoveryTools[1].Tool), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return a.dispatch(ctx, req, stateless)
	})
}

// searchArgs are wasmcp_search_tools's arguments.
type searchArgs struct {
	Query  string `json:"query"`
	Limit  int    `json:"limit"`
	Cursor string `json:"cursor"`
}

// found is one tool of a search's answer.
type found struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// search answers wasmcp_search_tools: the tools the caller sees that match
// the most words of the query, best first, a page at a time. The words
// are matched as words: a query of regular expression syntax is only
// words and punctuation.
func (a *Adapter) search(req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args searchArgs
	if err := decodeArgs(req.Params.Arguments, &args); err != nil {
		return toolError(fmt.Sprintf("%s: %v", searchToolName, err)), nil
	}
	if args.Limit <= 0 {
		args.Limit = defaultPageSize
	}
	args.Limit = min(args.Limit, maxPageSize)
	start := 0
	if args.Cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(args.Cursor)
		if start, err = strconv.Atoi(string(b)); err != nil || start < 0 {
			return toolError(fmt.Sprintf("%s: invalid cursor %q: pass nextCursor as it was given", searchToolName, args.Cursor)), nil
		}
	}
	principal, _ := a.principal(req)
	words := queryWords(args.Query)
	type scored struct {
		t     host.Tool
		score int
	}
	var hits []scored
	for _, t := range a.host.ToolsFor(principal) {
		if s := score(t, words); s > 0 || len(words) == 0 {
			hits = append(hits, scored{t, s})
		}
	}
	slices.SortStableFunc(hits, func(x, y scored) int { return y.score - x.score }) // ToolsFor sorts by name
	out := struct {
		Tools      []found `json:"tools"`
		Total      int     `json:"total"`
		NextCursor string  `json:"nextCursor,omitempty"`
	}{Tools: []found{}, Total: len(hits)}
	for i := start; i < len(hits) && len(out.Tools) < args.Limit; i++ {
		t := hits[i].t
		out.Tools = append(out.Tools, found{t.Name, t.Title, t.Description, t.InputSchema, t.OutputSchema})
		if i+1 < len(hits) && len(out.Tools) == args.Limit {
			out.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(i + 1)))
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
}

// queryWords are the lower-case words of a query (see words), the first
// maxQueryWords of its first maxQueryBytes.
func queryWords(q string) []string {
	if len(q) > maxQueryBytes {
		q = q[:maxQueryBytes]
	}
	var ws []string
	for w := range words(q) {
		ws = append(ws, strings.ToLower(w))
	}
	slices.Sort(ws)
	ws = slices.Compact(ws)
	return ws[:min(len(ws), maxQueryWords)]
}

// words yields the words of s: runs of letters and digits, a camelCase run
// cut where a capital follows a small letter; everything else separates.
func words(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start, prev := -1, rune(0)
		for i, r := range s {
			alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
			if start >= 0 && (!alnum || unicode.IsUpper(r) && unicode.IsLower(prev)) {
				if !yield(s[start:i]) {
					return
				}
				start = -1
			}
			if alnum && start < 0 {
				start = i
			}
			prev = r
		}
		if start >= 0 {
			yield(s[start:])
		}
	}
}

// score counts the query's words that begin a word of a tool's name (three
// times) or of its title and description: whole words, so that "in" does
// not match "links", and beginnings, so that "fetch" matches "fetches".
func score(t host.Tool, query []string) int {
	inName := matched(query, t.Name)
	inText := matched(query, t.Title) | matched(query, t.Description)
	return 3*bits.OnesCount64(inName) + bits.OnesCount64(inText&^inName)
}

// matched has bit i set when query[i], lower case, begins a word of s in
// any case.
func matched(query []string, s string) (m uint64) {
	for x := range words(s) {
		for i, w := range query {
			if len(x) >= len(w) && strings.EqualFold(x[:len(w)], w) {
				m |= 1 << i
			}
		}
	}
	return m
}

// dispatch answers wasmcp_call_tool: the tool named runs as if the client
// had called it, with the same checks, views, limits, audit line and
// telemetry; a tool the caller does not see is unknown, as for a direct
// call.
func (a *Adapter) dispatch(ctx context.Context, req *mcp.CallToolRequest, stateless bool) (*mcp.CallToolResult, error) {
	var args struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := decodeArgs(req.Params.Arguments, &args); err != nil {
		return toolError(fmt.Sprintf("%s: %v", callToolName, err)), nil
	}
	if args.Name == searchToolName || args.Name == callToolName {
		return toolError(fmt.Sprintf("%s: call %s directly", callToolName, args.Name)), nil
	}
	inner := *req
	params := *req.Params
	params.Name, params.Arguments = args.Name, args.Arguments
	inner.Params = &params
	if !a.serves(args.Name) {
		a.waitLoaded(ctx) // the tool may be in a module still loading
	}
	if !a.serves(args.Name) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", args.Name)}
	}
	return a.handle(ctx, &inner, stateless)
}

// decodeArgs decodes a discovery tool's arguments, which go-sdk's low-level
// path does not validate.
func decodeArgs(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

// toolError is a tool error result of one text.
func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true}
}
