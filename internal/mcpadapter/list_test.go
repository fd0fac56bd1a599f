package mcpadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
)

// tools/list pages by size: large definitions never make one page larger
// than the limit (but for one definition larger than it alone), and the
// pages together hold every tool once.
func TestListToolsPagesBySize(t *testing.T) {
	h := &fakeHost{}
	big := strings.Repeat("d", 300<<10)
	for i := range 40 {
		tl := tool(fmt.Sprintf("t%02d", i), `{"type":"object"}`)
		tl.Description = big
		h.tools = append(h.tools, tl)
	}
	huge := tool("z-huge", `{"type":"object"}`)
	huge.Description = strings.Repeat("h", 3<<20)
	h.tools = append(h.tools, huge)
	a := New(h, Options{})
	defer a.Close()
	c := connect(t, a, legacy)
	ctx := testContext(t)
	seen := map[string]bool{}
	cursor, pages := "", 0
	for {
		res, err := c.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		size := 0
		for _, tl := range res.Tools {
			if seen[tl.Name] {
				t.Fatalf("%s listed twice", tl.Name)
			}
			seen[tl.Name] = true
			size += len(tl.Description)
		}
		if size > maxPageBytes && len(res.Tools) > 1 {
			t.Errorf("page %d holds %d bytes of descriptions in %d tools", pages, size, len(res.Tools))
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if len(seen) != 41 || pages < 7 {
		t.Errorf("%d tools in %d pages, want 41 in several", len(seen), pages)
	}
	_, err := c.ListTools(ctx, &mcp.ListToolsParams{Cursor: "not a cursor!"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("invalid cursor: %v, want -32602", err)
	}
}

// Every field of a definition reaches the client, those go-sdk's Tool type
// lacks included.
func TestListToolsPassesEveryField(t *testing.T) {
	tl := tool("x", `{"type":"object"}`)
	tl.Icons = []abi.Icon{{Src: "https://example.com/x.png", Sizes: []string{"48x48"}, Theme: "dark"}}
	tl.Execution = &abi.ToolExecution{TaskSupport: abi.TaskForbidden}
	c := rawServe(t, &fakeHost{tools: []host.Tool{tl}}, 0)
	c.initialize(legacy)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var resp struct {
		Result struct{ Tools []json.RawMessage }
	}
	line := c.next()
	if err := json.Unmarshal([]byte(line), &resp); err != nil || len(resp.Result.Tools) != 1 {
		t.Fatalf("tools/list: %s", line)
	}
	assertJSON(t, "tool", resp.Result.Tools[0], `{"name":"x","description":"x tool","inputSchema":{"type":"object"},`+
		`"icons":[{"src":"https://example.com/x.png","sizes":["48x48"],"theme":"dark"}],"execution":{"taskSupport":"forbidden"}}`)
}

// A call of a tool the host does not serve yet waits for its first load.
func TestCallWaitsForFirstLoad(t *testing.T) {
	h := &fakeHost{loaded: make(chan struct{})}
	h.call = func(_ context.Context, req host.CallRequest) (*host.Result, error) {
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text(req.Tool + " ran")}}}, nil
	}
	a := New(h, Options{})
	defer a.Close()
	c := connect(t, a, legacy)
	ctx := testContext(t)
	answered := make(chan string, 1)
	go func() {
		res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "late"})
		if err != nil {
			answered <- err.Error()
			return
		}
		answered <- textOf(res)
	}()
	h.emit(host.Change{Added: []host.Tool{tool("late", `{"type":"object"}`)}})
	close(h.loaded)
	if got := <-answered; got != "late ran" {
		t.Errorf("call during the first load = %q, want the tool's answer", got)
	}
	// Once loaded, an unknown tool is -32602 at once.
	if _, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "never"}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("unknown tool after the load: %v", err)
	}
}
