package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/sandbox/sandboxtest"
	"github.com/wasmcp/wasmcp/internal/coldbench"
)

// BenchmarkColdCall calls the echo tool of the example modules through
// host.Call as a stdio server does between requests, with cold caches and
// TLBs (internal/coldbench), against a baseline: the same echo in Go,
// decoding its arguments with encoding/json and making its result, as the
// native go-sdk echo of bench/ does. Each guest's "/native-cold" figure is
// its cold median over the baseline's, in the same rounds:
//
//	go test -run '^$' -bench ColdCall -benchtime 400x -count 3 ./host/
//
// WASMCP_COLD_MODULES adds modules, comma-separated paths, each serving an
// echo, to compare builds of a guest in one run.
func BenchmarkColdCall(b *testing.B) {
	names := []string{"examples-wat", "examples-c", "examples-rust", "examples-as", "everything"}
	mods := sandboxtest.MustBuilt(b, names...)
	if extra := os.Getenv("WASMCP_COLD_MODULES"); extra != "" {
		for _, path := range strings.Split(extra, ",") {
			wasm, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			name := strings.TrimSuffix(filepath.Base(path), ".wasm")
			mods[name] = wasm
			names = append(names, name)
		}
	}
	args := json.RawMessage(`{"message":"hello from the wasmcp bench"}`)
	variants := []coldbench.Variant{coldbench.NativeEcho(args)}
	for _, name := range names {
		dir := b.TempDir()
		if err := os.WriteFile(filepath.Join(dir, name+".wasm"), mods[name], 0o644); err != nil {
			b.Fatal(err)
		}
		cfg := host.NewConfig().WithDir(dir).WithCacheDir(b.TempDir()).WithLogger(slog.New(slog.DiscardHandler))
		h, err := host.New(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { h.Close(context.Background()) })
		if err := h.LoadDir(context.Background()); err != nil {
			b.Fatal(err)
		}
		want := "Echo: hello from the wasmcp bench"
		variants = append(variants, coldbench.Variant{Name: name, Call: func() {
			res, err := h.Call(context.Background(), host.CallRequest{Tool: "echo", Arguments: args})
			if err != nil || res.IsError || len(res.Content) == 0 || res.Content[0].Text != want {
				b.Fatal(fmt.Sprint(name, ": ", res, err))
			}
		}})
	}
	coldbench.Run(b, variants...)
}
