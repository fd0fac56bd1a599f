package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/template"
	"time"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
)

// patience bounds every wait so that a broken test fails instead of hanging.
// It is not a performance assertion: a healthy test waits milliseconds.
const patience = 2 * time.Minute

// pluginDir holds echo.wasm, built from testdata/echo.wat, for Example.
var pluginDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "wasmcp-host-example")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	wasm, err := os.ReadFile("testdata/echo.wasm")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "echo.wasm"), wasm, 0o600)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testdata/echo.wasm (go generate builds it):", err)
		return 1
	}
	pluginDir = dir
	return m.Run()
}

// guestSpec describes a module made from testdata/tools.wat.tmpl: every tool
// has the same description, and every call returns Answer as its text.
type guestSpec struct {
	Tools       []string
	Description string
	Answer      string
}

var (
	guestTmpl  = template.Must(template.ParseFiles("testdata/tools.wat.tmpl"))
	guestMu    sync.Mutex
	guestCache = map[string][]byte{}
)

// guest builds the module for spec, once per distinct spec per test binary.
func guest(t testing.TB, spec guestSpec) []byte {
	t.Helper()
	tools := make([]map[string]any, len(spec.Tools))
	for i, name := range spec.Tools {
		tools[i] = map[string]any{
			"name": name, "description": spec.Description,
			"inputSchema": json.RawMessage(`{"type":"object"}`),
		}
	}
	describe, _ := json.Marshal(map[string]any{"tools": tools})
	return guestModule(t, describe, spec.Answer)
}

// guestModule builds the module whose describe document is describe and
// whose every call returns answer as its text, once per distinct pair per
// test binary.
func guestModule(t testing.TB, describe []byte, answer string) []byte {
	return offerModule(t, describe, answer, nil)
}

// offerModule builds a guestModule that also exports each function of
// offers ("wasmcp_read", "wasmcp_prompt", "wasmcp_complete"), returning the
// document given.
func offerModule(t testing.TB, describe []byte, answer string, offers map[string]string) []byte {
	t.Helper()
	result, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": answer}}})
	const describeAt = 16
	resultAt := describeAt + len(describe)
	type offer struct {
		Export, Params, Doc string
		At                  int
		Packed              uint64
	}
	var offs []offer
	at := resultAt + len(result)
	for _, export := range slices.Sorted(maps.Keys(offers)) {
		params := "i32 i32"
		if export == abi.ExportPrompt {
			params = "i32 i32 i32 i32"
		}
		doc := offers[export]
		offs = append(offs, offer{export, params, watString([]byte(doc)), at, uint64(at)<<32 | uint64(len(doc))})
		at += len(doc)
	}
	if at > 65536 {
		t.Fatalf("guest documents do not fit in one page")
	}
	var wat bytes.Buffer
	err := guestTmpl.Execute(&wat, map[string]any{
		"DescribeAt": describeAt, "Describe": watString(describe),
		"DescribePacked": uint64(describeAt)<<32 | uint64(len(describe)),
		"ResultAt":       resultAt, "Result": watString(result),
		"ResultPacked": uint64(resultAt)<<32 | uint64(len(result)),
		"Offers":       offs,
	})
	if err != nil {
		t.Fatal(err)
	}
	key := wat.String()
	guestMu.Lock()
	defer guestMu.Unlock()
	if wasm, ok := guestCache[key]; ok {
		return wasm
	}
	wasm := sandboxtest.Wat2Wasm(t, wat.Bytes())
	guestCache[key] = wasm
	return wasm
}

// watString escapes b for a WAT string literal: printable ASCII as is,
// everything else, quotes and backslashes as \hh.
func watString(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			s.WriteByte(c)
		} else {
			fmt.Fprintf(&s, `\%02x`, c)
		}
	}
	return s.String()
}

// place writes wasm to dir/name so that it lands in one step, as a plugin
// deployment should: written under a name the watcher ignores, then renamed.
func place(t testing.TB, dir, name string, wasm []byte) {
	t.Helper()
	tmp := filepath.Join(dir, "."+name+".tmp")
	if err := os.WriteFile(tmp, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

// logs records a Host's log output and lets a test wait for a line.
type logs struct {
	mu      sync.Mutex
	text    strings.Builder
	changed chan struct{} // closed and replaced at every write
}

func newLogs() *logs { return &logs{changed: make(chan struct{})} }

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.text.Write(p)
	close(l.changed)
	l.changed = make(chan struct{})
	return len(p), nil
}

func (l *logs) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// lineWith returns the first line holding every one of parts, and the
// channel that is closed at the next write.
func (l *logs) lineWith(parts ...string) (string, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range strings.Split(l.text.String(), "\n") {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(line, p)
		}
		if ok {
			return line, nil
		}
	}
	return "", l.changed
}

// wait returns the first line holding every one of parts, waiting for it.
func (l *logs) wait(t testing.TB, parts ...string) string {
	t.Helper()
	deadline := time.After(patience)
	for {
		line, changed := l.lineWith(parts...)
		if changed == nil {
			return line
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no log line with %q in:\n%s", parts, l.String())
		}
	}
}

// reset forgets what was logged so far.
func (l *logs) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.text.Reset()
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text.String()
}

// changes collects a Host's Changes for a test to take in order.
type changes chan host.Change

// subscribe collects the Changes made after it returns: not the one
// Subscribe delivers first, of the tools served already.
func subscribe(h *host.Host) changes {
	c := make(changes, 1024)
	var subscribed atomic.Bool
	h.Subscribe(func(ch host.Change) {
		if subscribed.Load() {
			c <- ch
		}
	})
	subscribed.Store(true)
	return c
}

func (c changes) next(t testing.TB) host.Change {
	t.Helper()
	select {
	case ch := <-c:
		return ch
	case <-time.After(patience):
		t.Fatal("no Change delivered")
		return host.Change{}
	}
}

// summary renders a Change compactly: "+a,b ~c -d".
func summary(c host.Change) string {
	var parts []string
	add := func(prefix string, names []string) {
		if len(names) > 0 {
			parts = append(parts, prefix+strings.Join(names, ","))
		}
	}
	names := func(ts []host.Tool) (out []string) {
		for _, t := range ts {
			out = append(out, t.Name)
		}
		return out
	}
	add("+", names(c.Added))
	add("~", names(c.Updated))
	add("-", c.Removed)
	return strings.Join(parts, " ")
}

// newHost creates a Host for dir with a private cache directory, logging
// to l, and closes it when the test ends.
func newHost(t testing.TB, dir string, l *logs, cfg host.Config) *host.Host {
	t.Helper()
	if l == nil {
		l = newLogs()
	}
	h, err := host.New(context.Background(), cfg.WithDir(dir).WithLogger(l.logger()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// testConfig is serve's configuration of the process-wide behaviours, with
// a cache of the test's own and a quick settle.
func testConfig(t testing.TB) host.Config {
	return host.NewConfig().WithCacheDir(t.TempDir()).WithSettle(20 * time.Millisecond).
		WithLongCalls(host.LongCalls{Reserve: 1, Nice: 10})
}

// call calls tool with no arguments and returns the text of the first
// content block, failing the test on an error or a tool error.
func call(t testing.TB, h *host.Host, tool string) string {
	t.Helper()
	res, err := h.Call(context.Background(), host.CallRequest{Tool: tool})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	if res.IsError || len(res.Content) == 0 {
		t.Fatalf("call %s: tool error %+v", tool, res)
	}
	return res.Content[0].Text
}

func toolNames(ts []host.Tool) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

//go:generate ../scripts/wat2wasm-testdata.sh testdata
