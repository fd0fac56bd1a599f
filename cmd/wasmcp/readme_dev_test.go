package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/internal/testenv"
)

// devSource is, for each kind of project, the source file that defines the
// tool: the file the README names for it.
var devSource = map[string]string{
	"c":              "tool.c",
	"go":             "main.go",
	"rust":           "src/lib.rs",
	"assemblyscript": "assembly/index.ts",
	"extism-go":      "main.go",
	"extism-as":      "assembly/index.ts",
}

// Bounds of the waits of TestReadmeDevLoop, against hangs only: a first
// build compiles the language's SDK (and, for AssemblyScript, installs its
// npm packages) on a machine that may be busy with other tests.
const (
	devFirstBuild = 8 * time.Minute
	devRebuild    = 4 * time.Minute
)

// sedEdit finds the edit a README block makes with sed: s/OLD/NEW/ on FILE.
var sedEdit = regexp.MustCompile(`sed -i 's/([^/]+)/([^/]*)/' (\S+)`)

// TestReadmeDevLoop follows the README's "The development loop" as a
// newcomer would, in every kind of project whose toolchain is installed:
// in a directory laid out as a clone after make build, it runs the first
// block (wasmcp new, with the block's --lang c changed to the language's),
// runs the second block's command as the server of a go-sdk client (over
// stdio; and, for C, also over HTTP with the --http its comment offers),
// runs the third block (sed, on the language's source file) and checks that
// the client is told and sees the new description. Then it breaks the
// build with a line that is not code, and the module with a tool name that
// does not load, and checks that the client gets an error log line naming
// the file and line, or the module, while the last good module serves on.
func TestReadmeDevLoop(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		testenv.Missing(t, "wasmcp dev builds a project of wasmcp new with make: install make")
	}
	blocks := readmeSection(t, "The development loop")
	var kinds []string
	for _, b := range blocks {
		kinds = append(kinds, b.lang)
	}
	if got := strings.Join(kinds, " "); got != "sh sh sh" {
		t.Fatalf("the section's blocks are %q; check that this test still follows it", got)
	}
	create, serve, edit := blocks[0].body, blocks[1].body, blocks[2].body
	if !strings.Contains(create, "--lang c hello") || !strings.HasPrefix(serve, "bin/wasmcp dev hello") {
		t.Fatalf("the section's first blocks no longer create and serve the C project hello:\n%s%s", create, serve)
	}
	m := sedEdit.FindStringSubmatch(edit)
	if m == nil || m[3] != "hello/tool.c" {
		t.Fatalf("the section's third block is no sed edit of hello/tool.c:\n%s", edit)
	}
	from, to := m[1], m[2]
	wasmcp := buildWasmcp(t)

	type run struct{ lang, transport string }
	runs := []run{{"c", "http"}}
	for _, l := range languages {
		runs = append(runs, run{l.name, "stdio"})
	}
	for _, r := range runs {
		src, ok := devSource[r.lang]
		if !ok {
			t.Fatalf("no source file known for wasmcp new --lang %s", r.lang)
		}
		t.Run(r.lang+"/"+r.transport, func(t *testing.T) {
			t.Parallel()
			clone := t.TempDir()
			if err := os.MkdirAll(filepath.Join(clone, "bin"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(wasmcp, filepath.Join(clone, "bin", "wasmcp")); err != nil {
				t.Fatal(err)
			}
			shell(t, clone, strings.Replace(create, "--lang c", "--lang "+r.lang, 1))
			project := filepath.Join(clone, "hello")
			if out, err := makeCmd(t, project, "toolchain"); err != nil {
				testenv.Missing(t, "the %s toolchain is not installed (make guest-toolchains in the source tree installs it):\n%s", r.lang, out)
			}
			command := serve
			if r.transport == "http" {
				command, _, _ = strings.Cut(serve, "#")
				command = strings.TrimSpace(command) + " --http 127.0.0.1:0"
			}
			d := startDev(t, clone, command, r.transport == "http")
			d.devLoop(t, clone, strings.Replace(edit, "hello/tool.c", "hello/"+src, 1), from, to)
			d.brokenBuild(t, project, src)
			d.brokenModule(t, filepath.Join(project, filepath.FromSlash(src)), to)
		})
	}
}

// shell runs script with bash in dir, as a reader would paste it.
func shell(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = testEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s\nfailed: %v\n%s", script, err, out)
	}
}

// devSession is a go-sdk client of a running wasmcp dev.
type devSession struct {
	*mcp.ClientSession
	changed chan struct{}
	logs    chan *mcp.LoggingMessageParams
	stderr  *testenv.Buffer
}

// devServingURL is the endpoint in the "serving over HTTP" log line.
var devServingURL = regexp.MustCompile(`serving over HTTP.*?url=(http://\S+)`)

