package main

import (
	"fmt"

	"github.com/wasmcp/wasmcp/internal/testenv"

	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/internal/egresstest"
)

// repoRoot is the wasmcp source tree: tests run in cmd/wasmcp.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// projectName exercises every derivation of NAME: a '.' (not allowed in a
// Rust crate name), a '-' (a '_' in the crate's file name) and an upper-case
// letter (not allowed in an npm package name).
const projectName = "Word.count-v2"

// newProject runs "wasmcp new" for lang into a fresh directory and returns
// the project's directory.
func newProject(t *testing.T, lang string) string {
	t.Helper()
	parent := t.TempDir()
	code, out, errOut := runCLI("new", "--lang", lang, "--dir", parent, "--sdk", repoRoot(t), projectName)
	if code != 0 {
		t.Fatalf("wasmcp new --lang %s: exit %d\n%s%s", lang, code, out, errOut)
	}
	dir := filepath.Join(parent, projectName)
	if !strings.Contains(out, "created "+dir) {
		t.Errorf("wasmcp new printed %q, want it to name %s", out, dir)
	}
	return dir
}

// makeCmd runs make in dir with the variables vars, in testEnv.
func makeCmd(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		testenv.Missing(t, "make not found. On Debian/Ubuntu run: sudo apt-get install make")
	}
	cmd := exec.Command("make", args...)
	cmd.Dir = dir
	cmd.Env = testEnv()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// testEnv is the test's environment minus what an enclosing make would pass
// down to a make that a test runs.
func testEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "MAKEFLAGS", "MAKELEVEL", "MFLAGS", "CARGO_TARGET_DIR":
		default:
			env = append(env, kv)
		}
	}
	return env
}

// buildWasmcp builds this command into a temporary directory: the projects'
// tests run it as a program.
func buildWasmcp(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "wasmcp")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestNewProjectsBuildAndPass scaffolds a project in every language, runs
// its "make test" (which needs the language's toolchain: "make
// guest-toolchains" in the source tree installs them) and checks what its
// module returns through "wasmcp call".
func TestNewProjectsBuildAndPass(t *testing.T) {
	wasmcp := buildWasmcp(t)
	for _, l := range languages {
		t.Run(l.name, func(t *testing.T) {
			dir := newProject(t, l.name) // before Parallel: runCLI is not reentrant
			t.Parallel()
			if l.extism {
				if out, err := makeCmd(t, dir); err != nil {
					t.Fatalf("make: %v\n%s", err, out)
				}
				requireExtism(t, wasmcp, filepath.Join(dir, projectName+".wasm"))
			}
			out, err := makeCmd(t, dir, "test", "WASMCP="+wasmcp)
			if err != nil {
				t.Fatalf("make test: %v\n%s", err, out)
			}
			if want := "PASS"; l.name == "go" {
				if !strings.Contains(out, "ok  \t"+projectName) {
					t.Errorf("make test output lacks the go test result:\n%s", out)
				}
			} else if !strings.Contains(out, want) {
				t.Errorf("make test output lacks %s:\n%s", want, out)
			}
			checkCall(t, wasmcp, filepath.Join(dir, projectName+".wasm"))
		})
	}
}

// requireExtism skips the test while wasmcp cannot load the Extism plugin
// module (issue 25), except under CI=true, where that fails it.
func requireExtism(t *testing.T, wasmcp, module string) {
	t.Helper()
	out, err := exec.Command(wasmcp, "inspect", module).CombinedOutput()
	if err == nil {
		return
	}
	_, why, _ := strings.Cut(string(out), "loadable")
	why, _, _ = strings.Cut(strings.TrimSpace(why), "\n")
	if os.Getenv("CI") == "true" {
		t.Fatalf("wasmcp inspect %s: %v: %s", module, err, why)
	}
	t.Skipf("the plugin builds, but this wasmcp does not load Extism modules: wasmcp inspect: %v: %s", err, why)
}

