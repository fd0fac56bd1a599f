package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/sandbox"
)

// deadlineTimeout is the deadline every call runs under, as in the host:
// the context has a deadline whether or not the runtime enforces it.
const deadlineTimeout = 30 * time.Second

// A workload is one guest tool call, repeated reps times per sample.
type workload struct {
	name   string
	module func(context.Context, *env) ([]byte, error)
	tool   string
	args   []byte
	reps   int
}

// A guestRunner calls a guest's tools through wazero directly, with or
// without close-on-context-done and otherwise alike, so that the flag is the
// only difference. host/sandbox uses neither: it keeps its deadline with the
// fuel of its own instrumentation (host/sandbox/interrupt.go).
type guestRunner struct {
	rt          wazero.Runtime
	mod         api.Module
	alloc, call api.Function
}

func newGuestRunner(ctx context.Context, wasm []byte, enforce bool, cache wazero.CompilationCache) (*guestRunner, error) {
	cfg := wazero.NewRuntimeConfig().WithCloseOnContextDone(enforce)
	if cache != nil {
		cfg = cfg.WithCompilationCache(cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	g := &guestRunner{rt: rt}
	if err := g.init(ctx, wasm); err != nil {
		rt.Close(ctx)
		return nil, err
	}
	return g, nil
}

func (g *guestRunner) init(ctx context.Context, wasm []byte) error {
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, g.rt); err != nil {
		return err
	}
	compiled, err := g.rt.CompileModule(ctx, wasm)
	if err != nil {
		return err
	}
	// Every host function the guest imports does nothing and returns
	// zeros: what the workloads measure is guest code, and the bench keeps
	// working whatever functions later revisions of the ABI add.
	host := g.rt.NewHostModuleBuilder(abi.ImportModule)
	for _, f := range compiled.ImportedFunctions() {
		if mod, name, _ := f.Import(); mod == abi.ImportModule {
			host.NewFunctionBuilder().
				WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) {
					clear(stack)
				}), f.ParamTypes(), f.ResultTypes()).
				Export(name)
		}
	}
	if _, err := host.Instantiate(ctx); err != nil {
		return err
	}
	g.mod, err = g.rt.InstantiateModule(ctx, compiled,
		wazero.NewModuleConfig().WithName("").WithStartFunctions(abi.ExportInitialize))
	if err != nil {
		return err
	}
	g.alloc, g.call = g.mod.ExportedFunction(abi.ExportAlloc), g.mod.ExportedFunction(abi.ExportCall)
	return nil
}

// run calls tool with args per ABI.md section 3 and returns a copy of the
// result document.
func (g *guestRunner) run(ctx context.Context, tool string, args []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, deadlineTimeout)
	defer cancel()
	res, err := g.alloc.Call(ctx, uint64(len(tool)+len(args)))
	if err != nil {
		return nil, err
	}
	ptr, mem := uint32(res[0]), g.mod.Memory()
	if ptr == 0 || !mem.Write(ptr, []byte(tool)) || !mem.Write(ptr+uint32(len(tool)), args) {
		return nil, fmt.Errorf("%s returned %d for %d bytes", abi.ExportAlloc, ptr, len(tool)+len(args))
	}
	res, err = g.call.Call(ctx, uint64(ptr), uint64(len(tool)), uint64(ptr)+uint64(len(tool)), uint64(len(args)))
	if err != nil {
		return nil, err
	}
	rp, rn := abi.Unpack(res[0])
	out, ok := mem.Read(rp, rn)
	if !ok || rn == 0 {
		return nil, fmt.Errorf("%s returned the region %d+%d", abi.ExportCall, rp, rn)
	}
	return append([]byte(nil), out...), nil
}

func (g *guestRunner) close(ctx context.Context) { g.rt.Close(ctx) }

