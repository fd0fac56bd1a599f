package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/internal/mcpadapter"
	"github.com/wasmcp/wasmcp/internal/testenv"
)

//go:generate ../../scripts/wat2wasm-testdata.sh testdata

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// lockedBuffer collects a server's log while tests read it.
type lockedBuffer = testenv.Buffer

// served is a directory holding testdata/echo.wasm.
func served(t *testing.T) string {
	dir := t.TempDir()
	wasm, err := os.ReadFile(filepath.Join("testdata", "echo.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "echo.wasm"), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// options serve dir over stdio to the pipes of a client, which it returns.
func options(t *testing.T, dir string, log io.Writer) (Options, mcp.Transport) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	logger := slog.New(slog.NewTextHandler(log, nil))
	return Options{
		Logger:  logger,
		Host:    host.NewConfig().WithDir(dir).WithCacheDir("").WithLogger(logger),
		Adapter: mcpadapter.Options{Version: "test", Logger: logger},
		Dir:     dir,
		Stdio:   Stdio{In: inR, Out: outW},
	}, &mcp.IOTransport{Reader: outR, Writer: inW}
}

// Run serves the directory over stdio from its options alone, and ends
// when the client closes its input.
func TestRunStdio(t *testing.T) {
	ctx := testContext(t)
	log := &lockedBuffer{}
	opts, transport := options(t, served(t), log)
	opts.WaitLoaded = true
	done := make(chan error, 1)
	go func() { done <- Run(ctx, opts) }()

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}})
	if err != nil || res.IsError {
		t.Fatalf("echo: %+v, %v", res, err)
	}
	cs.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v, want nil when the client hangs up", err)
		}
	case <-ctx.Done():
		t.Fatalf("Run did not end with its client:\n%s", log)
	}
	if !strings.Contains(log.String(), "client closed the connection, stopping") {
		t.Errorf("log:\n%s", log)
	}
}

// A reload applies the configuration Reload gives, as data, and keeps the
// one in force when Reload fails.
func TestReconfigure(t *testing.T) {
	ctx := testContext(t)
	log := &lockedBuffer{}
	dir := served(t)
	opts, _ := options(t, dir, log)
	h, err := host.New(ctx, opts.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	// The policy caps echo's output below what it returns.
	pol, err := policy.Parse([]byte(`{"plugins":{"echo":{"maxOutput":"16"}}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fail := true
	opts.Reload = func() (Reloaded, error) {
		if fail {
			return Reloaded{}, errors.New("config.json: unexpected end of JSON input")
		}
		return Reloaded{Policy: pol, From: []any{"config", "config.json"}}, nil
	}
	s := &server{opts: opts, log: opts.Logger}
	call := func() *host.Result {
		res, err := h.Call(ctx, host.CallRequest{Tool: "echo", Arguments: []byte(`{"message":"a longer message"}`)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	s.reconfigure(ctx, h)
	if !strings.Contains(log.String(), "configuration not reloaded; the previous one stays in force") || call().IsError {
		t.Fatalf("a failed reload changed the configuration:\n%s", log)
	}
	fail = false
	s.reconfigure(ctx, h)
	if !strings.Contains(log.String(), `msg="configuration reloaded" config=config.json tools=1`) {
		t.Errorf("log:\n%s", log)
	}
	if res := call(); !res.IsError || s.currentPolicy() != pol {
		t.Errorf("after the reload: %+v; want the policy's output cap", res)
	}
}
