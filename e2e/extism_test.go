package e2e

import (
	"cmp"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/internal/egresstest"
)

// The Extism plugins of examples/extism (make plugins builds them into
// $WASMCP_EXTISM): hyper-mcp plugins written with Extism's public PDKs,
// knowing nothing of wasmcp. extism-as speaks hyper-mcp's protocol v1 and
// names its tools as_*, extism-go protocol v2 and go_*; bench/extism_test.go
// checks both under the Extism Go SDK's own host.
//
// What these tests hold wasmcp to, for an Extism plugin NAME.wasm:
//   - its tools are served beside wasmcp modules, under their own names;
//   - config_get reads "config" of the plugin's policy entry;
//   - var_get/var_set keep state across calls, dropped when the module is
//     reloaded;
//   - a call that sets error_set (and returns non-zero) is an isError
//     result whose text holds the plugin's message;
//   - log_debug/info/warn/error are notifications/message at levels debug,
//     info, warning, error, logger NAME, data the plugin's text;
//   - http_request reaches the origins of the plugin's "net" policy; another
//     origin makes the call an isError result, with no connection to it;
//   - a call past the policy's timeout is an isError result.

// extismPlugins returns the paths of extism-as.wasm and extism-go.wasm.
func extismPlugins(t *testing.T) (as, goPlugin string) {
	t.Helper()
	p := extismPluginPaths(t, "extism-as", "extism-go")
	return p[0], p[1]
}

// extismPluginPaths returns the paths of the plugins of examples/extism
// named. It skips the test while one is not built or the binary refuses
// Extism modules (`wasmcp inspect` fails on one), except under CI=true,
// where that fails it.
func extismPluginPaths(t *testing.T, names ...string) []string {
	t.Helper()
	dir := cmp.Or(os.Getenv("WASMCP_EXTISM"), filepath.Join(filepath.Dir(pluginsDir), "extism"))
	skip := t.Skipf
	if os.Getenv("CI") == "true" {
		skip = t.Fatalf
	}
	paths := make([]string, len(names))
	for i, name := range names {
		p := filepath.Join(dir, name+".wasm")
		if _, err := os.Stat(p); err != nil {
			skip("%v (make plugins builds it; WASMCP_EXTISM names its directory)", err)
		}
		if out, err := exec.Command(binPath, "inspect", p).CombinedOutput(); err != nil {
			_, why, _ := strings.Cut(string(out), "loadable")
			why, _, _ = strings.Cut(strings.TrimSpace(why), "\n")
			skip("this wasmcp does not load Extism modules (issue 25): wasmcp inspect %s: %v: %s", p, err, why)
		}
		paths[i] = p
	}
	return paths
}

