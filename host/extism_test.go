package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/internal/egresstest"
)

// extismHost serves testdata/extism.wasm (protocol v1, one tool per host
// function or failure) as plugin "extism", under the policy section
// settings, a JSON object.
func extismHost(t *testing.T, settings string) (*host.Host, *logs) {
	t.Helper()
	p, err := policy.Parse([]byte(`{"plugins":{"extism":`+settings+`}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := newLogs()
	h := newHost(t, "", l, testConfig(t).WithPolicy(p).WithResolver(egresstest.Names))
	if err := h.LoadFile(t.Context(), filepath.Join("testdata", "extism.wasm")); err != nil {
		t.Fatal(err)
	}
	return h, l
}

// callTool calls tool with args and returns the result.
func callTool(t *testing.T, h *host.Host, tool, args string, log func(abi.LogLevel, string)) *host.Result {
	t.Helper()
	req := host.CallRequest{Tool: tool, Arguments: json.RawMessage(args)}
	if log != nil {
		req.Log = func(_ string, level abi.LogLevel, msg string) { log(level, msg) }
	}
	res, err := h.Call(t.Context(), req)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return res
}

// text is the first text block of a result, failing the test on an error.
func text(t *testing.T, res *host.Result) string {
	t.Helper()
	if res.IsError || len(res.Content) == 0 {
		t.Fatalf("tool error: %+v (failure %v)", res.Content, res.Failure)
	}
	return res.Content[0].Text
}

func TestExtismToolsAndConfig(t *testing.T) {
	h, _ := extismHost(t, `{"config":{"greeting":"hello from the policy"}}`)
	if got := strings.Join(toolNames(h.Tools()), ","); got != "alloc_bomb,bad_pointer,config,deadloop,error,fetch,go_refused,logs,output_big,repeat,set_output_outside,toobig_var,vars" {
		t.Fatalf("tools %s", got)
	}
	if got := text(t, callTool(t, h, "config", "", nil)); got != "hello from the policy" {
		t.Errorf("config_get gave %q", got)
	}
	// Without a config, config_get returns 0.
	h2, _ := extismHost(t, `{}`)
	if got := text(t, callTool(t, h2, "config", "", nil)); got != "(none)" {
		t.Errorf("config_get without config gave %q", got)
	}
}

// Defaults give the config of every plugin that has none of its own.
func TestExtismConfigDefaults(t *testing.T) {
	p, err := policy.Parse([]byte(`{"defaults":{"config":{"greeting":"default"}},"plugins":{"other":{"config":{"greeting":"other"}}}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Config("extism")["greeting"]; got != "default" {
		t.Errorf("extism's greeting %q", got)
	}
	if got := p.Config("other")["greeting"]; got != "other" {
		t.Errorf("other's greeting %q", got)
	}
}

func TestExtismVarsAcrossCallsAndReload(t *testing.T) {
	dir := t.TempDir()
	wasm, err := os.ReadFile(filepath.Join("testdata", "extism.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	place(t, dir, "extism.wasm", wasm)
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t))
	if err := h.LoadDir(t.Context()); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if got, want := text(t, callTool(t, h, "vars", "", nil)), fmt.Sprintf("count=%d", i); got != want {
			t.Fatalf("call %d: %q, want %q", i, got, want)
		}
	}
	// A new version of the file (a custom section more) is a new plugin:
	// its variables start empty.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() { _ = h.Watch(ctx) }()
	v2 := append(wasm, 0, 2, 1, 'x')
	place(t, dir, "extism.wasm", v2)
	l.wait(t, "plugin loaded", sha256Hex(v2))
	if got := text(t, callTool(t, h, "vars", "", nil)); got != "count=1" {
		t.Errorf("after reload: %q, want count=1", got)
	}
}

func TestExtismErrorSet(t *testing.T) {
	h, _ := extismHost(t, `{}`)
	res := callTool(t, h, "error", "", nil)
	if !res.IsError || res.Failure != nil || len(res.Content) != 1 || res.Content[0].Text != "plugin says no" {
		t.Errorf("result %+v (failure %v), want the plugin's own error", res.Content, res.Failure)
	}
}

func TestExtismFailures(t *testing.T) {
	h, _ := extismHost(t, `{"memory":"4MiB","timeout":"300ms","maxOutput":1024}`)
	cases := []struct {
		tool string
		is   error
		want string
	}{
		{"alloc_bomb", host.ErrMemory, "exceeded memory limit of 4 MiB: extism:host/env.alloc(65536)"},
		{"bad_pointer", nil, "extism:host/env.load_u64: [549755813632, 549755813640) is outside the kernel memory in use"},
		{"deadloop", host.ErrTimeout, "timed out after 300ms"},
		{"output_big", nil, "output_set of call gave 2048 bytes, over the limit of 1 KiB"},
		{"set_output_outside", nil, "extism:host/env.output_set: output [56, 156) is outside the kernel memory in use"},
		{"toobig_var", nil, "extism:host/env.var_set: the plugin's variables would take 2097219 bytes, over the limit of 1 MiB"},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			res := callTool(t, h, c.tool, "", nil)
			if !res.IsError || res.Failure == nil || (c.is != nil && !errors.Is(res.Failure, c.is)) ||
				!strings.Contains(res.Content[0].Text, c.want) {
				t.Errorf("%s: %+v (failure %v), want %q", c.tool, res.Content, res.Failure, c.want)
			}
		})
	}
	// The plugin keeps serving.
	if got := text(t, callTool(t, h, "vars", "", nil)); got != "count=1" {
		t.Errorf("after the failures: %q", got)
	}
}

