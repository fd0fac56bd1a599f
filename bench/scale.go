package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
)

// Targets of the scale experiment.
const (
	scaleStartTarget = 2 * time.Second
	scaleRSSTarget   = 1 << 30
	// scalePerModule is the number of tools of each generated module.
	scalePerModule = 10
	// scalePatience bounds the wait for every tool to be listed.
	scalePatience = 5 * time.Minute
)

// scaleAnswer is the text every generated tool returns.
const scaleAnswer = "ok"

// runScale starts `wasmcp serve` on a directory of generated modules, first
// with an empty compilation cache (which fills it), then warm, and times the
// warm start from spawning the process to a client's listing of every tool,
// and reads the server's peak resident set after the listing and a call.
func runScale(ctx context.Context, e *env) ([]row, error) {
	mods := e.opts.modules
	if e.opts.quick {
		mods = 3
	}
	tools := mods * scalePerModule
	e.log.Info("scale: generating modules", "modules", mods, "tools", tools)
	dir, err := generateScaleModules(e, "scale-plugins", mods)
	if err != nil {
		return nil, err
	}
	tool := scaleTool(mods/2, scalePerModule/2).Name
	start := row{name: fmt.Sprintf("%d modules / %d tools: warm start, spawn → every tool listed ÷ %s", mods, tools, ms(scaleStartTarget)),
		floor: atMost(1)}
	rss := row{name: fmt.Sprintf("%d modules / %d tools: peak RSS after the listing and a call ÷ 1 GiB", mods, tools),
		floor: atMost(1)}
	for i := range e.opts.reps {
		cache, err := e.dir(fmt.Sprintf("scale-cache-%d", i))
		if err != nil {
			return nil, err
		}
		var m [2]scaleStartup // cold, warm
		for j, kind := range []string{"cold", "warm"} {
			if m[j], err = scaleStart(ctx, e, fmt.Sprintf("scale-%s-%d", kind, i), dir, cache, tools, tool); err != nil {
				return []row{start, rss}, fmt.Errorf("%s start: %w", kind, err)
			}
		}
		e.log.Info("scale", "rep", i, "cold", m[0].ready, "warm", m[1].ready, "peak RSS MiB", m[1].peak>>20)
		start.add(float64(m[1].ready), float64(scaleStartTarget), ms(m[1].ready), ms(scaleStartTarget))
		rss.add(float64(m[1].peak), scaleRSSTarget, mib(m[1].peak), mib(scaleRSSTarget))
	}
	return []row{start, rss}, nil
}

// scaleStartup is what one start of the scale experiment measured.
type scaleStartup struct {
	ready     time.Duration // from spawn to every tool listed
	rss, peak int64
}

// scaleStart serves dir with the compilation cache in cache and measures its
// start: every page of tools/list, until it lists tools tools (those that
// load in the background arrive with list_changed), then a call of tool.
func scaleStart(ctx context.Context, e *env, name, dir, cache string, tools int, tool string) (m scaleStartup, err error) {
	cmd, err := e.wasmcpCmd(name, "serve", "-dir", dir, "-cache-dir", cache)
	if err != nil {
		return m, err
	}
	changed := make(chan struct{}, 1)
	start := time.Now()
	cs, err := connectStdio(ctx, cmd, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	if err != nil {
		return m, err
	}
	defer cs.Close()
	deadline := time.After(scalePatience)
	for {
		n, err := countTools(ctx, cs)
		if err != nil {
			return m, err
		}
		if n == tools {
			break
		}
		if n > tools {
			return m, fmt.Errorf("%d tools listed, want %d", n, tools)
		}
		select {
		case <-changed:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			return m, fmt.Errorf("%d of %d tools listed after %v", n, tools, scalePatience)
		case <-ctx.Done():
			return m, ctx.Err()
		}
	}
	m.ready = time.Since(start)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"message": "hi"}})
	if err != nil {
		return m, err
	}
	if res.IsError {
		return m, fmt.Errorf("call of %s failed: %+v", tool, res.Content)
	}
	m.rss, m.peak, err = memory(cmd.Process.Pid)
	return m, err
}

// countTools lists every page of tools and returns their number.
func countTools(ctx context.Context, cs *mcp.ClientSession) (int, error) {
	tools, err := listTools(ctx, cs)
	return len(tools), err
}

// listTools lists every page of tools.
func listTools(ctx context.Context, cs *mcp.ClientSession) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if t != nil {
			tools = append(tools, t)
		}
	}
	return tools, nil
}

// generateScaleModules writes mods generated modules of scalePerModule tools
// each, m0000.wasm and on, into a fresh directory name of the work
// directory.
func generateScaleModules(e *env, name string, mods int) (string, error) {
	dir, err := e.dir(name)
	if err != nil {
		return "", err
	}
	for m := range mods {
		wasm, err := scaleModule(m, "")
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, scaleFile(m)), wasm, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// scaleFile is the file name of generated module m.
func scaleFile(m int) string { return fmt.Sprintf("m%04d.wasm", m) }

// scaleModule is generated module m; a version other than "" ends each
// tool's description with it, a new version of the module.
func scaleModule(m int, version string) ([]byte, error) {
	tools := make([]abi.Tool, scalePerModule)
	for k := range tools {
		tools[k] = scaleTool(m, k)
		if version != "" {
			tools[k].Description += " " + version
		}
	}
	return generateGuest(tools, scaleAnswer)
}

// scaleTool is tool k of generated module m. Its schema is of the size and
// kind real tools have, so that compiling the schemas of 10,000 tools costs
// what it would.
func scaleTool(m, k int) abi.Tool {
	return abi.Tool{
		Name:        fmt.Sprintf("m%04d_t%02d", m, k),
		Description: fmt.Sprintf("Tool %d of generated module %d: looks a message up and returns a fixed answer.", k, m),
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"message":{"type":"string","description":"The message.","minLength":1,"maxLength":4096},` +
			`"count":{"type":"integer","description":"How many times.","minimum":1,"maximum":100},` +
			`"mode":{"type":"string","enum":["fast","thorough"],"description":"How hard to look."}},` +
			`"required":["message"],"additionalProperties":false}`),
	}
}
