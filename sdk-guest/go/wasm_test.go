package wasmcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmcp/wasmcp/abi"
)

// TestWasmModule builds testdata/guest with the real toolchain and drives it
// through the ABI with wazero, as a host does: it proves the glue (exports,
// imports, alloc, packing, logging) and the memory policy, independently of
// the host packages.
func TestWasmModule(t *testing.T) {
	g := newGuest(t, buildModule(t, "./testdata/guest"))

	t.Run("exports and imports", func(t *testing.T) {
		exports := map[string]string{}
		for name, def := range g.compiled.ExportedFunctions() {
			exports[name] = signature(def)
		}
		want := map[string]string{
			abi.ExportInitialize: "[] -> []",
			abi.ExportVersion:    "[] -> [i32]",
			abi.ExportAlloc:      "[i32] -> [i32]",
			abi.ExportDescribe:   "[] -> [i64]",
			abi.ExportCall:       "[i32 i32 i32 i32] -> [i64]",
		}
		for name, sig := range want {
			if exports[name] != sig {
				t.Errorf("export %s: %q, want %q (all: %v)", name, exports[name], sig, exports)
			}
		}
		if _, ok := g.compiled.ExportedMemories()[abi.ExportMemory]; !ok {
			t.Errorf("no %q export", abi.ExportMemory)
		}
		for _, def := range g.compiled.ImportedFunctions() {
			module, name, _ := def.Import()
			if module != wasi_snapshot_preview1.ModuleName && (module != abi.ImportModule || name != abi.ImportLog) {
				t.Errorf("unexpected import %s.%s", module, name)
			}
		}
	})

	t.Run("describe", func(t *testing.T) {
		if v := g.call(t, abi.ExportVersion)[0]; v != abi.Version {
			t.Fatalf("ABI version %d", v)
		}
		var d abi.Describe
		if err := json.Unmarshal(g.read(t, g.call(t, abi.ExportDescribe)[0]), &d); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range d.Tools {
			names = append(names, tool.Name)
		}
		// "from-main" is missing: main never runs in a c-shared module.
		if want := []string{"echo", "size", "upper", "churn", "panic"}; !slices.Equal(names, want) {
			t.Errorf("tools %v, want %v", names, want)
		}
	})

	t.Run("call and log", func(t *testing.T) {
		g.logs = nil
		r := g.tool(t, "echo", `{"text":"héllo"}`)
		if r.IsError || r.Content[0].Text != "Echo: héllo" {
			t.Errorf("echo: %+v", r)
		}
		if len(g.logs) != 1 || g.logs[0] != "info: echo héllo" {
			t.Errorf("logs %q", g.logs)
		}
		r = g.tool(t, "panic", `{}`)
		if !r.IsError || !strings.Contains(r.Content[0].Text, "panicked: on purpose") {
			t.Errorf("panic: %+v", r)
		}
		// The instance survives the recovered panic.
		if r := g.tool(t, "size", `{"text":"abc"}`); string(r.StructuredContent) != `{"bytes":3}` {
			t.Errorf("after panic: %+v", r)
		}
		if r := g.tool(t, "nope", `{}`); !r.IsError {
			t.Errorf("unknown tool: %+v", r)
		}
	})

	t.Run("memory stays bounded", func(t *testing.T) {
		// Garbage made inside calls: without the SDK's yield after each call
		// the collector stalls and 150 calls of 8 MiB run the heap into gigabytes.
		for range 150 {
			if r := g.tool(t, "churn", `{"mib":8}`); r.IsError {
				t.Fatalf("churn: %+v", r)
			}
		}
		size := g.mod.Memory().Size()
		t.Logf("memory after churn: %d MiB", size>>20)
		if size > 128<<20 {
			t.Errorf("memory after churn: %d MiB", size>>20)
		}
		// Large arguments and results crossing the boundary.
		big := fmt.Sprintf(`{"text":%q}`, strings.Repeat("a", 1<<20))
		for range 24 {
			r := g.tool(t, "upper", big)
			if len(r.StructuredContent) != 1<<20+len(`{"text":""}`) {
				t.Fatalf("upper: %d bytes of structured content", len(r.StructuredContent))
			}
		}
		size = g.mod.Memory().Size()
		t.Logf("memory after large calls: %d MiB", size>>20)
		if size > 128<<20 {
			t.Errorf("memory after large calls: %d MiB", size>>20)
		}
	})
}