// deadlineWorkloads are loop-heavy calls of the bundled Go plugins, the
// tiny echo calls of the Go and C examples (where the fixed cost per call
// shows), and a tight loop in a WAT guest (no Go runtime in the way).
func deadlineWorkloads(quick bool) []workload {
	goGuest := func(pkg string) func(context.Context, *env) ([]byte, error) {
		return func(ctx context.Context, e *env) ([]byte, error) {
			p, err := e.goGuest(ctx, pkg)
			if err != nil {
				return nil, err
			}
			return os.ReadFile(p)
		}
	}
	cGuest := func(_ context.Context, e *env) ([]byte, error) {
		p, err := e.cGuest()
		if err != nil {
			return nil, err
		}
		return os.ReadFile(p)
	}
	// Sizes: large enough that a call takes tens of milliseconds, small
	// enough that the Go guests' garbage collector does not dominate.
	lines, objects, bytes, reps, spin := 1000, 1000, 256<<10, 1000, 10_000_000
	if quick {
		lines, objects, bytes, reps, spin = 20, 20, 1<<10, 5, 1000
	}
	echo := mustJSON(echoArgs{Message: echoMessage})
	return []workload{
		{fmt.Sprintf("Go guest: text unified_diff, 2 × %d lines", lines), goGuest("plugins/text"), "unified_diff", diffArgs(lines), 1},
		{fmt.Sprintf("Go guest: jq over %d objects", objects), goGuest("plugins/jq"), "jq", jqArgs(objects), 1},
		{fmt.Sprintf("Go guest: hash sha256 of %d KiB", bytes>>10), goGuest("plugins/hash"), "hash", hashArgs(bytes), 1},
		{"Go guest: echo (per call)", goGuest("examples/go/everything"), "echo", echo, reps},
		{"C guest: echo (per call)", cGuest, "echo", echo, reps},
		{fmt.Sprintf("WAT guest: tight loop, %d iterations", spin), func(context.Context, *env) ([]byte, error) {
			return renderGuest([]abi.Tool{{Name: "spin", InputSchema: json.RawMessage(`{"type":"object"}`)}}, "done", spin)
		}, "spin", []byte(`{}`), 1},
	}
}

func runDeadline(ctx context.Context, e *env) (*section, error) {
	n := e.n(10)
	s := &section{
		Title: "2. Cost of deadlines on guest work",
		Intro: fmt.Sprintf("The same calls in one instance per mode. \"unenforced\": through wazero directly without a "+
			"deadline (a looping guest cannot be stopped). \"wazero flag\": the same with `WithCloseOnContextDone(true)`, "+
			"wazero's own hard deadline. \"sandbox\": through host/sandbox as shipped, whose hard deadline is the "+
			"fuel its instrumentation meters every loop head and function entry with (and with pooled instances, limited "+
			"memory and the call's budget). %d samples per mode, the modes taking turns; each sample is one call, or the mean of "+
			"many for the echo rows. Medians.", n),
	}
	t := table{Header: []string{"workload", "unenforced", "wazero flag", "sandbox", "wazero flag ÷ unenforced", "sandbox ÷ unenforced"}}
	// Compiled code is shared by the runtimes of one mode and kept across
	// runs; wazero keys it by the flag too, so the modes never share code.
	cache, err := wazero.NewCompilationCacheWithDir(e.codeCache)
	if err != nil {
		return nil, err
	}
	defer cache.Close(ctx)
	for i, w := range deadlineWorkloads(e.opts.quick) {
		e.log.Info("deadline", "workload", w.name)
		un, en, sb, err := measureWorkload(ctx, e, w, n, cache)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", w.name, err)
		}
		unit, f := ms, "ms"
		if w.reps > 1 {
			unit, f = us, "µs"
		}
		t.Rows = append(t.Rows, []string{w.name, unit(un) + " " + f, unit(en) + " " + f, unit(sb) + " " + f,
			fmt.Sprintf("%.2f", float64(en)/float64(un)), fmt.Sprintf("%.2f", float64(sb)/float64(un))})
		key := fmt.Sprintf("w%d", i)
		s.value(key+"/unenforced", float64(un))
		s.value(key+"/enforced", float64(en))
		s.value(key+"/sandbox", float64(sb))
		if i == 0 {
			s.addRatio("enforced-over-unenforced", "deadline-enforced (host/sandbox) ÷ unenforced Go guest work ("+w.name+")",
				float64(sb), float64(un), "≤ 1.5", "median call")
		}
	}
	s.Tables = append(s.Tables, t)
	s.Notes = append(s.Notes, "What wazero's flag costs: it compiles, at every loop header, an indirect call out of the "+
		"guest's code to a trampoline that checks whether the module was closed, and watches each call's context in a "+
		"goroutine of its own. Tight loops pay the call on every iteration; a Go guest's functions are loops throughout "+
		"(resumable state machines), so its code pays it on most branches back. The sandbox's checkpoint is a load, "+
		"a subtraction and a store of a global and a branch not taken; the guest leaves its code for Go only when the "+
		"fuel runs out, once per 65,536 units (host/sandbox/internal/bounds/fuel.go).")
	return s, nil
}