func TestExtismLogs(t *testing.T) {
	h, l := extismHost(t, `{}`)
	var lines []string
	res := callTool(t, h, "logs", "", func(level abi.LogLevel, msg string) { lines = append(lines, level.String()+" "+msg) })
	// With a client listening, every level is wanted: trace.
	if got := text(t, res); got != "level=0" {
		t.Errorf("get_log_level with a client: %q", got)
	}
	if got, want := strings.Join(lines, "|"), "debug trace line|debug debug line|info info line|warning warn line|error error line"; got != want {
		t.Errorf("client got %q, want %q", got, want)
	}
	for _, want := range []string{"level=DEBUG msg=\"trace line\"", "level=INFO msg=\"info line\"", "level=WARN msg=\"warn line\"", "level=ERROR msg=\"error line\""} {
		l.wait(t, want, "plugin=extism", "tool=logs")
	}
	// Without a client, the logger's level: the test logger's is debug.
	if got := text(t, callTool(t, h, "logs", "", nil)); got != "level=0" {
		t.Errorf("get_log_level with a debug logger: %q", got)
	}
	warnLogger := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	warn, err := host.New(t.Context(), testConfig(t).WithLogger(warnLogger))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { warn.Close(context.Background()) })
	if err := warn.LoadFile(t.Context(), filepath.Join("testdata", "extism.wasm")); err != nil {
		t.Fatal(err)
	}
	if got := text(t, callTool(t, warn, "logs", "", nil)); got != "level=3" {
		t.Errorf("get_log_level with a warn logger: %q", got)
	}
}

func TestExtismHTTP(t *testing.T) {
	allowed := egresstest.NewServer(t, false, hello)
	refused := egresstest.NewServer(t, false, hello)
	h, l := extismHost(t, `{"net":["`+allowed.Origin+`"],"config":{"url":"`+allowed.URL+`/x","refused_url":"`+refused.URL+`/y"}}`)
	if got := text(t, callTool(t, h, "fetch", "", nil)); got != "status=200 body=hello" {
		t.Errorf("fetch: %q", got)
	}
	res := callTool(t, h, "go_refused", "", nil)
	want := "http_request GET " + refused.URL + "/y: denied: " + refused.Origin + " is not in plugin extism's net policy"
	if !res.IsError || !strings.Contains(res.Content[0].Text, want) {
		t.Errorf("refused: %+v, want %q", res.Content, want)
	}
	if n := refused.Conns(); n != 0 {
		t.Errorf("the refused server counted %d connections", n)
	}
	l.wait(t, "net request", "outcome=denied", "origin="+refused.Origin)
}

