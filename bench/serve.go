package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/internal/mcpadapter"
)

// The bench runs the servers it measures as child processes: the wasmcp
// command, and its own executable as the baselines, chosen by these
// environment variables. A child process is what a client really talks to,
// and it keeps each server's allocations and CPU time apart from the
// client's. Every child has the control channel of control.go.
const (
	// roleEnv selects the baseline server: roleRaw or roleNative.
	roleEnv = "WASMCP_BENCH_ROLE"
	// scaleEnv, "modules,tools", makes roleNative serve the tools of the
	// scale experiment's generated modules instead of echo.
	scaleEnv = "WASMCP_BENCH_SCALE"
	// httpEnv, an address, makes roleNative serve Streamable HTTP there
	// instead of stdio, until SIGTERM.
	httpEnv = "WASMCP_BENCH_HTTP"
)

const (
	// roleRaw answers newline-delimited JSON-RPC by hand: the floor.
	roleRaw = "raw"
	// roleNative is the echo tool written in Go on a go-sdk server, over
	// the stdio transport wasmcp serve uses, so that the two differ only in
	// where the echo runs.
	roleNative = "native"
	// roleNativeSDKStdio is roleNative over go-sdk's own stdio transport:
	// what a Go developer gets without wasmcp.
	roleNativeSDKStdio = "native-sdk-stdio"
	// roleNativeTyped is roleNative's echo written with go-sdk's typed
	// mcp.AddTool, its schema inferred from the argument struct: go-sdk then
	// validates the arguments against it, as wasmcp does and as MCP asks of
	// a server, where the low-level echo of roleNative checks nothing.
	roleNativeTyped = "native-typed"
)

// serveGOGC is the GOGC wasmcp serve runs with unless the environment sets
// one (serverGCPercent in cmd/wasmcp). The baselines run with Go's default,
// as a Go developer's server would, and once more with it, so that what the
// setting gains is not read as the sandbox's.
const (
	serveGOGC    = 400
	serveGOGCEnv = "GOGC=400"
)

// echoSchema is the input schema of every echo in the bench, the one the
// example guests declare.
const echoSchema = `{"type":"object","properties":{"message":{"type":"string","description":"Message to echo."}},"required":["message"]}`

// echoArgs are the arguments of echo. For go-sdk's typed echo its schema
// is inferred from them: the one the example guests declare.
type echoArgs struct {
	Message string `json:"message" jsonschema:"Message to echo."`
}

// serveRole runs this process as the server role names until the client
// closes stdin (or, over HTTP, until SIGTERM).
func serveRole(role string) error {
	ctx := context.Background()
	switch role {
	case roleRaw:
		return serveRaw(os.Stdin, os.Stdout)
	case roleNative:
		return serveNative(ctx, mcpadapter.NewStdioTransport(os.Stdin, os.Stdout, 0))
	case roleNativeSDKStdio:
		return serveNative(ctx, &mcp.StdioTransport{})
	case roleNativeTyped:
		return serveTyped(ctx, mcpadapter.NewStdioTransport(os.Stdin, os.Stdout, 0))
	}
	return fmt.Errorf("unknown role %q", role)
}

// rawRequest is the part of a JSON-RPC request the raw server reads.
type rawRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type rawResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rawError       `json:"error,omitempty"`
}

type rawError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// rawEchoResult is the result document every echo in the bench returns,
// byte for byte what wasmcp sends for the example guests' echo.
type rawEchoResult struct {
	Content           []rawText       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
}

type rawText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// rawInitialize is the raw server's initialize result: enough for the
// go-sdk client to proceed.
var rawInitialize = map[string]any{
	"protocolVersion": "2025-11-25",
	"capabilities":    map[string]any{"tools": map[string]any{}},
	"serverInfo":      map[string]any{"name": "raw-echo", "version": "0"},
}

