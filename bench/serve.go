package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/mcpadapter"
)

// The bench runs the servers it measures as child processes of its own
// executable, chosen by these environment variables. A child process is
// what a client really talks to over stdio, and it keeps each server's
// allocations and CPU time apart from the client's.
const (
	// roleEnv selects the server: roleRaw, roleNative or roleWasmcp.
	roleEnv = "WASMCP_BENCH_ROLE"
	// dirEnv and cacheEnv are the plugin and cache directories of roleWasmcp.
	dirEnv   = "WASMCP_BENCH_DIR"
	cacheEnv = "WASMCP_BENCH_CACHE"
	// scaleEnv, "modules,tools", makes roleNative serve the tools of the scale
	// experiment's generated modules instead of echo.
	scaleEnv = "WASMCP_BENCH_SCALE"
	// controlEnv tells the server that file descriptors 3 (commands) and 4
	// (replies) are its control channel; see control.
	controlEnv = "WASMCP_BENCH_CONTROL"
	// startProfileEnv names a file for a CPU profile of the server from its
	// start to the first control command heap: its start-up.
	startProfileEnv = "WASMCP_BENCH_STARTPROFILE"
)

const (
	// roleRaw answers newline-delimited JSON-RPC by hand: the floor.
	roleRaw = "raw"
	// roleNative is the echo tool written in Go on a go-sdk server.
	roleNative = "native"
	// roleWasmcp is wasmcp's engine and MCP adapter, put together as
	// `wasmcp serve` does, in a process the bench can look into.
	roleWasmcp = "wasmcp"
)

// echoSchema is the input schema of every echo in the bench, the one the
// example guests declare.
const echoSchema = `{"type":"object","properties":{"message":{"type":"string","description":"Message to echo."}},"required":["message"]}`

// echoArgs are the arguments of echo.
type echoArgs struct {
	Message string `json:"message"`
}

