package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rawServer is `wasmcp serve` over stdio spoken to line by line.
type rawServer struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *lockedBuffer
}

// startRaw starts serve on dir with extra flags and does the handshake.
func startRaw(t *testing.T, dir string, args ...string) *rawServer {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"serve", "--dir", dir, "--cache-dir", cacheDir, "--wait-loaded"}, args...)...)
	s := &rawServer{t: t, cmd: cmd, stderr: &lockedBuffer{}}
	cmd.Stderr = s.stderr
	var err error
	if s.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.out = bufio.NewReaderSize(stdout, 1<<20)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve exited with %v", err)
			}
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			t.Error("serve did not exit after its input closed")
		}
		if t.Failed() {
			t.Logf("server log:\n%s", s.stderr)
		}
	})
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	s.next()
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *rawServer) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("write: %v", err)
	}
}

func (s *rawServer) next() string {
	s.t.Helper()
	line, err := s.out.ReadString('\n')
	if err != nil {
		s.t.Fatalf("read: %v (%q)\nserver log:\n%s", err, line, s.stderr)
	}
	return strings.TrimSuffix(line, "\n")
}

// response is a JSON-RPC response as raw parts.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (s *rawServer) answer() response {
	s.t.Helper()
	line := s.next()
	var r response
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		s.t.Fatalf("not a response: %s", line)
	}
	return r
}

// tools/list passes icons and execution through, and inspect shows them
// (issue: icons and execution dropped). Request ids, unknown methods and
// log levels, on both transports, are internal/mcpadapter's transcripts.
func TestStdioToolsListKeepsIconsAndExecution(t *testing.T) {
	s := startRaw(t, servedCopy(t, wat("structured")))
	s.send(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	r := s.answer()
	if !strings.Contains(string(r.Result), `"icons":[{"src":"https://example.com/ok.png","mimeType":"image/png","sizes":["48x48"]}]`) ||
		!strings.Contains(string(r.Result), `"execution":{"taskSupport":"forbidden"}`) {
		t.Errorf("tools/list lost icons or execution: %s", r.Result)
	}
	code, out, _ := wasmcp(t, "inspect", wat("structured"))
	if code != 0 || !strings.Contains(out, "icon:          https://example.com/ok.png image/png 48x48") ||
		!strings.Contains(out, `execution:     {"taskSupport":"forbidden"}`) {
		t.Errorf("inspect does not show icons and execution:\n%s", out)
	}
}

// Closing stdin with a call in flight: the call finishes and is answered
// before serve exits (issue: `printf '...tools/call...' | wasmcp serve` got
// no result).
func TestStdinEOFAnswersCallsInFlight(t *testing.T) {
	cmd := exec.Command(binPath, "serve", "--dir", servedCopy(t, bundled(t)...), "--cache-dir", cacheDir)
	cmd.Stdin = strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"printf","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":1,"steps":2}}}` + "\n")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr)
	}
	if !regexp.MustCompile(`"id":2,"result":\{"content":\[\{"type":"text","text":"Long running operation completed`).Match(out) {
		t.Errorf("no answer to the call in flight at EOF:\n%s\nserver log:\n%s", out, stderr)
	}
}

// 200,000 pipelined pings are all answered, and the server's memory stays
// bounded: it stops reading while 64 requests are unanswered (issue: +800
// MiB, the requests queued without bound).
func TestPipelinedRequestsBounded(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc")
	}
	s := startRaw(t, servedCopy(t, wat("hello")))
	const n = 200_000
	go func() {
		w := bufio.NewWriterSize(s.in, 1<<20)
		for i := range n {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
		}
		w.Flush()
	}()
	for i := range n {
		if line := s.next(); !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":`) {
			t.Fatalf("answer %d: %s", i, line)
		}
	}
	peak := peakRSS(t, s.cmd.Process.Pid)
	t.Logf("peak RSS after %d pipelined pings: %d MiB", n, peak>>20)
	if peak > 300<<20 {
		t.Errorf("peak RSS %d MiB, want the pipeline bounded", peak>>20)
	}
}

// peakRSS reads a process's peak resident set (VmHWM).
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no VmHWM in /proc/%d/status", pid)
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}