// serveRaw is the floor: a loop that decodes each request line with
// encoding/json and encodes its answer, with no framework in between.
func serveRaw(r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		var req rawRequest
		if err := json.Unmarshal(line, &req); err != nil {
			return fmt.Errorf("request %q: %w", line, err)
		}
		if req.ID == nil {
			continue // a notification
		}
		resp := rawResponse{JSONRPC: "2.0", ID: req.ID}
		switch req.Method {
		case "initialize":
			resp.Result = rawInitialize
		case "ping":
			resp.Result = struct{}{}
		case "tools/call":
			var p struct {
				Arguments echoArgs `json:"arguments"`
			}
			if err := json.Unmarshal(req.Params, &p); err != nil {
				resp.Error = &rawError{-32602, err.Error()}
				break
			}
			resp.Result = rawEchoResult{
				Content:           []rawText{{Type: "text", Text: "Echo: " + p.Arguments.Message}},
				StructuredContent: json.RawMessage(`{}`),
			}
		default:
			resp.Error = &rawError{-32601, "method not found"}
		}
		b, err := json.Marshal(resp)
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
		if err := bw.Flush(); err != nil {
			return err
		}
	}
}

// serveNative serves echo (or the scale experiment's tools) written in Go
// on a go-sdk server with the low-level AddTool and a raw schema: what a Go
// developer writes without wasmcp. stdio is its transport unless it serves
// HTTP.
func serveNative(ctx context.Context, stdio mcp.Transport) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "native-echo", Version: "0"}, nil)
	if spec := os.Getenv(scaleEnv); spec != "" {
		mods, perMod, err := parseScale(spec)
		if err != nil {
			return err
		}
		for m := range mods {
			for k := range perMod {
				t := scaleTool(m, k)
				s.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}, fixedAnswer)
			}
		}
	} else {
		s.AddTool(&mcp.Tool{
			Name:        "echo",
			Description: "Echoes back the input message.",
			InputSchema: json.RawMessage(echoSchema),
		}, nativeEcho)
	}
	if addr := os.Getenv(httpEnv); addr != "" {
		return serveHTTP(ctx, addr, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	}
	return serveSession(ctx, s, stdio)
}

// serveSession serves s over t until the client hangs up.
func serveSession(ctx context.Context, s *mcp.Server, t mcp.Transport) error {
	ss, err := s.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	if err := ss.Wait(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// serveHTTP serves h at addr, path /mcp, until SIGTERM.
func serveHTTP(ctx context.Context, addr string, h http.Handler) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
	defer stop()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Addr: addr, Handler: mux}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// serveTyped serves echo written with go-sdk's typed mcp.AddTool over
// stdio (roleNativeTyped).
func serveTyped(ctx context.Context, stdio mcp.Transport) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "native-typed-echo", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes back the input message."}, typedEcho)
	return serveSession(ctx, s, stdio)
}

// typedEcho answers what nativeEcho answers: no output value, so that
// go-sdk adds no structured content of its own.
func typedEcho(_ context.Context, _ *mcp.CallToolRequest, args echoArgs) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: "Echo: " + args.Message}},
		StructuredContent: json.RawMessage(`{}`),
	}, nil, nil
}

func nativeEcho(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args echoArgs
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: "Echo: " + args.Message}},
		StructuredContent: json.RawMessage(`{}`),
	}, nil
}

func fixedAnswer(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: scaleAnswer}},
		StructuredContent: json.RawMessage(`{}`),
	}, nil
}

// parseScale reads scaleEnv's "modules,tools".
func parseScale(spec string) (mods, perMod int, err error) {
	a, b, ok := strings.Cut(spec, ",")
	if ok {
		if mods, err = strconv.Atoi(a); err == nil {
			perMod, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || mods < 1 || perMod < 1 {
		return 0, 0, fmt.Errorf("%s=%q is not MODULES,TOOLS", scaleEnv, spec)
	}
	return mods, perMod, nil
}