// checkCall runs the module's tool on the sample and checks its result.
func checkCall(t *testing.T, wasmcp, module string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(wasmcp, "call", "--log-level", "warn", module, projectName, projectSample.Args)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("wasmcp call: %v\n%s", err, stderr.Bytes())
	}
	var res struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Words, Lines, Characters int
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("wasmcp call printed %s: %v", out, err)
	}
	got := res.StructuredContent
	s := projectSample
	if res.IsError || got.Words != s.Words || got.Lines != s.Lines || got.Characters != s.Characters {
		t.Errorf("wasmcp call printed\n%s\nwant %d words, %d lines, %d characters", out, s.Words, s.Lines, s.Characters)
	}
}

// TestNewToolchainMissing checks that each project's build, when its
// toolchain is missing, stops with the command that installs it.
func TestNewToolchainMissing(t *testing.T) {
	for _, tc := range []struct {
		lang, variable, want string
	}{
		{"go", "GO", "Install Go"},
		{"c", "CLANG", "sudo apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32"},
		{"rust", "CARGO", "sudo apt-get install rustc cargo libstd-rust-dev-wasm32 librust-serde-dev " +
			"librust-serde-derive-dev librust-serde-json-dev"},
		{"assemblyscript", "NPM", "sudo apt-get install nodejs npm"},
		{"extism-go", "GO", "Install Go"},
		{"extism-as", "NPM", "sudo apt-get install nodejs npm"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			dir := newProject(t, tc.lang)
			out, err := makeCmd(t, dir, tc.variable+"=/nonexistent/"+strings.ToLower(tc.variable))
			if err == nil || !strings.Contains(out, tc.want) {
				t.Errorf("%s: make %s=/nonexistent: %v\n%s\nwant a failure saying %q", tc.lang, tc.variable, err, out, tc.want)
			}
		})
	}
}

func TestNewProjectFiles(t *testing.T) {
	root := repoRoot(t)
	for _, tc := range []struct {
		lang  string
		files map[string]string // file -> a line it must contain
	}{
		{"go", map[string]string{
			"go.mod":       "\tgithub.com/wasmcp/wasmcp/sdk-guest/go => " + filepath.Join(root, "sdk-guest", "go") + "\n",
			"main.go":      `wasmcp.AddTool("Word.count-v2"`,
			"main_test.go": "func TestWasmcpCall(",
			"Makefile":     "WASMCP ?= wasmcp",
			"README.md":    "# Word.count-v2",
			".gitignore":   "*.wasm",
		}},
		{"c", map[string]string{
			"tool.c":          `.name = "Word.count-v2",`,
			"wasmcp/wasmcp.h": "#define WASMCP_ABI_VERSION 1",
			"wasmcp/wasmcp.c": "",
			"Makefile":        "WASMCP ?= wasmcp",
		}},
		{"rust", map[string]string{
			"Cargo.toml":              `name = "word_count-v2"`,
			"Makefile":                "release/word_count_v2.wasm",
			"src/lib.rs":              `Tool::new("Word.count-v2")`,
			"wasmcp-guest/Cargo.toml": `name = "wasmcp-guest"`,
			".cargo/config.toml":      `directory = "/usr/share/cargo/registry"`,
		}},
		{"assemblyscript", map[string]string{
			"package.json":               `"name": "word.count-v2"`,
			"asconfig.json":              `"./wasmcp/lib"`,
			"assembly/index.ts":          `export * from "../wasmcp/assembly/abi";`,
			"wasmcp/assembly/index.ts":   "",
			"wasmcp/lib/wasmcp_abort.ts": "",
		}},
		{"extism-go", map[string]string{
			"go.mod":     "require github.com/extism/go-pdk " + extismGoPDK,
			"main.go":    "//go:wasmexport call_tool",
			"Makefile":   "-buildmode=c-shared",
			"README.md":  "GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o Word.count-v2.wasm .",
			".gitignore": "*.wasm",
		}},
		{"extism-as", map[string]string{
			"package.json":      `"@extism/as-pdk": "1.0.0"`,
			"assembly/index.ts": "export function describe(): i32 {",
			"Makefile":          "WASMCP ?= wasmcp",
			"README.md":         "--use abort=assembly/index/abort",
		}},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			dir := newProject(t, tc.lang)
			for name, want := range tc.files {
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Errorf("%s: %v", tc.lang, err)
					continue
				}
				if !strings.Contains(string(data), want) {
					t.Errorf("%s: %s lacks %q:\n%s", tc.lang, name, want, data)
				}
			}
			// Nothing else is left beside the project, such as its temporary directory.
			if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
				t.Errorf("%s: the parent directory holds %d entries, want only the project", tc.lang, len(entries))
			}
		})
	}
}

