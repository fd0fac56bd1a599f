package e2e

import (
	"context"
	"io"
	"maps"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// probeGet fetches path of the server at base without a token, on a
// connection of its own.
func probeGet(t *testing.T, base, path string) (int, string) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	req, err := http.NewRequestWithContext(testContext(t), http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHealthAndDrain probes a real server through its life: /readyz is 503
// while its modules load (when the load is slow enough to be seen), 200
// while it serves, and 503 as soon as SIGTERM arrives, while a call in
// flight still completes; a new session is refused meanwhile, and the
// server exits 0 once the call is answered.
func TestHealthAndDrain(t *testing.T) {
	ctx := testContext(t)
	dir := servedCopy(t, filepath.Join(pluginsDir, "clientfeatures.wasm"))
	// A cache of its own: the Go guest compiles, so the load takes a while.
	cmd := exec.Command(binPath, "serve", "--dir", dir, "--cache-dir", t.TempDir())
	log := &lockedBuffer{}
	url, stop := startHTTP(t, cmd, log)
	base := strings.TrimSuffix(url, "/mcp")

	if code, body := probeGet(t, base, "/healthz"); code != 200 {
		t.Errorf("/healthz without a token = %d %q, want 200", code, body)
	}
	sawLoading := false
	for {
		code, body := probeGet(t, base, "/readyz")
		if code == 200 {
			break
		}
		if code != 503 || !strings.Contains(body, "loading") {
			t.Fatalf("/readyz during the load = %d %q, want 503 naming the load", code, body)
		}
		sawLoading = true
		select {
		case <-ctx.Done():
			t.Fatalf("never ready:\n%s", log)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Logf("503 seen while loading: %v", sawLoading)

	running := make(chan struct{}, 1)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "drain", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case running <- struct{}{}:
			default:
			}
		},
	}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: bearerClient(testToken)},
		&mcp.ClientSessionOptions{ProtocolVersion: legacyProtocol})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{
			Meta: mcp.Meta{"progressToken": 1}, Name: "trigger-long-running-operation",
			Arguments: map[string]any{"duration": 3, "steps": 30},
		})
		done <- answer{res, err}
	}()
	<-running // the guest runs

	// One SIGTERM, by stop, which then waits for a clean exit: a second
	// one could arrive after the server stopped listening for signals.
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		stop()
	}()
	for {
		code, body := probeGet(t, base, "/readyz")
		if code == 503 && strings.Contains(body, "shutting down") {
			break
		}
		if code != 200 {
			t.Fatalf("/readyz after SIGTERM = %d %q, want 503 naming the shutdown", code, body)
		}
		select {
		case a := <-done:
			t.Fatalf("the call ended (%v, %v) before /readyz turned 503", a.res, a.err)
		case <-ctx.Done():
			t.Fatal("/readyz never turned 503")
		case <-time.After(5 * time.Millisecond):
		}
	}
	resp, body := rawPost(t, url, initialize, map[string]string{"Authorization": "Bearer " + testToken})
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "shutting down") {
		t.Errorf("a new session while draining = %d %s, want 503 naming the shutdown", resp.StatusCode, body)
	}
	select {
	case a := <-done:
		t.Fatalf("the call ended (%v, %v) before the drain was checked; make it longer", a.res, a.err)
	default:
	}
	a := <-done
	if a.err != nil {
		t.Fatalf("the call in flight failed: %v", a.err)
	}
	if a.res.IsError || !strings.HasPrefix(text(a.res), "Long running operation completed.") {
		t.Fatalf("the call in flight got %q, want its result", text(a.res))
	}
	<-stopped // it must exit 0, without having cut a request
}

// scrape reads url (a /metrics endpoint) with token, if any, and returns
// the count of mcp_server_operation_duration_seconds by "tool" or
// "tool:error_type", and the whole text.
func scrape(t *testing.T, url, token string) (map[string]int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s = %d %s", url, resp.StatusCode, b)
	}
	counts := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, "mcp_server_operation_duration_seconds_count{")
		if !ok {
			continue
		}
		labels, value, _ := strings.Cut(rest, "} ")
		l := map[string]string{}
		for _, m := range promLabel.FindAllStringSubmatch(labels, -1) {
			l[m[1]] = m[2]
		}
		key := l["gen_ai_tool_name"]
		if e := l["error_type"]; e != "" {
			key += ":" + e
		}
		n, _ := strconv.Atoi(value)
		counts[key] += n
	}
	return counts, string(b)
}

var promLabel = regexp.MustCompile(`(\w+)="([^"]*)"`)

