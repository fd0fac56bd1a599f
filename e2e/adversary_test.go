package e2e

// The adversarial suite: the built binary attacked as a locked-down server
// would be, by hostile guests (testdata/adversary_*.wat) and abusive clients
// (issue "Hostile guests and clients"). Every test is named TestAdversary*,
// so that `go test ./e2e -run Adversary` runs the suite alone:
//
//   adversary_fs_test.go      sandbox escapes through mounts
//   adversary_ids_test.go     request ids and malformed input, stdio and HTTP
//   adversary_lists_test.go   lists and results official clients refuse
//   adversary_memory_test.go  memory under floods and bombs
//   adversary_reload_test.go  hot reload under load, guests stuck at load
//
// Each test is bounded by counts, not by sleeps; measured figures are
// logged (go test -v) so that a run reports them.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// advRaw starts serve over stdio on dir with extra flags and does the
// handshake in protocol, line by line (startRaw speaks 2025-11-25 only).
func advRaw(t *testing.T, dir, protocol string, args ...string) *rawServer {
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
	// A server that stops answering fails the read waiting for it rather
	// than the whole run.
	watchdog := time.AfterFunc(5*time.Minute, func() { cmd.Process.Kill() })
	t.Cleanup(func() {
		watchdog.Stop()
		s.in.Close()
		done := make(chan error, 1)
		go func() {
			io.Copy(io.Discard, s.out) // answers still on their way
			done <- cmd.Wait()
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			t.Error("serve did not exit after its input closed")
		}
		if t.Failed() {
			t.Logf("server log (tail):\n%s", tail(s.stderr.String(), 4000))
		}
	})
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + protocol +
		`","capabilities":{},"clientInfo":{"name":"adversary","version":"1"}}}`)
	if line := s.next(); !strings.Contains(line, `"result"`) {
		t.Fatalf("initialize: %s", line)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// untilID reads lines until the answer to id (raw JSON) and returns it; the
// lines before it are returned too.
func (s *rawServer) untilID(id string) (answer string, before []string) {
	s.t.Helper()
	for {
		line := s.next()
		var r response
		if json.Unmarshal([]byte(line), &r) == nil && string(r.ID) == id && (r.Result != nil || r.Error != nil) {
			return line, before
		}
		before = append(before, line)
	}
}

// status reads a value of /proc/PID/status in bytes (VmRSS, VmHWM).
func status(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(field + `:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no %s in /proc/%d/status", field, pid)
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}

func needProc(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc")
	}
}

// httpServer is serve --http on a loopback port.
type httpServer struct {
	url    string
	cmd    *exec.Cmd
	stderr *lockedBuffer
}

// advHTTP starts serve --http 127.0.0.1:0 on dir with extra flags; it is
// stopped with SIGTERM when the test ends.
func advHTTP(t *testing.T, dir string, args ...string) *httpServer {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"serve", "--dir", dir, "--cache-dir", cacheDir, "--wait-loaded",
		"--http", "127.0.0.1:0"}, args...)...)
	s := &httpServer{cmd: cmd, stderr: &lockedBuffer{}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("server log (tail):\n%s", tail(s.stderr.String(), 4000))
		}
	})
	s.url = waitURL(t, s.stderr)
	return s
}

// httpClient has no connection reuse limits that would queue the tests'
// concurrent requests.
var httpClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 2 * time.Minute}

// post sends one JSON-RPC body in session (none when ""), and returns the
// status, the session header and the JSON-RPC message of the answer (the
// first data line of an event stream).
func (s *httpServer) post(t *testing.T, session, body string) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodPost, s.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", legacyProtocol)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), eventData(b)
}

// eventData is the last "data:" payload of an event stream that holds a
// JSON-RPC answer, or b itself when it is not an event stream.
func eventData(b []byte) []byte {
	if !bytes.Contains(b, []byte("data:")) {
		return bytes.TrimSpace(b)
	}
	var last []byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			d = bytes.TrimSpace(d)
			if bytes.Contains(d, []byte(`"result"`)) || bytes.Contains(d, []byte(`"error"`)) {
				last = d
			}
		}
	}
	return last
}

// session opens a 2025-11-25 session and returns its id.
func (s *httpServer) session(t *testing.T) string {
	t.Helper()
	status, id, body := s.post(t, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+
		legacyProtocol+`","capabilities":{},"clientInfo":{"name":"adversary","version":"1"}}}`)
	if status != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %s", status, body)
	}
	s.post(t, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return id
}

// tail is the end of a long log.
func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
