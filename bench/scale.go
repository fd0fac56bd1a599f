package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
)

// startup is what one server start measured.
type startup struct {
	init, firstPage  time.Duration // from process start
	listAll          time.Duration // every page, from the first
	pages, tools     int
	firstCall, again time.Duration // a tool's first call, and its second
	rss, peak        int64
	heap             benchHeapStats // only from a server with a control channel
}

func runScale(ctx context.Context, e *env) (*section, error) {
	reps := e.n(1)
	mods, perMod := e.opts.modules, e.opts.perMod
	e.log.Info("scale: generating modules", "modules", mods, "tools", mods*perMod)
	dir, size, err := generateScaleModules(ctx, e, "scale-plugins", mods, perMod)
	if err != nil {
		return nil, err
	}
	one, _, err := generateScaleModules(ctx, e, "scale-one", 1, perMod)
	if err != nil {
		return nil, err
	}
	callTool := scaleTool(mods/2, perMod/2).Name

	var cold, warm, single, native []startup
	for rep := range reps {
		cache, err := e.dir(fmt.Sprintf("scale-cache-%d", rep))
		if err != nil {
			return nil, err
		}
		for _, c := range []struct {
			into *[]startup
			dir  string
			tool string
		}{{&cold, dir, callTool}, {&warm, dir, callTool}, {&single, one, scaleTool(0, perMod/2).Name}} {
			e.log.Info("scale: start", "dir", filepath.Base(c.dir), "rep", rep)
			p, err := e.wasmcpServer(ctx, "scale-"+filepath.Base(c.dir), nil, "serve", "-dir", c.dir, "-cache-dir", cache)
			if err != nil {
				return nil, err
			}
			m, err := measureStartup(ctx, e, p, c.tool)
			if err != nil {
				return nil, err
			}
			*c.into = append(*c.into, m)
		}
		e.log.Info("scale: start native", "rep", rep)
		p, err := e.benchServer("scale-native", roleNative, fmt.Sprintf("%s=%d,%d", scaleEnv, mods, perMod))
		if err != nil {
			return nil, err
		}
		m, err := measureStartup(ctx, e, p, callTool)
		if err != nil {
			return nil, err
		}
		native = append(native, m)
	}
	// The same warm start once more, asking the server how much of its
	// resident set is Go heap.
	e.log.Info("scale: heap breakdown")
	var heapEnv []string
	heapProfile, startProfile := "", ""
	if e.opts.profile != "" {
		heapProfile = filepath.Join(e.opts.profile, "scale-wasmcp.heap.pprof")
		startProfile = filepath.Join(e.opts.profile, "scale-wasmcp.start.cpu.pprof")
		heapEnv = append(heapEnv, benchStartProfileEnv+"="+startProfile)
	}
	p, err := e.wasmcpServer(ctx, "scale-wasmcp-heap", heapEnv, "serve", "-dir", dir, "-cache-dir", filepath.Join(e.work, "scale-cache-0"))
	if err != nil {
		return nil, err
	}
	hm, err := measureStartupProfile(ctx, e, p, callTool, heapProfile)
	if err != nil {
		return nil, err
	}
	for _, starts := range [][]startup{cold, warm, native} {
		if starts[0].tools != mods*perMod {
			return nil, fmt.Errorf("a server listed %d tools, want %d", starts[0].tools, mods*perMod)
		}
	}
	cm, wm, sm, nm := medianStartup(cold), medianStartup(warm), medianStartup(single), medianStartup(native)

	s := &section{
		Title: fmt.Sprintf("4. Scale: %d modules, %d tools", mods, mods*perMod),
		Intro: fmt.Sprintf("Generated WAT modules (%d KB each) of %d tools each, each tool with a 3-property input schema "+
			"(string with length bounds, bounded integer, enum). `wasmcp serve -dir D` started by a go-sdk client "+
			"(protocol %s): times from process start. Cold: empty compilation cache; warm: the cache the cold start "+
			"filled. Baselines: the same server with one such module, and a go-sdk server in Go registering the same "+
			"%d tool definitions natively. The first call is of `%s`, never called before; RSS is read after the "+
			"listing and the calls. Medians of %d start(s).",
			size/1024, perMod, e.opts.protocol, mods*perMod, callTool, reps),
	}
	t := table{Header: []string{"server", "initialized ms", "first tools/list page ms", "full listing ms (pages)",
		"first call ms", "second call ms", "RSS MiB", "peak RSS MiB"}}
	row := func(name string, m startup) []string {
		return []string{name, ms(m.init), ms(m.firstPage), fmt.Sprintf("%s (%d)", ms(m.listAll), m.pages),
			ms(m.firstCall), ms(m.again), mib(m.rss), mib(m.peak)}
	}
	t.Rows = append(t.Rows,
		row(fmt.Sprintf("wasmcp, %d modules, cold cache", mods), cm),
		row(fmt.Sprintf("wasmcp, %d modules, warm cache", mods), wm),
		row("wasmcp, 1 module, warm cache", sm),
		row(fmt.Sprintf("native go-sdk, %d tools", mods*perMod), nm))
	s.Tables = append(s.Tables, t)
	if mods > 1 {
		s.Notes = append(s.Notes, fmt.Sprintf("Per module beyond the first (warm): %.1f ms of start-up and %.0f KB of RSS.",
			float64(wm.firstPage-sm.firstPage)/float64(time.Millisecond)/float64(mods-1),
			float64(wm.rss-sm.rss)/1024/float64(mods-1)))
	}
	s.Notes = append(s.Notes, fmt.Sprintf("Where the memory is (the same warm start once more, the server asked for its "+
		"runtime.MemStats): RSS %s MiB, of which Go heap in use %s MiB and goroutine stacks %s MiB; the Go runtime holds "+
		"%s MiB from the OS in all. The rest of the RSS is outside the Go heap: wazero's mmapped machine code and "+
		"the runtime's own overhead.", mib(hm.rss), mib(int64(hm.heap.HeapInuse)), mib(int64(hm.heap.StackInuse)),
		mib(int64(hm.heap.Sys))))
	if heapProfile != "" {
		s.Notes = append(s.Notes, fmt.Sprintf("Profiles of that server: %s, its heap after listing and calls "+
			"(`go tool pprof -sample_index=inuse_space`); %s, its CPU from process start to then.", heapProfile, startProfile))
	}
	s.addRatio("warm-start-over-target", fmt.Sprintf("%d modules: warm start to first tools/list page ÷ 2 s target", mods),
		float64(wm.firstPage), float64(2*time.Second), "≤ 1", "process start → first page")
	s.addRatio("rss-over-target", fmt.Sprintf("%d modules: RSS ÷ 1 GiB target", mods), float64(wm.rss), 1<<30, "≤ 1", "VmRSS after listing and calls")
	s.addRatio("rss-over-native", "RSS, wasmcp ÷ native go-sdk with the same tools", float64(wm.rss), float64(nm.rss), "", "VmRSS")
	s.addRatio("list-over-native", "full tools/list, wasmcp ÷ native go-sdk", float64(wm.listAll), float64(nm.listAll), "", "all pages")
	s.addRatio("start-over-native", "start-up to first page, wasmcp warm ÷ native go-sdk", float64(wm.firstPage), float64(nm.firstPage), "", "process start → first page")
	s.value("cold-first-page", float64(cm.firstPage))
	s.value("first-call", float64(wm.firstCall))
	return s, nil
}