// extismPolicy is the policy file of the plugins named: each with the
// greeting "hi", the given net origins, and settings extra (JSON members,
// may be empty).
func extismPolicy(t *testing.T, names []string, origins []string, extra string) string {
	t.Helper()
	var entries []string
	for _, n := range names {
		e := fmt.Sprintf(`%q:{"config":{"greeting":"hi"},"net":%s,"privateNetwork":true`, n, mustJSON(t, origins))
		if extra != "" {
			e += "," + extra
		}
		entries = append(entries, e+"}")
	}
	path := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(path, []byte(`{"plugins":{`+strings.Join(entries, ",")+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Both Extism plugins, served beside a wasmcp plugin, from the Go client.
func TestExtismPluginsWithTheGoClient(t *testing.T) {
	asPath, goPath := extismPlugins(t)
	allowed := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "hello from "+r.URL.Path)
	})
	refused := egresstest.NewServer(t, false, hello)
	policy := extismPolicy(t, []string{"extism-as", "extism-go"}, []string{allowed.Origin}, `"timeout":"2s"`)
	dir := servedCopy(t, asPath, goPath, filepath.Join(pluginsDir, "everything.wasm"))
	s := startServer(t, dir, serverOptions{protocol: legacyProtocol, args: []string{"--config", policy}})

	tools := s.tools(t)
	for _, name := range []string{"get-sum", "as_echo", "as_greeting", "as_counter", "as_fail", "as_logs", "as_fetch", "as_spin",
		"go_echo", "go_greeting", "go_counter", "go_fail", "go_logs", "go_fetch"} {
		if _, ok := tools[name]; !ok {
			t.Errorf("%s is not listed", name)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	wantText := func(t *testing.T, tool, args, want string) {
		t.Helper()
		res := s.call(t, tool, args)
		wantOK(t, res)
		if got := text(res); got != want {
			t.Errorf("%s(%s) = %q, want %q", tool, args, got, want)
		}
	}
	wantText(t, "get-sum", `{"a":7,"b":5}`, "The sum of 7 and 5 is 12.")

	for _, p := range []struct{ plugin, prefix string }{{"extism-as", "as_"}, {"extism-go", "go_"}} {
		t.Run(p.plugin, func(t *testing.T) {
			wantText(t, p.prefix+"echo", `{"text":"héllo \"wörld\"\n"}`, "héllo \"wörld\"\n")
			wantText(t, p.prefix+"greeting", `{}`, "hi")
			for i := 1; i <= 3; i++ {
				wantText(t, p.prefix+"counter", `{}`, fmt.Sprint(i))
			}
			wantToolError(t, s.call(t, p.prefix+"fail", `{"message":"it broke on purpose"}`), "it broke on purpose")

			if err := s.SetLoggingLevel(testContext(t), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
				t.Fatal(err)
			}
			wantOK(t, s.call(t, p.prefix+"logs", `{}`))
			s.wantExtismLogs(t, p.plugin, p.prefix)

			wantText(t, p.prefix+"fetch", request(t, allowed.URL+"/page"), "200\nhello from /page")
			wantToolError(t, s.call(t, p.prefix+"fetch", request(t, refused.URL+"/")))
			if n := refused.Conns(); n != 0 {
				t.Errorf("the refused origin counted %d connections", n)
			}
		})
	}

	t.Run("50 concurrent calls", func(t *testing.T) {
		var wg sync.WaitGroup
		for i := range 50 {
			tool := []string{"as_echo", "go_echo"}[i%2]
			wg.Go(func() {
				want := fmt.Sprintf("call %d of %s", i, tool)
				res, err := s.callErr(t, tool, mustJSON(t, map[string]string{"text": want}))
				if err != nil || res.IsError || text(res) != want {
					t.Errorf("%s %d: %v %v", tool, i, err, res)
				}
			})
		}
		wg.Wait()
	})

	t.Run("a looping call ends at its deadline", func(t *testing.T) {
		res := s.call(t, "as_spin", `{}`)
		if !res.IsError {
			t.Fatalf("as_spin = %s, want an isError result", mustJSON(t, res))
		}
		wantText(t, "as_echo", `{"text":"still serving"}`, "still serving")
	})
}

// wantExtismLogs waits for the log lines of the plugin's logs tool at
// levels debug to error. (The Go PDK writes trace through log_error, and
// the AssemblyScript one has no trace, so trace is not checked.)
func (s *server) wantExtismLogs(t *testing.T, plugin, prefix string) {
	t.Helper()
	want := map[string]mcp.LoggingLevel{
		prefix + "logs debug": "debug", prefix + "logs info": "info",
		prefix + "logs warn": "warning", prefix + "logs error": "error",
	}
	ctx := testContext(t)
	for len(want) > 0 {
		select {
		case p := <-s.logs:
			msg, _ := p.Data.(string)
			level, ok := want[msg]
			if !ok {
				continue
			}
			delete(want, msg)
			if p.Level != level || p.Logger != plugin {
				t.Errorf("log %q: level %q from %q, want %q from %q", msg, p.Level, p.Logger, level, plugin)
			}
		case <-ctx.Done():
			t.Fatalf("no notifications/message with %v", want)
		}
	}
}

// A replaced Extism module is served anew with list_changed, and its
// variables start over.
func TestExtismHotReloadWithTheGoClient(t *testing.T) {
	asPath, goPath := extismPlugins(t)
	policy := extismPolicy(t, []string{"extism"}, []string{}, "")
	dir := servedCopy(t, filepath.Join(pluginsDir, "everything.wasm"))
	target := filepath.Join(dir, "extism.wasm")
	install := func(wasm []byte) {
		t.Helper()
		tmp := filepath.Join(dir, ".extism.partial")
		if err := os.WriteFile(tmp, wasm, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, target); err != nil {
			t.Fatal(err)
		}
	}
	as, err := os.ReadFile(asPath)
	if err != nil {
		t.Fatal(err)
	}
	install(as)
	s := startServer(t, dir, serverOptions{protocol: legacyProtocol, args: []string{"--config", policy}})
	counter := func(tool, want string) {
		t.Helper()
		res := s.call(t, tool, `{}`)
		wantOK(t, res)
		if got := text(res); got != want {
			t.Errorf("%s = %q, want %q", tool, got, want)
		}
	}
	counter("as_counter", "1")
	counter("as_counter", "2")

	goWasm, err := os.ReadFile(goPath)
	if err != nil {
		t.Fatal(err)
	}
	install(goWasm)
	s.waitToolsChanged(t)
	tools := s.tools(t)
	if _, ok := tools["go_counter"]; !ok {
		t.Fatal("go_counter is not listed after extism.wasm became the Go plugin")
	}
	if _, ok := tools["as_counter"]; ok {
		t.Error("as_counter is still listed after its module was replaced")
	}
	counter("go_counter", "1")

	// The AssemblyScript plugin again, under a new digest: its counter
	// starts over.
	install(withCustomSection(as, "second"))
	s.waitToolsChanged(t)
	if _, ok := s.tools(t)["as_counter"]; !ok {
		t.Fatal("as_counter is not listed after its module came back")
	}
	counter("as_counter", "1")
	counter("as_counter", "2")
	if got := text(s.call(t, "as_greeting", `{}`)); got != "hi" {
		t.Errorf("as_greeting = %q, want the policy's hi", got)
	}
}

// A plugin built with Extism's Go PDK imports WASI's clock and random source
// (Go's runtime does); served without "clock" and "random" it reads
// stand-ins, and both inspect and serve say so, naming the policy key.
func TestExtismStandInsNamed(t *testing.T) {
	_, goPath := extismPlugins(t)
	out, err := exec.Command(binPath, "inspect", "--cache-dir", t.TempDir(), goPath).CombinedOutput()
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	for _, want := range []string{"stand-ins", "wasi_snapshot_preview1.clock_time_get", `"clock": true`, `"random": true`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
	s := startServer(t, servedCopy(t, goPath), serverOptions{protocol: legacyProtocol})
	s.waitLog(t, 0, "stand-ins", "clock_time_get", "random_get")
}
