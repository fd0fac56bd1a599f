package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"

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
