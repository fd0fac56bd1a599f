package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	extism "github.com/extism/go-sdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// extismPlugin returns the path of a plugin of examples/extism that `make
// plugins` built, skipping the test when there is none (failing under CI).
func extismPlugin(t *testing.T, name string) string {
	t.Helper()
	p := extismPluginPath(t, name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v (make plugins builds it)", err)
		}
		t.Skipf("%v (make plugins builds it)", err)
	}
	return p
}

// extismPluginPath is where `make plugins` puts a plugin of examples/extism.
func extismPluginPath(t *testing.T, name string) string {
	t.Helper()
	root, err := findRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(extismDir(root), name+".wasm")
}

// TestExtismPlugins checks every tool of the plugins of examples/extism
// under the Extism Go SDK's own host: the reference that says the plugins
// are what Extism's documentation describes, before wasmcp runs them.
func TestExtismPlugins(t *testing.T) {
	for _, tc := range []struct{ name, prefix string }{{"extism-as", "as_"}, {"extism-go", "go_"}} {
		t.Run(tc.name, func(t *testing.T) { checkExtismPlugin(t, extismPlugin(t, tc.name), tc.prefix) })
	}
}

func checkExtismPlugin(t *testing.T, path, prefix string) {
	ctx := context.Background()
	allowed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.URL.Path)
	}))
	defer allowed.Close()
	var refusedConns atomic.Int32
	refused := httptest.NewUnstartedServer(http.NotFoundHandler())
	refused.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			refusedConns.Add(1)
		}
	}
	refused.Start()
	defer refused.Close()

	var mu sync.Mutex
	var logs []string
	extism.SetLogLevel(extism.LogLevelTrace)
	h, err := newExtismHost(ctx, path, extismOptions{
		config:       map[string]string{"greeting": "hi"},
		allowedHosts: []string{"127.0.0.1"},
		instances:    1,
		logger: func(l extism.LogLevel, msg string) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, l.String()+" "+msg)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.close(ctx)

	tools, err := h.tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range tools {
		names[tool.Name] = true
	}
	for _, want := range []string{"echo", "greeting", "counter", "fail", "logs", "fetch"} {
		if !names[prefix+want] {
			t.Errorf("tools %v lack %s", names, prefix+want)
		}
	}

	call := func(tool, args string) (string, error) {
		res, err := h.call(ctx, prefix+tool, []byte(args))
		if err != nil {
			return "", err
		}
		if res.IsError || len(res.Content) != 1 {
			return "", fmt.Errorf("%s: unexpected result %+v", tool, res)
		}
		return res.Content[0].(*mcp.TextContent).Text, nil
	}
	want := func(tool, args, want string) {
		t.Helper()
		got, err := call(tool, args)
		if err != nil || got != want {
			t.Errorf("%s(%s) = %q, %v; want %q", tool, args, got, err, want)
		}
	}
	want("echo", `{"text":"héllo \"wörld\"\n"}`, "héllo \"wörld\"\n")
	want("greeting", `{}`, "hi")
	want("counter", `{}`, "1")
	want("counter", `{}`, "2")
	want("counter", `{}`, "3")
	if _, err := call("fail", `{"message":"it broke on purpose"}`); err == nil || !strings.Contains(err.Error(), "it broke on purpose") {
		t.Errorf("fail: error %v, want the plugin's message", err)
	}
	want("logs", `{}`, "logged at trace, debug, info, warn and error")
	mu.Lock()
	for _, level := range []string{"debug", "info", "warn", "error"} {
		if !strings.Contains(strings.Join(logs, "\n"), prefix+"logs "+level) {
			t.Errorf("no %s log line in %q", level, logs)
		}
	}
	mu.Unlock()
	want("fetch", fmt.Sprintf(`{"url":%q}`, allowed.URL+"/x"), "200\nhello from /x")
	// The refused origin is the same kind of server under a name the
	// manifest does not allow; Extism refuses it before connecting.
	refusedURL := strings.Replace(refused.URL, "127.0.0.1", "localhost", 1)
	if got, err := call("fetch", fmt.Sprintf(`{"url":%q}`, refusedURL)); err == nil {
		t.Errorf("fetch of a refused origin = %q, want an error", got)
	}
	if n := refusedConns.Load(); n != 0 {
		t.Errorf("the refused origin had %d connections, want 0", n)
	}
}

// extismUnsupported says why the wasmcp of $WASMCP_BIN cannot run the
// experiment's Extism plugin, "" when it can (or when there is no binary to
// ask). Until issue 25's host side lands, wasmcp refuses Extism modules.
func extismUnsupported() string {
	bin := os.Getenv("WASMCP_BIN")
	root, err := findRoot()
	if bin == "" || err != nil {
		return ""
	}
	plugin := filepath.Join(extismDir(root), extismModule+".wasm")
	if out, err := exec.Command(bin, "inspect", plugin).CombinedOutput(); err != nil {
		_, why, _ := strings.Cut(string(out), "loadable")
		why, _, _ = strings.Cut(strings.TrimSpace(why), "\n")
		return fmt.Sprintf("wasmcp inspect %s: %v: %s", plugin, err, why)
	}
	return ""
}
