package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// auditLines are the audit records in a JSON log.
func auditLines(log string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(log, "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["component"] == "audit" {
			out = append(out, rec)
		}
	}
	return out
}

// A reload that changes a module's code but none of its definitions sends
// no list_changed, and the next audit line names the new sha256 (issue: the
// adapter's copy of the tool set kept naming the old one).
func TestAuditNamesCodeOnlyReload(t *testing.T) {
	dir := servedCopy(t, wat("hello"))
	s := startServer(t, dir, serverOptions{protocol: legacyProtocol, args: []string{"--log-format", "json"}})
	v1, err := os.ReadFile(filepath.Join(dir, "hello.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	// The same module with a custom section at its end: other bytes, the
	// same code and definitions.
	v2 := append(append([]byte{}, v1...), 0, 4, 3, 'x', 'y', 'z')
	sum := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
	wantOK(t, s.call(t, "hello", ``))
	tmp := filepath.Join(dir, ".hello.partial")
	if err := os.WriteFile(tmp, v2, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "hello.wasm")); err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	for {
		wantOK(t, s.call(t, "hello", ``))
		lines := auditLines(s.stderr.String())
		if len(lines) > 0 && lines[len(lines)-1]["sha256"] == sum(v2) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the audit never named the new version %s:\n%s", sum(v2), s.stderr)
		case <-time.After(50 * time.Millisecond):
		}
	}
	if first := auditLines(s.stderr.String())[0]; first["sha256"] != sum(v1) {
		t.Errorf("the first call's audit names %v, want %s", first["sha256"], sum(v1))
	}
	select {
	case <-s.toolsChanged:
		t.Error("a reload that changed no definition sent list_changed")
	default:
	}
}

// SIGTERM while calls run: every call a client got an answer to has its
// audit line (issue: lines batched up to 10 ms were lost on exit).
func TestSIGTERMLosesNoAuditLine(t *testing.T) {
	s := startServer(t, servedCopy(t, wat("hello")), serverOptions{protocol: legacyProtocol, http: true,
		args: []string{"--log-format", "json", "--rate", "0"}})
	var answered atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := s.CallTool(testContext(t), &mcp.CallToolParams{Name: "hello"})
				if err != nil {
					return // the server went away
				}
				if !res.IsError {
					answered.Add(1)
				}
			}
		}()
	}
	ctx := testContext(t)
	for answered.Load() < 200 {
		select {
		case <-ctx.Done():
			t.Fatal("calls never got going")
		case <-time.After(10 * time.Millisecond):
		}
	}
	s.stop() // SIGTERM, and a clean exit
	close(stop)
	wg.Wait()
	lines := 0
	for _, rec := range auditLines(s.stderr.String()) {
		if rec["outcome"] == "ok" {
			lines++
		}
	}
	if int64(lines) < answered.Load() {
		t.Errorf("%d calls answered, %d audit lines: lines lost on SIGTERM", answered.Load(), lines)
	}
	t.Logf("%d calls answered, %d audit lines of successful calls", answered.Load(), lines)
}
