package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
)

// TestGenerateOfferGuest loads a generated offering guest, with a document
// over a megabyte, through the public host API: its tools, resources,
// templates and prompts are served, and a read, a prompt and a call answer
// with the documents given.
func TestGenerateOfferGuest(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("x", 1_100_000)
	read := mustJSON(abi.ReadResult{Contents: []abi.ResourceContents{{URI: "bench://x", Text: &text}}})
	d := offersDescribe("gen", []abi.Tool{scaleTool(0, 0)}, 3, 2)
	wasm, err := generateOfferGuest(d, scaleResult, read, offerMessages)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gen.wasm"), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := host.New(ctx, host.NewConfig().WithDir(dir).WithCacheDir("").WithMaxOutput(2<<20).WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	if len(h.Tools()) != 1 || len(h.ResourcesFor(nil)) != 3 || len(h.ResourceTemplatesFor(nil)) != 2 || len(h.PromptsFor(nil)) != 3 {
		t.Fatalf("served %d tools, %d resources, %d templates, %d prompts; want 1, 3, 2, 3",
			len(h.Tools()), len(h.ResourcesFor(nil)), len(h.ResourceTemplatesFor(nil)), len(h.PromptsFor(nil)))
	}
	r, _, err := h.ReadResource(ctx, d.Resources[0].URI, host.Request{})
	if err != nil || *r.Contents[0].Text != text {
		t.Errorf("read: %v", err)
	}
	p, _, err := h.GetPrompt(ctx, d.Prompts[0].Name, []byte(`{"topic":"x"}`), host.Request{})
	if err != nil || p.Messages[0].Content.Text != "ok" {
		t.Errorf("prompt: %+v, %v", p, err)
	}
	res, err := h.Call(ctx, host.CallRequest{Tool: scaleTool(0, 0).Name, Arguments: []byte(`{"message":"hi"}`)})
	if err != nil || res.IsError || res.Content[0].Text != scaleAnswer {
		t.Errorf("call: %+v, %v", res, err)
	}
}