// --max-sessions caps the sessions open at once, closing the least recently
// used idle one for a new client rather than locking it out, and
// --body-timeout the time a client may take to send a body (issues: 10,000
// sessions accepted, trickled bodies held open, one client's sessions
// locking out the others). Ids and unknown methods over HTTP are
// internal/mcpadapter's transcripts.
func TestHTTPSessionCapAndBodyTimeout(t *testing.T) {
	cmd := exec.Command(binPath, "serve", "--dir", servedCopy(t, wat("hello")), "--cache-dir", cacheDir, "--wait-loaded",
		"--http", "127.0.0.1:0", "--max-sessions", "2", "--body-timeout", "300ms")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			t.Logf("server log:\n%s", stderr)
		}
	})
	url := waitURL(t, stderr)
	post := func(body, session string) (int, string) {
		req, _ := http.NewRequestWithContext(testContext(t), http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	var ids []string
	for range 3 {
		status, id := post(initialize, "")
		if status != http.StatusOK {
			t.Fatalf("a session with --max-sessions 2: %d", status)
		}
		ids = append(ids, id)
	}
	// The third closed the first, idle and least recently used; its next
	// request gets 404, once the close (in the background) is through.
	ctx := testContext(t)
	for {
		if status, _ := post(ping, ids[0]); status == http.StatusNotFound {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the least recently used session was never closed")
		case <-time.After(10 * time.Millisecond):
		}
	}
	for _, id := range ids[1:] {
		if status, _ := post(ping, id); status != http.StatusOK {
			t.Errorf("a session opened since: ping got %d, want 200", status)
		}
	}
	if !strings.Contains(stderr.String(), "session closed to make room") || !strings.Contains(stderr.String(), ids[0]) {
		t.Errorf("no log line of the session closed:\n%s", stderr)
	}
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", host)
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	reply, _ := io.ReadAll(conn)
	if !strings.HasPrefix(string(reply), "HTTP/1.1 408") {
		t.Errorf("a trickled body got %q, want 408", reply)
	}
}

// waitURL waits for serve to log the URL it serves.
func waitURL(t *testing.T, stderr *lockedBuffer) string {
	t.Helper()
	re := regexp.MustCompile(`serving over HTTP" url=(\S+)`)
	ctx := testContext(t)
	for {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		select {
		case <-ctx.Done():
			t.Fatalf("serve never served:\n%s", stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// --stateless promises 2025-era clients only what it delivers: no
// list_changed, no log lines, and a sampling refusal that names stateless
// mode (issue: listChanged advertised, "the client did not declare the
// sampling capability" though it did, log lines without setLevel).
func TestStatelessPromises(t *testing.T) {
	s := startServer(t, servedCopy(t, bundled(t)...), serverOptions{protocol: legacyProtocol, http: true, args: []string{"--stateless"}})
	caps := s.InitializeResult().Capabilities
	if caps.Tools == nil || caps.Tools.ListChanged {
		t.Errorf("tools capability %+v, want no listChanged", caps.Tools)
	}
	res := s.call(t, "sample-llm", `{"prompt":"hi"}`)
	if !strings.Contains(text(res), "--stateless") {
		t.Errorf("sampling in stateless mode: %s, want a reason naming --stateless", text(res))
	}
	s.call(t, "log-messages", `{}`)
	select {
	case l := <-s.logs:
		t.Errorf("a stateless client got a log line: %+v", l)
	default:
	}
}

// A module that fails to load is logged once, though the directory is read
// by the first load and again by the watcher (SIGHUP, a new configuration,
// tries it again); after SIGHUP, a module whose every tool collides is not
// logged as serving (issues: logged twice; "plugin loaded" right after
// "tool refused").
func TestLoadLoggedOnceAndTruthfully(t *testing.T) {
	dir := servedCopy(t, wat("hello"))
	if err := os.WriteFile(filepath.Join(dir, "broken.wasm"), []byte("not wasm"), 0o600); err != nil {
		t.Fatal(err)
	}
	copyFile(t, wat("hello2"), filepath.Join(dir, "zzz.wasm")) // defines hello too
	s := startServer(t, dir, serverOptions{protocol: legacyProtocol})
	if n := strings.Count(s.stderr.String(), `msg="plugin not loaded"`); n != 1 {
		t.Errorf("broken.wasm logged %d times before SIGHUP, want once", n)
	}
	s.cmd.Process.Signal(syscall.SIGHUP)
	ctx := testContext(t)
	for !strings.Contains(s.stderr.String(), "configuration reloaded") {
		select {
		case <-ctx.Done():
			t.Fatalf("no reload after SIGHUP:\n%s", s.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	log := s.stderr.String()
	if regexp.MustCompile(`msg="plugin loaded" file=\S*zzz\.wasm tools=[1-9]`).MatchString(log) {
		t.Errorf("zzz.wasm logged as serving a tool another module serves:\n%s", log)
	}
	if !strings.Contains(log, `serves no tool`) {
		t.Errorf("no line says zzz.wasm serves no tool:\n%s", log)
	}
}

// The command line answers --version and -v, and its usage says serve
// speaks HTTP.
func TestCLIVersionAndUsage(t *testing.T) {
	for _, flag := range []string{"--version", "-v", "version"} {
		t.Run(flag, func(t *testing.T) {
			if code, out, _ := wasmcp(t, flag); code != 0 || !strings.HasPrefix(out, "wasmcp ") {
				t.Errorf("wasmcp %s: exit %d, %q", flag, code, out)
			}
		})
	}
	if _, _, errOut := wasmcp(t); !strings.Contains(errOut, "Streamable HTTP") {
		t.Errorf("usage does not say serve speaks HTTP:\n%s", errOut)
	}
	for _, cmd := range []string{"inspect", "call"} {
		t.Run(cmd, func(t *testing.T) {
			if _, out, _ := wasmcp(t, "help", cmd); strings.Contains(out, "client-timeout") {
				t.Errorf("help %s lists -client-timeout, which needs a client", cmd)
			}
		})
	}
}