// TestMetricsCountCalls makes calls of every outcome from a go-sdk client
// and reads them back from /metrics as Prometheus text: behind the token on
// the MCP listener, without it on the -metrics one.
func TestMetricsCountCalls(t *testing.T) {
	s := startServer(t, servedCopy(t, wat("hostile"), wat("hello")), serverOptions{
		protocol: legacyProtocol,
		http:     true,
		args:     []string{"--timeout", "1s", "--memory", "2MiB", "--tool-rate", "0.001", "--metrics", "127.0.0.1:0"},
	})
	wantOK(t, s.call(t, "ping", `{}`))
	// One call per tool per 1000 s: ping's second call is refused.
	wantToolError(t, s.call(t, "ping", `{}`), "rate limit exceeded")
	wantToolError(t, s.call(t, "spin", `{}`), "timed out")
	wantToolError(t, s.call(t, "bomb", `{}`), "memory")
	wantOK(t, s.call(t, "hello", ``))

	metricsURL := strings.TrimSuffix(s.url, "/mcp") + "/metrics"
	if resp, body := rawGet(t, metricsURL); resp != http.StatusUnauthorized {
		t.Errorf("/metrics on the MCP listener without the token = %d %s, want 401", resp, body)
	}
	want := map[string]int{"ping": 1, "ping:rate_limited": 1, "spin:timeout": 1, "bomb:memory": 1, "hello": 1}
	counts, text := scrape(t, metricsURL, testToken)
	if !maps.Equal(counts, want) {
		t.Errorf("calls counted %v, want %v\n%s", counts, want, text)
	}
	for _, series := range []string{
		`wasmcp_module_loads_total{`, `wasmcp_plugin="hostile"`, `wasmcp_sessions_open{`, `wasmcp_guest_memory_peak_bytes{`,
		`wasmcp_reload_duration_seconds_count{`,
	} {
		if !strings.Contains(text, series) {
			t.Errorf("no %s in /metrics", series)
		}
	}

	m := opsURL.FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("no -metrics listener in the log:\n%s", s.stderr)
	}
	if counts, text := scrape(t, m[1], ""); !maps.Equal(counts, want) {
		t.Errorf("-metrics listener: calls counted %v, want %v\n%s", counts, want, text)
	}
	if code, body := probeGet(t, strings.TrimSuffix(m[1], "/metrics"), "/readyz"); code != 200 {
		t.Errorf("/readyz on the -metrics listener = %d %s", code, body)
	}

	// A web page after DNS rebinding reads nothing of either loopback
	// listener: its requests name the page's own host.
	for _, listener := range []struct{ name, base string }{
		{"mcp", strings.TrimSuffix(s.url, "/mcp")},
		{"metrics", strings.TrimSuffix(m[1], "/metrics")},
	} {
		t.Run(listener.name, func(t *testing.T) {
			base := listener.base
			for _, path := range []string{"/metrics", "/healthz", "/readyz"} {
				t.Run(strings.TrimPrefix(path, "/"), func(t *testing.T) {
					if code, body := reboundGet(t, base+path, testToken); code != http.StatusForbidden || strings.Contains(body, "wasmcp_") {
						t.Errorf("GET %s%s with a rebound Host = %d %.80q, want 403 and no metrics", base, path, code, body)
					}
				})
			}
		})
	}
}

// reboundGet fetches url, with token, as a page served from rebind.example
// whose name now resolves to 127.0.0.1 would: its Host names the page's host.
func reboundGet(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(req.URL.Host)
	req.Host = "rebind.example:" + port
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// opsURL finds the -metrics endpoint in the server's log.
var opsURL = regexp.MustCompile(`serving metrics and probes"? "?url"?[=:]"?(http://[^"\s]+)`)

// rawGet fetches url without credentials.
func rawGet(t *testing.T, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestTelemetryDisabled: with OTEL_SDK_DISABLED=true, calls are served and
// /metrics says there are no metrics.
func TestTelemetryDisabled(t *testing.T) {
	t.Setenv("OTEL_SDK_DISABLED", "true")
	s := startServer(t, servedCopy(t, wat("hello")), serverOptions{
		protocol: legacyProtocol,
		http:     true,
		args:     []string{"--metrics", "127.0.0.1:0"},
	})
	wantOK(t, s.call(t, "hello", ``))
	m := opsURL.FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("no -metrics listener in the log:\n%s", s.stderr)
	}
	if code, body := rawGet(t, m[1]); code != http.StatusNotFound || !strings.Contains(body, "OTEL_SDK_DISABLED") {
		t.Errorf("/metrics = %d %s, want 404 naming OTEL_SDK_DISABLED", code, body)
	}
	if code, body := probeGet(t, strings.TrimSuffix(m[1], "/metrics"), "/readyz"); code != 200 {
		t.Errorf("/readyz = %d %s", code, body)
	}
}
