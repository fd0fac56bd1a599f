package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
)

// A workload is one call of a bundled Go plugin's tool.
type workload struct {
	module, tool string
	args         []byte
}

// runDeadline measures what a hard deadline costs guest work: the same
// calls of the bundled Go plugins through the public host API (whose
// deadline is the fuel its instrumentation meters, with validation, pooled
// instances and the memory limit around it) and through plain wazero on the
// same, uninstrumented module, with no deadline (a looping guest could not
// be stopped).
func runDeadline(ctx context.Context, e *env) ([]row, error) {
	samples := e.size(30, 2)
	lines, objects := e.size(1000, 20), e.size(1000, 20)
	workloads := []workload{
		{"text", "unified_diff", diffArgs(lines)},
		{"jq", "jq", jqArgs(objects)},
	}
	dir, err := e.pluginDir("deadline", "text", "jq")
	if err != nil {
		return nil, err
	}
	h, cache, closeAll, err := e.hostAndPlainCache(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer closeAll()

	var rows []row
	for _, w := range workloads {
		wasm, err := os.ReadFile(filepath.Join(dir, w.module+".wasm"))
		if err != nil {
			return rows, err
		}
		g, err := newGuestRunner(ctx, wasm, cache)
		if err != nil {
			return rows, fmt.Errorf("%s in plain wazero: %w", w.module, err)
		}
		defer g.close(ctx)
		runs := [2]func() error{
			func() error {
				res, err := h.Call(ctx, host.CallRequest{Tool: w.tool, Arguments: w.args})
				if err == nil && (res.IsError || len(res.Content) == 0) {
					err = fmt.Errorf("tool failed: %+v", res.Content)
				}
				return err
			},
			func() error { return g.run(ctx, w.tool, w.args) },
		}
		r := row{name: fmt.Sprintf("deadline-enforced (host API) ÷ unenforced (plain wazero), Go guest: %s, %d bytes of arguments",
			w.tool, len(w.args)), floor: atMost(1.5)}
		for i := range e.opts.reps {
			d, err := sampleAlternately(samples, runs)
			if err != nil {
				return rows, fmt.Errorf("%s: %w", w.tool, err)
			}
			e.log.Info("deadline", "tool", w.tool, "rep", i, "host", d[0], "wazero", d[1])
			r.add(float64(d[0]), float64(d[1]), ms(d[0]), ms(d[1]))
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// sampleAlternately times n calls of each of runs, the runs taking turns
// after one round of warming up, and returns the median time of each.
func sampleAlternately(n int, runs [2]func() error) ([2]time.Duration, error) {
	var samples [2][]time.Duration
	for i := range n + 1 {
		for j := range runs {
			k := (i + j) % len(runs)
			start := time.Now()
			if err := runs[k](); err != nil {
				return [2]time.Duration{}, err
			}
			if i > 0 {
				samples[k] = append(samples[k], time.Since(start))
			}
		}
	}
	return [2]time.Duration{median(samples[0]), median(samples[1])}, nil
}

// A guestRunner calls a guest's tools through plain wazero, following
// ABI.md section 3, in one instance with no deadline enforced.
type guestRunner struct {
	rt          wazero.Runtime
	mod         api.Module
	alloc, call api.Function
}

// newGuestRunner compiles wasm, with cache when it is not nil, and
// instantiates it. Function listeners in ctx (wazero's experimental
// package) see its calls.
func newGuestRunner(ctx context.Context, wasm []byte, cache wazero.CompilationCache) (*guestRunner, error) {
	cfg := wazero.NewRuntimeConfig()
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
	// zeros: what is measured is guest code, and the runner keeps working
	// whatever functions later revisions of the ABI add.
	hostMod := g.rt.NewHostModuleBuilder(abi.ImportModule)
	for _, f := range compiled.ImportedFunctions() {
		if mod, name, _ := f.Import(); mod == abi.ImportModule {
			hostMod.NewFunctionBuilder().
				WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) {
					clear(stack)
				}), f.ParamTypes(), f.ResultTypes()).
				Export(name)
		}
	}
	if _, err := hostMod.Instantiate(ctx); err != nil {
		return err
	}
	g.mod, err = g.rt.InstantiateModule(ctx, compiled,
		wazero.NewModuleConfig().WithName("").WithStartFunctions(abi.ExportInitialize))
	if err != nil {
		return err
	}
	g.alloc, g.call = g.mod.ExportedFunction(abi.ExportAlloc), g.mod.ExportedFunction(abi.ExportCall)
	if g.alloc == nil || g.call == nil {
		return fmt.Errorf("the module does not export %s and %s", abi.ExportAlloc, abi.ExportCall)
	}
	return nil
}

// run calls tool with args, one allocation holding the name and then the
// arguments, and checks that the result is a successful tool result.
func (g *guestRunner) run(ctx context.Context, tool string, args []byte) error {
	res, err := g.alloc.Call(ctx, uint64(len(tool)+len(args)))
	if err != nil {
		return err
	}
	ptr, mem := uint32(res[0]), g.mod.Memory()
	if ptr == 0 || !mem.Write(ptr, []byte(tool)) || !mem.Write(ptr+uint32(len(tool)), args) {
		return fmt.Errorf("%s returned %d for %d bytes", abi.ExportAlloc, ptr, len(tool)+len(args))
	}
	res, err = g.call.Call(ctx, uint64(ptr), uint64(len(tool)), uint64(ptr)+uint64(len(tool)), uint64(len(args)))
	if err != nil {
		return err
	}
	rp, rn := abi.Unpack(res[0])
	doc, ok := mem.Read(rp, rn)
	if !ok || rn == 0 {
		return fmt.Errorf("%s returned the region %d+%d", abi.ExportCall, rp, rn)
	}
	var r abi.Result
	if err := json.Unmarshal(doc, &r); err != nil {
		return fmt.Errorf("result %.200q: %w", doc, err)
	}
	if r.IsError || len(r.Content) == 0 && len(r.StructuredContent) == 0 {
		return fmt.Errorf("tool failed: %.300s", doc)
	}
	return nil
}

func (g *guestRunner) close(ctx context.Context) { g.rt.Close(ctx) }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// diffArgs are two texts of lines lines each, differing in one line in 40
// and in lines dropped from the new one.
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

// serveLongCalls is how wasmcp serve shares the processors among long
// calls, which the in-process measurements reproduce.
var serveLongCalls = host.LongCalls{Reserve: 1, Nice: 10}

// hostAndPlainCache loads dir's modules in a host with the bench's
// compilation cache, beside the cache plain wazero compiles the unmetered
// baselines with; closeAll closes both.
func (e *env) hostAndPlainCache(ctx context.Context, dir string) (h *host.Host, cache wazero.CompilationCache, closeAll func(), err error) {
	cfg := host.NewConfig().WithDir(dir).WithCacheDir(filepath.Join(e.codeCache, "host")).
		WithLogger(slog.New(slog.DiscardHandler)).WithLongCalls(serveLongCalls)
	if h, err = host.New(ctx, cfg); err != nil {
		return nil, nil, nil, err
	}
	if err = h.LoadDir(ctx); err == nil {
		cache, err = wazero.NewCompilationCacheWithDir(filepath.Join(e.codeCache, "plain"))
	}
	if err != nil {
		h.Close(context.WithoutCancel(ctx))
		return nil, nil, nil, err
	}
	return h, cache, func() {
		cache.Close(ctx)
		h.Close(context.WithoutCancel(ctx))
	}, nil
}
