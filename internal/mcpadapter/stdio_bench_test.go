package mcpadapter

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/sandbox/sandboxtest"
	"github.com/wasmcp/wasmcp/internal/batchlog"
)

// BenchmarkStdioCall measures one tools/call round trip of an echo over OS
// pipes, one call in flight, with a raw JSON-RPC client; compare the ratios
// of its variants, measured in the same run, not their times:
//
//	go test -run '^$' -bench StdioCall -benchmem -count 6 ./internal/mcpadapter/
//
// The variants:
//
//   - floor: a hand-written JSON-RPC echo loop, as bench/'s raw server;
//   - native: the echo as a Go tool on a bare go-sdk server, on wasmcp's
//     stdio transport;
//   - sdk-transport, wasmcp-transport: the adapter over a fake host that
//     echoes, on go-sdk's stdio transport and on wasmcp's;
//   - c-echo, go-echo: the adapter over a real host serving the C and Go
//     example modules (validation, sandbox and all), its audit log written
//     to a file in batches, as serve writes it to stderr.
func BenchmarkStdioCall(b *testing.B) {
	b.Run("floor", func(b *testing.B) {
		benchStdio(b, func(r io.ReadCloser, w io.WriteCloser) error { return rawEcho(r, w) })
	})
	b.Run("native", func(b *testing.B) {
		s := mcp.NewServer(&mcp.Implementation{Name: "native", Version: "0"}, nil)
		s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, nativeEcho)
		benchStdio(b, func(r io.ReadCloser, w io.WriteCloser) error {
			ss, err := s.Connect(context.Background(), NewStdioTransport(r, w, 0), nil)
			if err != nil {
				return err
			}
			if err := ss.Wait(); err != nil && !errors.Is(err, io.EOF) {
				return err
			}
			return nil
		})
	})
	b.Run("sdk-transport", func(b *testing.B) {
		a := echoAdapter(b)
		benchStdio(b, func(r io.ReadCloser, w io.WriteCloser) error {
			return a.serve(context.Background(), &mcp.IOTransport{Reader: r, Writer: w})
		})
	})
	b.Run("wasmcp-transport", func(b *testing.B) {
		a := echoAdapter(b)
		benchStdio(b, func(r io.ReadCloser, w io.WriteCloser) error {
			return a.Serve(context.Background(), r, w)
		})
	})
	for _, guest := range []struct{ name, module string }{{"c-echo", "examples-c"}, {"go-echo", "everything"}} {
		b.Run(guest.name, func(b *testing.B) {
			log, err := os.Create(filepath.Join(b.TempDir(), "audit.log"))
			if err != nil {
				b.Fatal(err)
			}
			defer log.Close()
			// As serve writes it: formatted and written in batches
			// (internal/batchlog).
			audit := batchlog.New(log, 10*time.Millisecond, func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, nil) })
			defer audit.Close()
			a := New(guestHost(b, guest.module), Options{Audit: slog.New(audit)})
			b.Cleanup(a.Close)
			benchStdio(b, func(r io.ReadCloser, w io.WriteCloser) error {
				return a.Serve(context.Background(), r, w)
			})
		})
	}
}

// echoAdapter is an adapter whose host echoes the message argument.
func echoAdapter(b *testing.B) *Adapter {
	h := &fakeHost{tools: []host.Tool{tool("echo", `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)}}
	h.call = func(_ context.Context, req host.CallRequest) (*host.Result, error) {
		var args struct{ Message string }
		if err := json.Unmarshal(req.Arguments, &args); err != nil {
			return nil, err
		}
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("Echo: " + args.Message)}}}, nil
	}
	a := New(h, Options{})
	b.Cleanup(a.Close)
	return a
}

// guestHost is a host serving one of the modules `make plugins` builds.
func guestHost(b *testing.B, module string) *host.Host {
	mods := sandboxtest.MustBuilt(b, module)
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, module+".wasm"), mods[module], 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	h, err := host.New(ctx, host.NewConfig().WithDir(dir).WithCacheDir(b.TempDir()).WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close(ctx) })
	if err := h.LoadDir(ctx); err != nil {
		b.Fatal(err)
	}
	return h
}

// benchStdio runs serve on a pair of OS pipes, does the initialize
// handshake, and times b.N tools/call requests written and answered one at
// a time.
func benchStdio(b *testing.B, serve func(r io.ReadCloser, w io.WriteCloser) error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- serve(inR, outW) }()
	defer func() {
		inW.Close()
		if err := <-served; err != nil {
			b.Error(err)
		}
		outR.Close()
	}()
	out := bufio.NewReaderSize(outR, 64<<10)
	roundTrip := func(line []byte) []byte {
		if _, err := inW.Write(line); err != nil {
			b.Fatal(err)
		}
		resp, err := out.ReadSlice('\n')
		if err != nil {
			b.Fatal(err)
		}
		return resp
	}
	roundTrip([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n"))
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	const tail = `,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello from the wasmcp bench"}}}` + "\n"
	want := []byte(`"text":"Echo: hello from the wasmcp bench"`)
	var line []byte
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		line = append(strconv.AppendInt(append(line[:0], `{"jsonrpc":"2.0","id":`...), int64(i+1), 10), tail...)
		if resp := roundTrip(line); !bytes.Contains(resp, want) {
			b.Fatalf("answer %s", resp)
		}
	}
	b.StopTimer()
}

func nativeEcho(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct{ Message string }
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: "Echo: " + args.Message}},
		StructuredContent: json.RawMessage(`{}`),
	}, nil
}

// rawEcho answers newline-delimited JSON-RPC by hand, as bench/'s floor
// does: one decode and one encode per request with encoding/json.
func rawEcho(r io.Reader, w io.Writer) error {
	type request struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	type text struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type result struct {
		Content           []text          `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	type response struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		var req request
		if err := json.Unmarshal(line, &req); err != nil {
			return err
		}
		if req.ID == nil {
			continue
		}
		resp := response{JSONRPC: "2.0", ID: req.ID, Result: struct{}{}}
		if req.Method == "tools/call" {
			var p struct {
				Arguments struct{ Message string } `json:"arguments"`
			}
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return err
			}
			resp.Result = result{Content: []text{{"text", "Echo: " + p.Arguments.Message}}, StructuredContent: json.RawMessage(`{}`)}
		}
		out, err := json.Marshal(resp)
		if err != nil {
			return err
		}
		bw.Write(out)
		bw.WriteByte('\n')
		if err := bw.Flush(); err != nil {
			return err
		}
	}
}