func TestNewUsageErrors(t *testing.T) {
	parent := t.TempDir()
	for i, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"new", "--lang", "go"}, "want one NAME, got 0 arguments"},
		{[]string{"new", "--lang", "go", "a", "b"}, "want one NAME, got 2 arguments"},
		{[]string{"new", "wc"}, "-lang is required: one of go, c, rust, assemblyscript"},
		{[]string{"new", "--lang", "cobol", "wc"}, `unknown language "cobol"`},
		{[]string{"new", "--lang", "go", "word count"}, `NAME "word count" is not a tool name`},
		{[]string{"new", "--lang", "go", "../wc"}, `NAME "../wc" is not a tool name`},
		{[]string{"new", "--lang", "go", strings.Repeat("w", 129)}, "is not a tool name: 1 to 128"},
		{[]string{"new", "--lang", "go", "1wc"}, "must start with a letter"},
		{[]string{"new", "--lang", "go", "_wc"}, "must start with a letter"},
		{[]string{"new", "--lang", "go", "wc."}, "must not end with '.'"},
		{[]string{"new", "--lang", "go", "status"}, `NAME "status" is the name of the project's second tool`},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			args := append(tc.args, "--dir", parent)
			code, _, errOut := runCLI(args...)
			if code != 2 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "Usage: wasmcp new") {
				t.Errorf("wasmcp %q: exit %d, stderr:\n%s\nwant exit 2, %q and the usage", args, code, errOut, tc.want)
			}
		})
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("refused commands left %d entries in the parent directory", len(entries))
	}
}

func TestNewRefusesNonEmptyDirectory(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "wc")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// An empty directory is used.
	code, _, errOut := runCLI("new", "--lang", "c", "--dir", parent, "--sdk", repoRoot(t), "wc")
	if code != 0 {
		t.Fatalf("into an empty directory: exit %d\n%s", code, errOut)
	}
	// A non-empty one is left as it is.
	before, _ := os.ReadFile(filepath.Join(dir, "tool.c"))
	code, _, errOut = runCLI("new", "--lang", "go", "--dir", parent, "--sdk", repoRoot(t), "wc")
	if code != 1 || !strings.Contains(errOut, "already exists and is not empty") {
		t.Errorf("into a non-empty directory: exit %d, stderr:\n%s\nwant exit 1 and the reason", code, errOut)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "tool.c"))
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil || !bytes.Equal(before, after) {
		t.Errorf("the refused command changed %s", dir)
	}
}

func TestNewSourceTree(t *testing.T) {
	root := repoRoot(t)
	// Without --sdk or WASMCP_SDK: the tree this binary was built from.
	if got, err := sourceTree("", "WASMCP_SDK"); err != nil || got != root {
		t.Errorf("sourceTree() = %q, %v; want %q", got, err, root)
	}
	if got, err := sourceTree(filepath.Join("..", ".."), "--sdk"); err != nil || got != root {
		t.Errorf("sourceTree(../..) = %q, %v; want %q", got, err, root)
	}
	// Any other directory is refused, naming where it came from.
	t.Setenv("WASMCP_SDK", t.TempDir())
	code, _, errOut := runCLI("new", "--lang", "c", "--dir", t.TempDir(), "wc")
	if code != 1 || !strings.Contains(errOut, "WASMCP_SDK") || !strings.Contains(errOut, "not a wasmcp source tree") {
		t.Errorf("WASMCP_SDK=<empty dir>: exit %d, stderr:\n%s\nwant exit 1 and the reason", code, errOut)
	}
}

