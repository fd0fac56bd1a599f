package host_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/testenv"
)

// The guest of the contract's own document (abi/ABI.md), run by the host.
// It lives here, not in package abi, because abi is a module that depends
// on nothing, the host least of all.

// fence returns the body of the first ``` block of the given language in
// doc after offset from, and the offset where that block ends.
func fence(t *testing.T, doc, lang string, from int) (string, int) {
	t.Helper()
	open := "```" + lang + "\n"
	start := strings.Index(doc[from:], open)
	if start < 0 {
		t.Fatalf("ABI.md has no %s block after offset %d", open, from)
	}
	start += from + len(open)
	end := strings.Index(doc[start:], "\n```")
	if end < 0 {
		t.Fatalf("unterminated %s block in ABI.md", lang)
	}
	return doc[start : start+end], start + end
}

// wat2wasm assembles wat into path with WABT's wat2wasm, which make deps
// installs; a plain go test without it skips.
func wat2wasm(t *testing.T, wat, path string) {
	t.Helper()
	tool, err := exec.LookPath("wat2wasm")
	if err != nil {
		testenv.Missing(t, "needs wat2wasm: make deps installs it (Debian: apt-get install wabt)")
	}
	src := path + ".wat"
	if err := os.WriteFile(src, []byte(wat), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tool, src, "-o", path).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm: %v\n%s", err, out)
	}
}

// TestGuestFromDocument builds the WAT guest of ABI.md section 7 exactly as
// printed, loads it, and checks the result the document says it gives: the
// document alone is enough to write a guest.
func TestGuestFromDocument(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "abi", "ABI.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(md)
	wat, end := fence(t, doc, "wat", 0)
	want, _ := fence(t, doc, "json", end)

	path := filepath.Join(t.TempDir(), "echo.wasm")
	wat2wasm(t, wat, path)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	h, err := host.New(ctx, host.NewConfig().WithCacheDir("").WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	if err := h.LoadFile(ctx, path); err != nil {
		t.Fatal(err)
	}

	var logged []string
	res, err := h.Call(ctx, host.CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"message":"hi"}`),
		Log: func(_ string, l abi.LogLevel, msg string) { logged = append(logged, l.String()+": "+msg) }})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != strings.TrimSpace(want) {
		t.Errorf("echo returned\n%s\nABI.md says\n%s", got, want)
	}
	if len(logged) != 1 || logged[0] != "info: echo called" {
		t.Errorf("log lines %q, want [\"info: echo called\"]", logged)
	}

	// Its wasmcp_alloc grows memory for a large input, as its comment says.
	big := `{"message":"` + strings.Repeat("x", 300000) + `"}`
	res, err = h.Call(ctx, host.CallRequest{Tool: "echo", Arguments: json.RawMessage(big)})
	if err != nil || res.IsError || string(res.StructuredContent) != big {
		t.Errorf("echo of %d bytes: isError %v, err %v", len(big), res != nil && res.IsError, err)
	}
}