// measureStartup starts p with a go-sdk client and takes the measurements
// of a startup.
func measureStartup(ctx context.Context, e *env, p *proc, tool string) (m startup, err error) {
	return measureStartupProfile(ctx, e, p, tool, "")
}

// measureStartupProfile is measureStartup that also asks a server with a
// control channel for its heap figures, and its heap profile when
// heapProfile is not empty.
func measureStartupProfile(ctx context.Context, e *env, p *proc, tool, heapProfile string) (m startup, err error) {
	defer p.close()
	start := time.Now()
	cs, err := e.sdkClient(ctx, p, nil)
	if err != nil {
		return m, err
	}
	defer cs.Close()
	m.init = time.Since(start)
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return m, err
	}
	m.firstPage = time.Since(start)

	listStart := time.Now()
	var cursor string
	for {
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return m, err
		}
		m.pages++
		m.tools += len(res.Tools)
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	m.listAll = time.Since(listStart)

	for _, d := range []*time.Duration{&m.firstCall, &m.again} {
		callStart := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"message": "hi"}})
		if err != nil {
			return m, err
		}
		if res.IsError {
			return m, fmt.Errorf("%s: call of %s failed: %+v", p.name, tool, res.Content)
		}
		*d = time.Since(callStart)
	}
	if m.rss, m.peak, err = p.memory(); err != nil {
		return m, err
	}
	if p.ctrl != nil {
		m.heap, err = p.heap(heapProfile)
	}
	return m, err
}

// medianStartup returns the startup of median time to the first page.
func medianStartup(starts []startup) startup {
	best := starts[0]
	if len(starts) > 2 {
		d := make([]time.Duration, len(starts))
		for i, m := range starts {
			d[i] = m.firstPage
		}
		p50 := summarize(d).P50
		for _, m := range starts {
			if m.firstPage == p50 {
				best = m
			}
		}
	}
	return best
}

// generateScaleModules writes mods generated modules of perMod tools each
// into a fresh directory of the work directory, and returns it and the size
// of one module.
func generateScaleModules(ctx context.Context, e *env, name string, mods, perMod int) (string, int, error) {
	dir, err := e.dir(name)
	if err != nil {
		return "", 0, err
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		size int
	)
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for m := range next {
				tools := make([]abi.Tool, perMod)
				for k := range tools {
					tools[k] = scaleTool(m, k)
				}
				wasm, err := renderGuest(tools, scaleAnswer, 0)
				if err == nil {
					err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%04d.wasm", m)), wasm, 0o644)
				}
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				}
				size = len(wasm)
				mu.Unlock()
			}
		})
	}
	for m := range mods {
		if ctx.Err() != nil {
			break
		}
		next <- m
	}
	close(next)
	wg.Wait()
	return dir, size, errors.Join(append(errs, ctx.Err())...)
}