// startDev runs command with bash in dir as the server of a new go-sdk
// client, over stdio or HTTP, and sets the client's log level to error. The
// server stops when the test ends.
func startDev(t *testing.T, dir, command string, http bool) *devSession {
	t.Helper()
	d := &devSession{changed: make(chan struct{}, 64), logs: make(chan *mcp.LoggingMessageParams, 64), stderr: &testenv.Buffer{}}
	client := mcp.NewClient(&mcp.Implementation{Name: "readme-dev-loop", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case d.changed <- struct{}{}:
			default:
			}
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			select {
			case d.logs <- r.Params:
			default:
			}
		},
	})
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = dir
	cmd.Env = testEnv()
	cmd.Stderr = d.stderr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("wasmcp dev's log:\n%s", d.stderr)
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var transport mcp.Transport = &mcp.CommandTransport{Command: cmd}
	if http {
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		t.Cleanup(func() {
			// bash has exec'd wasmcp, the block being one command.
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(time.Minute):
				_ = cmd.Process.Kill()
				t.Errorf("%s did not stop within a minute of SIGTERM", command)
				<-exited
			}
		})
		var url string
		for url == "" {
			if m := devServingURL.FindStringSubmatch(d.stderr.String()); m != nil {
				url = m[1]
				break
			}
			select {
			case err := <-exited:
				t.Fatalf("%s exited before serving: %v", command, err)
			case <-ctx.Done():
				t.Fatalf("%s: no \"serving over HTTP\" line", command)
			case <-time.After(20 * time.Millisecond):
			}
		}
		transport = &mcp.StreamableClientTransport{Endpoint: url}
	}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect to %s: %v", command, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	d.ClientSession = cs
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "error"}); err != nil {
		t.Fatal(err)
	}
	return d
}

// description waits, within bound, until tools/list shows the tool hello
// with a description for which ok holds, listing again on every
// list_changed and every few seconds; it returns the description and
// whether a list_changed came.
func (d *devSession) description(t *testing.T, bound time.Duration, what string, ok func(string) bool) (desc string, told bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), bound)
	defer cancel()
	for {
		res, err := d.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("tools/list while waiting for %s: %v", what, err)
		}
		for _, tool := range res.Tools {
			if tool.Name == "hello" {
				desc = tool.Description
			}
		}
		if ok(desc) {
			return desc, told
		}
		select {
		case <-d.changed:
			told = true
		case <-time.After(3 * time.Second):
		case <-ctx.Done():
			t.Fatalf("after %s, no %s: the tool hello is described %q", bound, what, desc)
		}
	}
}

// devLoop waits for the first build, runs the README's edit, and checks
// that the client is told and sees the new description.
func (d *devSession) devLoop(t *testing.T, clone, edit, from, to string) {
	t.Helper()
	first, _ := d.description(t, devFirstBuild, "tool hello after the first build", func(s string) bool {
		return strings.HasPrefix(s, from)
	})
	want := strings.Replace(first, from, to, 1)
	d.drain()
	shell(t, clone, edit)
	if _, told := d.description(t, devRebuild, "new description", func(s string) bool { return s == want }); !told {
		t.Error("the client saw the new description without a notifications/tools/list_changed")
	}
	d.callHello(t)
}

// drain empties the notifications received so far.
func (d *devSession) drain() {
	for {
		select {
		case <-d.changed:
		case <-d.logs:
		default:
			return
		}
	}
}

// callHello calls the tool hello and checks that it answers.
func (d *devSession) callHello(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := d.CallTool(ctx, &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{"text": projectSample.Text}})
	if err != nil || res.IsError {
		t.Fatalf("call hello: %+v, %v", res, err)
	}
}

// errorLine waits, within devRebuild, for an error log line holding each
// of want.
func (d *devSession) errorLine(t *testing.T, want ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), devRebuild)
	defer cancel()
	var seen []string
	for {
		select {
		case p := <-d.logs:
			text := fmt.Sprint(p.Data)
			seen = append(seen, string(p.Level)+": "+text)
			if p.Level != "error" {
				continue
			}
			missing := false
			for _, w := range want {
				missing = missing || !strings.Contains(text, w)
			}
			if !missing {
				return text
			}
		case <-ctx.Done():
			t.Fatalf("after %s, no error log line holding %q; log lines:\n%s", devRebuild, want, strings.Join(seen, "\n"))
		}
	}
}

// brokenBuild appends a line that is not code to the project's file and
// checks that the client gets an error line naming the file and that line,
// and that the last good module serves on; then it restores the file.
func (d *devSession) brokenBuild(t *testing.T, project, file string) {
	t.Helper()
	source := filepath.Join(project, filepath.FromSlash(file))
	good, err := os.ReadFile(source)
	if err != nil {
		t.Fatal(err)
	}
	line := bytes.Count(good, []byte("\n")) + 1
	d.drain()
	if err := os.WriteFile(source, append(good, "this is not code\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	text := d.errorLine(t, "build failed", fmt.Sprintf("%s:%d", file, line))
	t.Logf("error line of the failed build: %.200s", text)
	d.callHello(t)
	if err := os.WriteFile(source, good, 0o644); err != nil {
		t.Fatal(err)
	}
}

// brokenModule renames the tool in source, the literal "hello" last
// before its description (which starts with description), to a name the
// server keeps for itself: the module builds but does not load. It checks
// that the client gets an error line naming the module, and that the last
// good module serves on.
func (d *devSession) brokenModule(t *testing.T, source, description string) {
	t.Helper()
	good, err := os.ReadFile(source)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.LastIndex(good[:max(0, bytes.Index(good, []byte(description)))], []byte(`"hello"`))
	if at < 0 {
		t.Fatalf("%s has no \"hello\" before %q", source, description)
	}
	bad := slices.Concat(good[:at], []byte(`"wasmcp_call_tool"`), good[at+len(`"hello"`):])
	d.drain()
	if err := os.WriteFile(source, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	d.errorLine(t, "hello.wasm", "does not load", "wasmcp_call_tool")
	d.callHello(t)
}