func TestGoModDirective(t *testing.T) {
	gomod := []byte("// comment\nmodule \"example.com/m\" // trailing\n\ngo 1.26.8\n\nrequire (\n\tx v1\n)\n")
	if got := goModDirective(gomod, "module"); got != "example.com/m" {
		t.Errorf("module = %q", got)
	}
	if got := goModDirective(gomod, "go"); got != "1.26.8" {
		t.Errorf("go = %q", got)
	}
	if got := goModDirective(gomod, "toolchain"); got != "" {
		t.Errorf("toolchain = %q, want none", got)
	}
}

func TestModpath(t *testing.T) {
	modpath := templateFuncs["modpath"].(func(string) string)
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "/src/wasmcp", "/src/wasmcp"},
		{"space", "/my src/wasmcp", `"/my src/wasmcp"`},
		{"quote", `/a"b/wasmcp`, `"/a\"b/wasmcp"`},
		{"digit", "/home/x/wasmcp2", "/home/x/wasmcp2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := modpath(tc.in); got != tc.want {
				t.Errorf("modpath(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

// TestNewProjectsRequest builds every project and runs its second tool,
// status, which makes one HTTP request, through "wasmcp call": without a
// policy the request is a tool error naming the policy and reaches nothing;
// with a policy granting a server on 127.0.0.1, it gets the server's answer.
func TestNewProjectsRequest(t *testing.T) {
	wasmcp := buildWasmcp(t)
	srv := egresstest.NewServer(t, false, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		w.WriteHeader(http.StatusAccepted)
	})
	config := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(config, []byte(`{"plugins":{"`+projectName+`":{"net":["`+srv.Origin+`"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	args := `{"url":"` + srv.URL + `/x"}`
	for _, l := range languages {
		if l.extism {
			continue // an Extism project has no status tool
		}
		t.Run(l.name, func(t *testing.T) {
			dir := newProject(t, l.name)
			if out, err := makeCmd(t, dir); err != nil {
				t.Fatalf("make: %v\n%s", err, out)
			}
			module := filepath.Join(dir, projectName+".wasm")
			before := srv.Conns()
			res := callStatus(t, wasmcp, module, args)
			if want := srv.Origin + " is not in plugin " + projectName + "'s net policy"; !res.IsError ||
				len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, want) {
				t.Errorf("without a policy: %+v, want a tool error saying %q", res, want)
			}
			if n := srv.Conns() - before; n != 0 {
				t.Errorf("without a policy, the server accepted %d connections", n)
			}
			res = callStatus(t, wasmcp, module, args, "--config", config)
			if res.IsError || res.StructuredContent.Status != http.StatusAccepted || res.StructuredContent.ContentType != "text/csv" {
				t.Errorf("with a policy: %+v, want status 202 and text/csv", res)
			}
		})
	}
}

// statusResult is what "wasmcp call" prints for the tool status.
type statusResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent struct {
		Status      int    `json:"status"`
		ContentType string `json:"contentType"`
	} `json:"structuredContent"`
}

func callStatus(t *testing.T, wasmcp, module, args string, flags ...string) statusResult {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(wasmcp, append(append([]string{"call", "--log-level", "error"}, flags...), module, "status", args)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("wasmcp call: %v\n%s", err, stderr.Bytes())
	}
	var res statusResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("wasmcp call printed %s: %v", out, err)
	}
	return res
}
