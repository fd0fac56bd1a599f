package e2e

import (
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The discovery tools' names (abi.SearchToolName, abi.CallToolName), as a
// client knows them: from tools/list.
const (
	searchTool = "wasmcp_search_tools"
	callTool   = "wasmcp_call_tool"
)

// discoveryPolicy turns discovery on ("only") and gives the local principal
// (stdio, and HTTP with the shared token) a view of the C example less its
// get-tiny-image, and of the module hello; structured.wasm, served beside,
// is out of its sight.
var discoveryPolicy = filepath.Join("testdata", "discovery-policy.json")

// inView are the tools the policy's view shows before hello arrives.
var inView = []string{"echo", "get-error", "get-resource-links", "get-structured-content", "get-sum"}

// found is one tool of a search's answer.
type found struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// searched is a search's answer.
type searched struct {
	Tools      []found `json:"tools"`
	Total      int     `json:"total"`
	NextCursor string  `json:"nextCursor"`
}

func (s *searched) names() []string {
	var names []string
	for _, f := range s.Tools {
		names = append(names, f.Name)
	}
	return names
}

// search calls the search tool with args and decodes its answer.
func (s *server) search(t *testing.T, args map[string]any) searched {
	t.Helper()
	raw, _ := json.Marshal(args)
	res := s.call(t, searchTool, string(raw))
	if res.IsError {
		t.Fatalf("search %.100s: %s", raw, text(res))
	}
	var out searched
	structured(t, res, &out)
	for _, f := range out.Tools {
		if len(f.InputSchema) == 0 {
			t.Errorf("search: %s comes without its inputSchema", f.Name)
		}
	}
	return out
}

// dispatch calls name with args (JSON text) through the call tool.
func (s *server) dispatch(t *testing.T, name, args string) (*mcp.CallToolResult, error) {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"name": name, "arguments": json.RawMessage(args)})
	return s.callErr(t, callTool, string(raw))
}

