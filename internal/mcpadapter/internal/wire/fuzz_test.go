package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// probeID is the id of the tools/list request that follows each fuzz input.
const probeID = "wasmcp-fuzz-probe"

// probe is sent after the input: a newline ends any line the input left
// open, then a handshake (which may fail if the input did one already), and
// the tools/list whose answer must name the one tool.
var probe = "\n" +
	`{"jsonrpc":"2.0","id":"wasmcp-fuzz-init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}` + "\n" +
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
	`{"jsonrpc":"2.0","id":"` + probeID + `","method":"tools/list"}` + "\n"

// seeds are FuzzJSONRPC's seeds besides its corpus directory.
var seeds = [][]byte{
	[]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"),
	[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}` + "\n"),
	[]byte(`{"jsonrpc":"2.0","id":1,"method":`),
}

// FuzzJSONRPC writes random bytes to a go-sdk server with one tool behind
// the stdio transport, as a client would write lines. The server must not
// panic, must still answer a well-formed tools/list afterwards, whatever
// came before it, and must end when its input closes. The seed corpus under
// testdata/fuzz/FuzzJSONRPC holds handshakes, calls, cancellations, batches,
// responses to nothing and broken lines; TestPreReaderAgreesWithGoSDK reads
// it too.
func FuzzJSONRPC(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		if bytes.Contains(input, []byte(probeID)) {
			return // the input could answer for the server
		}
		s := echoServer()

		// Generous: no input may hang the fuzzer, and nothing depends on
		// time otherwise.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		served := make(chan error, 1)
		go func() {
			served <- serve(ctx, s, inR, outW)
			outW.Close()
		}()
		answered := make(chan []byte, 1)
		go probeAnswer(outR, answered)

		// The input and the probe are written by one goroutine: the server
		// reads lines in order, and a write blocks until it is read.
		go func() {
			_, _ = inW.Write(input)
			_, _ = io.WriteString(inW, probe)
		}()
		var tools []byte
		select {
		case tools = <-answered:
		case <-ctx.Done():
			t.Fatalf("input %q: no answer to tools/list", input)
		}
		if tools == nil {
			// Lines that are not messages are answered with errors; the
			// session ends only when its input does.
			t.Fatalf("input %q: the server stopped (%v) before answering tools/list", input, <-served)
		}
		var result struct{ Tools []struct{ Name string } }
		if err := json.Unmarshal(tools, &result); err != nil || len(result.Tools) != 1 || result.Tools[0].Name != "echo" {
			t.Fatalf("input %q: tools/list answered %s (%v)", input, tools, err)
		}
		inW.Close()
		select {
		case <-served:
		case <-ctx.Done():
			t.Fatalf("input %q: Serve did not end when its input closed", input)
		}
	})
}

// probeAnswer reads the server's output until the response to the probe,
// and sends its result, or nil if the output ends first. It goes on reading
// afterwards so that the server never blocks on a write.
func probeAnswer(out io.Reader, answered chan<- []byte) {
	defer io.Copy(io.Discard, out)
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage
			Result json.RawMessage
		}
		if json.Unmarshal(sc.Bytes(), &msg) == nil && string(msg.ID) == `"`+probeID+`"` && msg.Result != nil {
			answered <- msg.Result
			return
		}
	}
	answered <- nil
}

// echoServer is a go-sdk server with one tool, echo, which logs a line and
// returns its arguments.
func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "called"})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}, StructuredContent: req.Params.Arguments}, nil
		})
	return s
}

// serve runs s on r and w over the stdio transport, as the adapter's Serve
// does, until the input ends or ctx is done.
func serve(ctx context.Context, s *mcp.Server, r io.ReadCloser, w io.WriteCloser) error {
	t := Stdio(r, w, StdioOptions{MaxLine: mcp.DefaultMaxLineLength, MaxInFlight: testMaxInFlight,
		Drain: time.Minute, Logger: slog.New(slog.DiscardHandler)})
	ss, err := s.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { ss.Close() })
	defer stop()
	if err := ss.Wait(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// testMaxInFlight is the adapter's default of Options.MaxInFlight.
const testMaxInFlight = 64
