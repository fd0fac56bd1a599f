package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bench runs the native baselines as child processes of its own
// executable, chosen by these environment variables: a child process is what
// a client really talks to, and it keeps each server's memory and CPU apart
// from the client's.
const (
	roleEnv = "WASMCP_BENCH_ROLE"
	// addrEnv is the address roleHTTP listens at.
	addrEnv = "WASMCP_BENCH_ADDR"

	// roleStdio serves echo on a go-sdk server over go-sdk's own stdio
	// transport: what a Go developer writes without wasmcp.
	roleStdio = "native-stdio"
	// roleHTTP serves the same over go-sdk's Streamable HTTP handler at
	// /mcp, until SIGTERM.
	roleHTTP = "native-http"
)

// protocol is the MCP protocol version the bench's clients ask for: the one
// the official clients speak.
const protocol = "2025-11-25"

// echoMessage is the argument of every echo call.
const echoMessage = "hello from the wasmcp bench"

// echoSchema is the input schema of the native echo: the C example's.
const echoSchema = `{"type":"object","properties":{"message":{"type":"string","description":"Message to echo."}},"required":["message"],"additionalProperties":false}`

// serveRole runs this process as the server role names until its client
// goes away (or, over HTTP, until SIGTERM).
func serveRole(role string) error {
	ctx := context.Background()
	if role == roleExtism {
		return serveExtism(ctx)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "native-echo", Version: "0"}, nil)
	s.AddTool(&mcp.Tool{
		Name:        "echo",
		Description: "Echoes back the input message.",
		InputSchema: json.RawMessage(echoSchema),
	}, nativeEcho)
	switch role {
	case roleStdio:
		return s.Run(ctx, &mcp.StdioTransport{})
	case roleHTTP:
		return serveHTTP(ctx, os.Getenv(addrEnv), mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	}
	return fmt.Errorf("unknown role %q", role)
}

// nativeEcho answers what the C example's echo answers.
func nativeEcho(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: "Echo: " + args.Message}},
		StructuredContent: json.RawMessage(`{}`),
	}, nil
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

// wasmcpCmd prepares the wasmcp binary run with args, its log in the work
// directory under name.
func (e *env) wasmcpCmd(name string, args ...string) (*exec.Cmd, error) {
	return e.command(name, nil, e.wasmcp, args...)
}

// nativeCmd prepares this executable as the native server of role.
func (e *env) nativeCmd(name, role string, envv ...string) (*exec.Cmd, error) {
	return e.command(name, append([]string{roleEnv + "=" + role}, envv...), e.self)
}

// command prepares path run with args and the extra environment envv, its
// standard error written to logs/NAME.log of the work directory (with -work,
// kept for reading).
func (e *env) command(name string, envv []string, path string, args ...string) (*exec.Cmd, error) {
	dir := filepath.Join(e.work, "logs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), envv...)
	cmd.Stderr = f
	e.logs = append(e.logs, f)
	return cmd, nil
}

// connectStdio starts cmd and connects a go-sdk client to it over stdio; the
// returned session's Close stops the process.
func connectStdio(ctx context.Context, cmd *exec.Cmd, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "wasmcp-bench", Version: "0"}, opts)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second},
		&mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(cmd.Path), err)
	}
	return cs, nil
}

// echoParams are the parameters of every echo call, and echoWant its answer.
var (
	echoParams = &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": echoMessage}}
	echoWant   = "Echo: " + echoMessage
)

// callEcho calls echo in cs and checks the answer.
func callEcho(ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.CallTool(ctx, echoParams)
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) != 1 {
		return fmt.Errorf("unexpected echo result %+v", res)
	}
	if t, ok := res.Content[0].(*mcp.TextContent); !ok || t.Text != echoWant {
		return fmt.Errorf("unexpected echo content %+v", res.Content[0])
	}
	return nil
}

// memory returns the resident set of process pid now and at its peak, from
// /proc/PID/status (Linux).
func memory(pid int) (rss, peak int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		for key, into := range map[string]*int64{"VmRSS:": &rss, "VmHWM:": &peak} {
			if v, ok := strings.CutPrefix(sc.Text(), key); ok {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				if err != nil {
					return 0, 0, fmt.Errorf("/proc/%d/status: %q: %w", pid, sc.Text(), err)
				}
				*into = kb << 10
			}
		}
	}
	if rss == 0 || peak == 0 {
		return 0, 0, fmt.Errorf("/proc/%d/status: no VmRSS or VmHWM", pid)
	}
	return rss, peak, sc.Err()
}

// processCPU returns the CPU time process pid has used, user and system,
// from /proc/PID/stat (Linux), in clock ticks of 10 ms.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces;
	// utime and stime are fields 14 and 15, the 12th and 13th after it.
	i := bytes.LastIndexByte(b, ')')
	var f []string
	if i >= 0 {
		f = strings.Fields(string(b[i+1:]))
	}
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, b)
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	// USER_HZ is 100 on every Linux the bench runs on.
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}