// serveRole runs this process as the server role names, over stdin and
// stdout, until the client closes stdin.
func serveRole(role string) error {
	var startProfile *os.File
	if path := os.Getenv(startProfileEnv); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		startProfile = f
	}
	if os.Getenv(controlEnv) != "" {
		go control(os.NewFile(3, "control-in"), os.NewFile(4, "control-out"), startProfile)
	}
	ctx := context.Background()
	switch role {
	case roleRaw:
		return serveRaw(os.Stdin, os.Stdout)
	case roleNative:
		return serveNative(ctx)
	case roleWasmcp:
		return serveWasmcp(ctx)
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
// developer writes without wasmcp.
func serveNative(ctx context.Context) error {
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
	ss, err := s.Connect(ctx, &mcp.StdioTransport{}, nil)
	if err != nil {
		return err
	}
	if err := ss.Wait(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
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

// serveWasmcp puts the engine and the adapter together as `wasmcp serve
// -no-watch` does (cmd/wasmcp/serve.go), so that the control channel can
// read the server's allocations and profile it. The stdio experiment runs
// the real command beside it to show the two cost the same.
func serveWasmcp(ctx context.Context) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cfg := host.NewConfig().WithDir(os.Getenv(dirEnv)).WithCacheDir(os.Getenv(cacheEnv)).WithLogger(logger)
	h, err := host.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer h.Close(context.Background())
	if err := h.LoadDir(ctx); err != nil {
		return err
	}
	a := mcpadapter.New(h, mcpadapter.Options{
		Version:  "bench",
		Logger:   logger.With("component", "mcp"),
		MaxInput: host.DefaultMaxInput,
	})
	defer a.Close()
	return a.Serve(ctx, os.Stdin, os.Stdout)
}

// memDelta is what a server allocated between the control commands begin
// and end.
type memDelta struct {
	Mallocs uint64 `json:"mallocs"`
	Bytes   uint64 `json:"bytes"`
	GCs     uint32 `json:"gcs"`
}

// heapStats is the reply to the control command heap: Go's view of the
// server's memory, to set beside its resident set.
type heapStats struct {
	HeapInuse  uint64 `json:"heapInuse"`
	StackInuse uint64 `json:"stackInuse"`
	Sys        uint64 `json:"sys"` // all memory the Go runtime obtained from the OS
}

// profileMemRate is runtime.MemProfileRate while an allocation profile is
// taken: fine enough to see the small allocations of wasmcp's own code
// beside the SDK's large buffers. It is set only for that window, because
// sampling this often costs CPU time that would distort a CPU profile.
const profileMemRate = 4096

// controller serves the control channel, one command per line:
//
//	begin                 start a measurement window; answers "ok"
//	begin cpu PREFIX      also write a CPU profile of it to PREFIX.cpu.pprof
//	begin allocs PREFIX   also profile its allocations: PREFIX.allocs-begin.pprof
//	                      now, PREFIX.allocs-end.pprof at end (compare them
//	                      with pprof -base)
//	end                   end the window; answers the memDelta as JSON
//	heap [PATH]           collect garbage; answer heapStats, write the heap
//	                      profile to PATH; end the start-up CPU profile
//
// Errors are answered as {"error": "..."}.
type controller struct {
	start   runtime.MemStats
	cpu     *os.File // CPU profile of the window, or of the start-up
	allocs  string   // prefix of the window's allocation profiles
	oldRate int
}

func control(in io.Reader, out io.Writer, startProfile *os.File) {
	c := &controller{cpu: startProfile}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var reply any
		if err := c.do(strings.Fields(sc.Text()), &reply); err != nil {
			reply = map[string]string{"error": err.Error()}
		}
		b, _ := json.Marshal(reply)
		fmt.Fprintf(out, "%s\n", b)
	}
}

func (c *controller) do(args []string, reply *any) error {
	if len(args) == 0 {
		return fmt.Errorf("empty command")
	}
	switch {
	case args[0] == "begin" && len(args) == 1:
	case args[0] == "begin" && len(args) == 3 && args[1] == "cpu":
		f, err := os.Create(args[2] + ".cpu.pprof")
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return err
		}
		c.cpu = f
	case args[0] == "begin" && len(args) == 3 && args[1] == "allocs":
		c.oldRate, runtime.MemProfileRate = runtime.MemProfileRate, profileMemRate
		c.allocs = args[2]
		if err := writeAllocs(c.allocs + ".allocs-begin.pprof"); err != nil {
			return err
		}
	case args[0] == "end":
		var end runtime.MemStats
		runtime.ReadMemStats(&end)
		*reply = memDelta{Mallocs: end.Mallocs - c.start.Mallocs, Bytes: end.TotalAlloc - c.start.TotalAlloc, GCs: end.NumGC - c.start.NumGC}
		c.stopCPU()
		if c.allocs != "" {
			// Written at the same rate as the begin profile, so that the
			// samples before the window scale alike in both and cancel out.
			err := writeAllocs(c.allocs + ".allocs-end.pprof")
			runtime.MemProfileRate, c.allocs = c.oldRate, ""
			return err
		}
		return nil
	case args[0] == "heap" && len(args) <= 2:
		c.stopCPU()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if len(args) == 2 {
			if err := writeProfile("heap", args[1]); err != nil {
				return err
			}
		}
		*reply = heapStats{HeapInuse: m.HeapInuse, StackInuse: m.StackInuse, Sys: m.Sys}
		return nil
	default:
		return fmt.Errorf("unknown command %q", strings.Join(args, " "))
	}
	runtime.ReadMemStats(&c.start)
	*reply = "ok"
	return nil
}

func (c *controller) stopCPU() {
	if c.cpu != nil {
		pprof.StopCPUProfile()
		c.cpu.Close()
		c.cpu = nil
	}
}

// writeAllocs writes the allocation profile after a collection, which is
// when the profile catches up with the allocations made.
func writeAllocs(path string) error {
	runtime.GC()
	return writeProfile("allocs", path)
}

func writeProfile(name, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup(name).WriteTo(f, 0)
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