// TestDiscoveryWithViews drives the discovery tools from go-sdk's client,
// over stdio (the local principal) and over HTTP with the shared token
// (the same principal), with the policy's views applied: a search finds
// only the tools in the caller's view, a call through the call tool of a
// tool out of sight is unknown as a direct call is, regular expression
// syntax and a megabyte query are words, and a module dropped into the
// directory is found by the next search.
func TestDiscoveryWithViews(t *testing.T) {
	for _, overHTTP := range []bool{false, true} {
		t.Run(map[bool]string{false: "stdio", true: "http"}[overHTTP], func(t *testing.T) {
			dir := servedCopy(t, filepath.Join(examplesDir, "examples-c.wasm"), wat("structured"))
			s := startServer(t, dir, serverOptions{protocol: legacyProtocol, http: overHTTP, args: []string{"--config", discoveryPolicy}})
			if got := slices.Sorted(maps.Keys(s.tools(t))); !slices.Equal(got, []string{callTool, searchTool}) {
				t.Fatalf("tools/list: %v, want the discovery tools alone (the policy's \"discovery\": \"only\")", got)
			}

			// Every tool in view, a page at a time; nothing else.
			var all []string
			cursor := ""
			for range len(inView) {
				page := s.search(t, map[string]any{"limit": 2, "cursor": cursor})
				if page.Total != len(inView) {
					t.Errorf("empty query: total %d, want %d", page.Total, len(inView))
				}
				all = append(all, page.names()...)
				if cursor = page.NextCursor; cursor == "" {
					break
				}
			}
			if slices.Sort(all); !slices.Equal(all, inView) {
				t.Errorf("empty query, paged: %v, want the view's %v", all, inView)
			}
			if got := s.search(t, map[string]any{"query": "weather of a city"}); len(got.Tools) == 0 || got.Tools[0].Name != "get-structured-content" {
				t.Errorf("weather: %v, want get-structured-content first", got.names())
			}
			for _, q := range []string{"tiny png image", "violate malformed quiet"} { // get-tiny-image is denied, structured.wasm's tools not allowed
				if got := s.search(t, map[string]any{"query": q}); got.Total != 0 {
					t.Errorf("%q found %v, out of the caller's view", q, got.names())
				}
			}
			// Regular expression syntax is words and punctuation; a query
			// of a megabyte is cut, not refused, and costs no backtracking.
			if got := s.search(t, map[string]any{"query": `sum.*(numbers|[0-9]+)?\`}); len(got.Tools) == 0 || got.Tools[0].Name != "get-sum" {
				t.Errorf("metacharacters: %v, want get-sum first", got.names())
			}
			huge := strings.Repeat(`echo.*(message)+|[^\]{1,}\ `, 1<<20/27)
			start := time.Now()
			if got := s.search(t, map[string]any{"query": huge}); len(got.Tools) == 0 || got.Tools[0].Name != "echo" {
				t.Errorf("a query of %d bytes: %v, want echo first", len(huge), got.names())
			}
			t.Logf("a search of %d bytes answered in %s", len(huge), time.Since(start))

			// Calls through the call tool are direct calls: the same
			// answers, validation and view.
			res, err := s.dispatch(t, "echo", `{"message":"through discovery"}`)
			if err != nil || res.IsError || text(res) != "Echo: through discovery" {
				t.Errorf("echo through the call tool: %+v, %v", res, err)
			}
			res, err = s.dispatch(t, "get-structured-content", `{"location":"Chicago"}`)
			var weather struct{ Conditions string }
			if err == nil && !res.IsError {
				structured(t, res, &weather)
			}
			if err != nil || res.IsError || weather.Conditions == "" {
				t.Errorf("get-structured-content through the call tool: %+v, %v", res, err)
			}
			if res, err := s.dispatch(t, "echo", `{"message":7}`); err != nil || !res.IsError || !strings.Contains(text(res), "message") {
				t.Errorf("echo with a number through the call tool: %+v, %v; want the validation's tool error", res, err)
			}
			for _, name := range []string{"get-tiny-image", "fail", "no-such-tool"} {
				_, viaCall := s.dispatch(t, name, `{}`)
				_, direct := s.callErr(t, name, `{}`)
				for how, err := range map[string]error{"through the call tool": viaCall, "directly": direct} {
					if je, ok := errors.AsType[*jsonrpc.Error](err); !ok || je.Code != jsonrpc.CodeInvalidParams {
						t.Errorf("%s, out of view, called %s: %v; want -32602", name, how, err)
					}
				}
			}

			// A module dropped in is found by the next search, whatever the
			// client does with list_changed.
			copyFile(t, wat("hello"), filepath.Join(dir, "hello.wasm"))
			landed := time.Now()
			for {
				if got := s.search(t, map[string]any{"query": "hot reload"}); slices.Contains(got.names(), "hello") {
					break
				}
				if time.Since(landed) > time.Minute {
					t.Fatalf("a minute after hello.wasm landed, a search does not find its tool\nserver log:\n%s", s.stderr)
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Logf("hello found by a search %s after its module landed", time.Since(landed).Round(time.Millisecond))
			if res, err := s.dispatch(t, "hello", `{}`); err != nil || res.IsError || text(res) != "hello from a hot-loaded module" {
				t.Errorf("hello through the call tool: %+v, %v", res, err)
			}
		})
	}
}

// TestDiscoveryBeside lists the plugins' tools and the discovery tools
// together when -discovery beside overrides the policy's "only".
func TestDiscoveryBeside(t *testing.T) {
	dir := servedCopy(t, filepath.Join(examplesDir, "examples-c.wasm"), wat("structured"))
	s := startServer(t, dir, serverOptions{protocol: legacyProtocol, args: []string{"--config", discoveryPolicy, "--discovery", "beside"}})
	want := slices.Sorted(slices.Values(append([]string{callTool, searchTool}, inView...)))
	if got := slices.Sorted(maps.Keys(s.tools(t))); !slices.Equal(got, want) {
		t.Errorf("tools/list: %v, want %v", got, want)
	}
}