func TestExtismConcurrentCalls(t *testing.T) {
	h, _ := extismHost(t, `{}`)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := range 50 {
		wg.Go(func() {
			args := fmt.Sprintf(`{"i":%d,"pad":"%s"}`, i, strings.Repeat("x", i))
			res, err := h.Call(t.Context(), host.CallRequest{Tool: "repeat", Arguments: json.RawMessage(args)})
			switch {
			case err != nil:
				errs <- err
			case res.IsError || string(res.StructuredContent) != args:
				errs <- fmt.Errorf("call %d: %s %+v", i, res.StructuredContent, res.Content)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestExtismProtocolV2(t *testing.T) {
	h := newHost(t, "", nil, testConfig(t))
	if err := h.LoadFile(t.Context(), filepath.Join("testdata", "extism_v2.wasm")); err != nil {
		t.Fatal(err)
	}
	res := callTool(t, h, "whoami", `{"a":1}`, nil)
	var in struct {
		Request struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"request"`
		Context struct {
			ID   *int           `json:"id"`
			Meta map[string]any `json:"_meta"`
		} `json:"context"`
	}
	if err := json.Unmarshal(res.StructuredContent, &in); err != nil || res.IsError {
		t.Fatalf("%s %+v: %v", res.StructuredContent, res.Content, err)
	}
	if in.Request.Name != "whoami" || string(in.Request.Arguments) != `{"a":1}` || in.Context.ID == nil || in.Context.Meta == nil {
		t.Errorf("input %s", res.StructuredContent)
	}
}

func TestExtismBadModules(t *testing.T) {
	cases := []struct{ file, want string }{
		{"extism_userimport", "import extism:host/user.get_weather: no such function in extism:host/user"},
		{"extism_noprotocol", "missing export call: hyper-mcp plugin protocol v1 needs both describe and call"},
		{"extism_badjson", "describe document: not a JSON object"},
		{"extism_badsig", "import extism:host/env.alloc: signature (i32) -> i32, want (i64) -> i64"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			h := newHost(t, "", nil, testConfig(t))
			err := h.LoadFile(t.Context(), filepath.Join("testdata", c.file+".wasm"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want %q", c.file, err, c.want)
			}
		})
	}
}

// An Extism module is served beside a wasmcp module of the same directory.
func TestExtismBesideWasmcp(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"extism", "echo"} {
		wasm, err := os.ReadFile(filepath.Join("testdata", name+".wasm"))
		if err != nil {
			t.Fatal(err)
		}
		place(t, dir, name+".wasm", wasm)
	}
	h := newHost(t, dir, nil, testConfig(t))
	if err := h.LoadDir(t.Context()); err != nil {
		t.Fatal(err)
	}
	names := strings.Join(toolNames(h.Tools()), ",")
	if !strings.Contains(names, "vars") || !strings.Contains(names, "echo") {
		t.Errorf("tools %s", names)
	}
}

func TestExtismInspect(t *testing.T) {
	for _, c := range []struct {
		file     string
		protocol int
	}{{"extism", 1}, {"extism_v2", 2}} {
		t.Run(c.file, func(t *testing.T) {
			r, err := host.Inspect(t.Context(), testConfig(t).WithLogger(slog.New(slog.DiscardHandler)), filepath.Join("testdata", c.file+".wasm"))
			if err != nil {
				t.Fatal(err)
			}
			if !r.Loadable || r.Kind != "extism" || r.Protocol != c.protocol || r.ABIVersion != 0 || len(r.Tools) == 0 {
				t.Errorf("%s: %+v", c.file, r)
			}
		})
	}
	r, err := host.Inspect(t.Context(), testConfig(t).WithLogger(slog.New(slog.DiscardHandler)), filepath.Join("testdata", "echo.wasm"))
	if err != nil || r.Kind != "wasmcp" || r.Protocol != 0 {
		t.Errorf("echo: %+v, %v", r, err)
	}
}

// The plugins `make` builds with Extism's public PDKs (examples/extism), when
// they have been built: loaded unchanged, configured from the policy, their
// state kept across calls. WASMCP_EXTISM names their directory; the default
// is build/extism.
func TestExtismPDKPlugins(t *testing.T) {
	dir := os.Getenv("WASMCP_EXTISM")
	if dir == "" {
		dir = filepath.Join("..", "build", "extism")
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.wasm"))
	if len(paths) == 0 {
		t.Skipf("no Extism PDK plugins in %s (built by make)", dir)
	}
	p, err := policy.Parse([]byte(`{"defaults":{"config":{"greeting":"from the policy"}}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			h := newHost(t, "", nil, testConfig(t).WithPolicy(p))
			if err := h.LoadFile(t.Context(), path); err != nil {
				t.Fatal(err)
			}
			for _, tool := range toolNames(h.Tools()) {
				switch {
				case strings.HasSuffix(tool, "_greeting"):
					if got := text(t, callTool(t, h, tool, "", nil)); !strings.Contains(got, "from the policy") {
						t.Errorf("%s: %q", tool, got)
					}
				case strings.HasSuffix(tool, "_counter"):
					first, second := text(t, callTool(t, h, tool, "", nil)), text(t, callTool(t, h, tool, "", nil))
					if first == second {
						t.Errorf("%s: %q twice", tool, first)
					}
				}
			}
		})
	}
}

// An Extism plugin built as a command gets its _start run before any export,
// as Extism's runtime runs it.
func TestExtismCommandStart(t *testing.T) {
	h := newHost(t, "", nil, testConfig(t))
	if err := h.LoadFile(t.Context(), filepath.Join("testdata", "extism_command.wasm")); err != nil {
		t.Fatal(err)
	}
	if got := text(t, callTool(t, h, "started", `{}`, nil)); got != "started" {
		t.Errorf("started: %q", got)
	}
}

// An Extism plugin cannot ask for the clock or randomness, so one that
// imports them and is not granted them reads stand-ins: the host says so
// at load and in inspect, naming the import and the policy key.
func TestExtismStandIns(t *testing.T) {
	path := filepath.Join("testdata", "extism_clock.wasm")
	for _, tc := range []struct {
		name, section string
		want          []string // the policy keys named
	}{
		{"nothing granted", `{}`, []string{"clock", "random"}},
		{"clock granted", `{"clock": true}`, []string{"random"}},
		{"both granted", `{"clock": true, "random": true}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := policy.Parse([]byte(`{"plugins":{"extism_clock":`+tc.section+`}}`), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			cfg := testConfig(t).WithPolicy(p)
			r, err := host.Inspect(t.Context(), cfg.WithLogger(slog.New(slog.DiscardHandler)), path)
			if err != nil || !r.Loadable {
				t.Fatalf("inspect: %+v, %v", r, err)
			}
			if len(r.StandIns) != len(tc.want) {
				t.Fatalf("stand-ins %q, want one per %q", r.StandIns, tc.want)
			}
			for i, key := range tc.want {
				imp := map[string]string{"clock": "clock_time_get", "random": "random_get"}[key]
				if s := r.StandIns[i]; !strings.Contains(s, "wasi_snapshot_preview1."+imp) || !strings.Contains(s, `"`+key+`": true`) {
					t.Errorf("stand-in %q: want the import %s and the key %q", s, imp, key)
				}
			}

			l := newLogs()
			h := newHost(t, "", l, cfg)
			if err := h.LoadFile(t.Context(), path); err != nil {
				t.Fatal(err)
			}
			line, _ := l.lineWith("stand-ins")
			if (line != "") != (len(tc.want) > 0) {
				t.Errorf("load log line about stand-ins %q, want one only when something is not granted", line)
			}
			for _, key := range tc.want {
				if !strings.Contains(line, key) {
					t.Errorf("load log line %q does not name %q", line, key)
				}
			}
			if got := text(t, callTool(t, h, "now", "", nil)); got != "now" {
				t.Errorf("now = %q", got)
			}
		})
	}
	// A wasmcp module asks for what it needs, and one that imports the
	// clock without asking chose the stand-in: nothing to say.
	r, err := host.Inspect(t.Context(), testConfig(t).WithLogger(slog.New(slog.DiscardHandler)), filepath.Join("testdata", "echo.wasm"))
	if err != nil || len(r.StandIns) != 0 {
		t.Errorf("echo: stand-ins %q, %v", r.StandIns, err)
	}
}