// buildModule builds the main package pkg into a module with the real
// toolchain, as the Makefile does, and returns its bytes.
func buildModule(tb testing.TB, pkg string) []byte {
	tb.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		tb.Fatalf("the go command is needed to build the test module: %v", err)
	}
	wasmPath := filepath.Join(tb.TempDir(), "guest.wasm")
	// A package of another module (examples/go) is built in its module.
	cmd := exec.Command(gobin, "build", "-buildmode=c-shared", "-o", wasmPath, ".")
	cmd.Dir = pkg
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("build %s: %v\n%s", pkg, err, out)
	}
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		tb.Fatal(err)
	}
	return wasm
}

type guestModule struct {
	compiled wazero.CompiledModule
	mod      api.Module
	logs     []string
	// funcs are the exports called so far: wazero gives each api.Function
	// a stack of its own, too costly to make per call in a benchmark.
	funcs map[string]api.Function
}

func newGuest(t testing.TB, wasm []byte) *guestModule {
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	t.Cleanup(func() { r.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	g := &guestModule{funcs: map[string]api.Function{}}
	_, err := r.NewHostModuleBuilder(abi.ImportModule).NewFunctionBuilder().
		WithFunc(func(_ context.Context, m api.Module, level, ptr, n uint32) {
			msg, _ := m.Memory().Read(ptr, n)
			g.logs = append(g.logs, abi.LogLevel(level).String()+": "+string(msg))
		}).Export(abi.ImportLog).Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if g.compiled, err = r.CompileModule(ctx, wasm); err != nil {
		t.Fatal(err)
	}
	g.mod, err = r.InstantiateModule(ctx, g.compiled, wazero.NewModuleConfig().WithStartFunctions(abi.ExportInitialize))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func (g *guestModule) call(t testing.TB, export string, params ...uint64) []uint64 {
	t.Helper()
	f := g.funcs[export]
	if f == nil {
		f = g.mod.ExportedFunction(export)
		g.funcs[export] = f
	}
	res, err := f.Call(context.Background(), params...)
	if err != nil {
		t.Fatalf("%s: %v", export, err)
	}
	return res
}

func (g *guestModule) read(t testing.TB, packed uint64) []byte {
	t.Helper()
	ptr, n := abi.Unpack(packed)
	b, ok := g.mod.Memory().Read(ptr, n)
	if !ok || ptr == 0 {
		t.Fatalf("region %d+%d is not in memory", ptr, n)
	}
	return slices.Clone(b)
}

// callTool performs one call exactly as ABI.md §3 says: one alloc for name
// and arguments, then wasmcp_call. It returns the packed region of the
// Result document.
func (g *guestModule) callTool(t testing.TB, name, args string) uint64 {
	t.Helper()
	ptr := uint32(g.call(t, abi.ExportAlloc, uint64(len(name)+len(args)))[0])
	if ptr == 0 || !g.mod.Memory().WriteString(ptr, name+args) {
		t.Fatalf("alloc returned %d", ptr)
	}
	n := uint32(len(name))
	return g.call(t, abi.ExportCall, uint64(ptr), uint64(n), uint64(ptr+n), uint64(len(args)))[0]
}

// document is callTool returning a copy of the Result document.
func (g *guestModule) document(t testing.TB, name, args string) []byte {
	t.Helper()
	return g.read(t, g.callTool(t, name, args))
}

// tool is document decoded.
func (g *guestModule) tool(t testing.TB, name, args string) abi.Result {
	t.Helper()
	doc := g.document(t, name, args)
	var r abi.Result
	if err := json.Unmarshal(doc, &r); err != nil {
		t.Fatalf("%s: result %.200s: %v", name, doc, err)
	}
	return r
}

func signature(def api.FunctionDefinition) string {
	names := func(types []api.ValueType) []string {
		out := []string{}
		for _, vt := range types {
			out = append(out, api.ValueTypeName(vt))
		}
		return out
	}
	return fmt.Sprintf("%v -> %v", names(def.ParamTypes()), names(def.ResultTypes()))
}