// measureWorkload returns the median time of a call of w unenforced,
// enforced and through the sandbox.
func measureWorkload(ctx context.Context, e *env, w workload, n int, cache wazero.CompilationCache) (un, en, sb time.Duration, err error) {
	wasm, err := w.module(ctx, e)
	if err != nil {
		return 0, 0, 0, err
	}
	var runs [3]func() error
	for i, enforce := range []bool{false, true} {
		g, err := newGuestRunner(ctx, wasm, enforce, cache)
		if err != nil {
			return 0, 0, 0, err
		}
		defer g.close(ctx)
		runs[i] = func() error {
			out, err := g.run(ctx, w.tool, w.args)
			if err == nil {
				err = checkResult(out)
			}
			return err
		}
	}
	m, err := sandbox.Compile(ctx, w.tool, wasm, sandbox.Options{Logger: slog.New(slog.DiscardHandler), Cache: cache})
	if err != nil {
		return 0, 0, 0, err
	}
	defer m.Close(ctx)
	runs[2] = func() error {
		out, err := m.Call(ctx, w.tool, w.args, nil)
		if err == nil {
			err = checkResult(out)
		}
		return err
	}
	samples := [3][]time.Duration{}
	for i := range n + 1 { // the first round warms up
		for j := range runs {
			k := (i + j) % len(runs)
			start := time.Now()
			for range w.reps {
				if err := runs[k](); err != nil {
					return 0, 0, 0, err
				}
			}
			if i > 0 {
				samples[k] = append(samples[k], time.Since(start)/time.Duration(w.reps))
			}
		}
	}
	return summarize(samples[0]).P50, summarize(samples[1]).P50, summarize(samples[2]).P50, nil
}

// checkResult fails on a result that is not a successful tool result: a
// workload that errors out early would measure nothing.
func checkResult(doc []byte) error {
	var r abi.Result
	if err := json.Unmarshal(doc, &r); err != nil {
		return fmt.Errorf("result %.200q: %w", doc, err)
	}
	if r.IsError || len(r.Content) == 0 && len(r.StructuredContent) == 0 {
		return fmt.Errorf("tool failed: %.300s", doc)
	}
	return nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// diffArgs are two texts of lines lines each, differing in one line in 40
// and in a block moved near the end.
func diffArgs(lines int) []byte {
	var a, b strings.Builder
	for i := range lines {
		line := fmt.Sprintf("line %d: the quick brown fox jumps over the lazy dog %d\n", i, i*7919%1000)
		a.WriteString(line)
		switch {
		case i%40 == 7:
			fmt.Fprintf(&b, "line %d: changed\n", i)
		case i%97 == 3:
			// dropped from the new text
		default:
			b.WriteString(line)
		}
	}
	return mustJSON(map[string]any{"a": a.String(), "b": b.String()})
}

// jqArgs is a filter that selects from and sums over count objects.
func jqArgs(count int) []byte {
	items := make([]map[string]any, count)
	for i := range items {
		items[i] = map[string]any{"id": i, "name": fmt.Sprintf("item-%d", i), "price": i % 97, "tags": []string{"a", "b"}}
	}
	return mustJSON(map[string]any{
		"filter": `[.[] | select(.price > 50) | .price] | add`,
		"input":  items,
	})
}

// hashArgs hashes size bytes of text.
func hashArgs(size int) []byte {
	return mustJSON(map[string]any{"algorithm": "sha256", "text": strings.Repeat("wasmcp ", size/7+1)[:size]})
}
