package host_test

import (
	"os"
	"path/filepath"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"log/slog"

	"github.com/wasmcp/wasmcp/host/policy"

	"github.com/wasmcp/wasmcp/host"
)

// Example loads a directory holding echo.wasm, the guest of ABI.md section 7
// (built from testdata/echo.wat by TestMain), lists its tools and calls one.
func Example() {
	ctx := context.Background()
	cfg := host.NewConfig().
		WithDir(pluginDir).
		WithCacheDir(""). // no compilation cache or claims on disk
		WithLogger(slog.New(slog.DiscardHandler))
	h, err := host.New(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close(ctx)

	if err := h.LoadDir(ctx); err != nil {
		log.Fatal(err)
	}
	for _, t := range h.Tools() {
		fmt.Printf("%s (from %s.wasm): %s\n", t.Name, t.Plugin, t.Description)
	}

	res, err := h.Call(ctx, host.CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"message":"hi"}`)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].Text)
	fmt.Println(string(res.StructuredContent))
	// Output:
	// echo (from echo.wasm): Returns its arguments as structured content.
	// {"message":"hi"}
	// {"message":"hi"}
}

// ExampleHost_Watch serves a directory and reloads it as it changes: a
// module dropped into it is loaded, and subscribers hear of its tools.
func ExampleHost_Watch() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir, err := os.MkdirTemp("", "wasmcp-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	h, err := host.New(ctx, host.NewConfig().WithDir(dir).WithCacheDir("").WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close(ctx)

	changes := make(chan host.Change, 1)
	h.Subscribe(func(c host.Change) { changes <- c }) // called before the load goes on: keep it quick
	go h.Watch(ctx)
	<-h.Loaded() // the directory was empty

	// Write under a name the watcher ignores, then rename into place, so
	// that it never sees half a module.
	wasm, err := os.ReadFile("testdata/echo.wasm")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".echo.partial"), wasm, 0o600); err != nil {
		log.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, ".echo.partial"), filepath.Join(dir, "echo.wasm")); err != nil {
		log.Fatal(err)
	}
	c := <-changes
	fmt.Println("added:", c.Added[0].Name, "from plugin", c.Added[0].Plugin)
	// Output:
	// added: echo from plugin echo
}

// ExampleConfig_WithPolicy gives one plugin a deadline of its own, from an
// operator's policy file: its endless loop is stopped after 100 ms, and the
// model reads why.
func ExampleConfig_WithPolicy() {
	ctx := context.Background()
	pol, err := policy.Parse([]byte(`{"plugins": {"hostile": {"timeout": "100ms"}}}`), ".")
	if err != nil {
		log.Fatal(err)
	}
	h, err := host.New(ctx, host.NewConfig().WithPolicy(pol).WithCacheDir("").WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close(ctx)
	if err := h.LoadFile(ctx, "testdata/hostile.wasm"); err != nil {
		log.Fatal(err)
	}
	res, err := h.Call(ctx, host.CallRequest{Tool: "spin"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.IsError, res.Content[0].Text)
	// Output:
	// true tool spin in plugin hostile: timed out after 100ms
}

// ExampleHost_Call names the module version that ran a call, for an audit
// line; with Admission a refused call says so the same way.
func ExampleHost_Call() {
	ctx := context.Background()
	cfg := host.NewConfig().WithCacheDir("").WithLogger(slog.New(slog.DiscardHandler)).
		WithAdmission(host.Admission{CallerRate: 1})
	h, err := host.New(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close(ctx)
	if err := h.LoadFile(ctx, "testdata/echo.wasm"); err != nil {
		log.Fatal(err)
	}
	for range 2 {
		res, err := h.Call(ctx, host.CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"message":"hi"}`), Caller: "session-1"})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Module.Plugin, "from", filepath.Base(res.Module.File), "with a sha256 of", len(res.Module.SHA256)/2, "bytes;",
			"refused:", errors.Is(res.Failure, host.ErrRateLimited))
	}
	// Output:
	// echo from echo.wasm with a sha256 of 32 bytes; refused: false
	// echo from echo.wasm with a sha256 of 32 bytes; refused: true
}
