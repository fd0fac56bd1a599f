package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// wasmcp runs the binary with args and returns its exit status, stdout and
// stderr.
func wasmcp(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.CommandContext(testContext(t), binPath, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("wasmcp %s: %v", strings.Join(args, " "), err)
	}
	return code, o.String(), e.String()
}

// callResult is what "wasmcp call" prints.
type callResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func TestCLICall(t *testing.T) {
	hostile := wat("hostile")
	limits := []string{"--cache-dir", cacheDir, "--timeout", "1s", "--memory", "2MiB"}
	for _, tc := range []struct {
		name    string
		args    []string
		isError bool
		text    string
	}{
		{"ok", []string{hostile, "ping"}, false, "pong"},
		{"flags after the arguments", []string{hostile, "ping", "{}", "--timeout", "5s"}, false, "pong"},
		{"timeout", []string{hostile, "spin", "{}"}, true, "timed out after 1s"},
		{"memory", []string{hostile, "bomb"}, true, "exceeded memory limit of 2 MiB"},
		{"arguments against the schema", []string{hostile, "ping", `{"extra":1}`}, true, "extra"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := wasmcp(t, append(append([]string{"call"}, limits...), tc.args...)...)
			// A tool error is still a successful run of the command.
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, errOut)
			}
			var res callResult
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("stdout is not a result: %v\n%s", err, out)
			}
			if res.IsError != tc.isError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, tc.text) {
				t.Errorf("result = %s, want isError %v and text containing %q", out, tc.isError, tc.text)
			}
			// A successful result always has structuredContent; an error
			// made by the host never does (ABI.md section 4).
			if want := map[bool]string{false: "{}", true: ""}[tc.isError]; string(res.StructuredContent) != want {
				t.Errorf("structuredContent = %s, want %q", res.StructuredContent, want)
			}
		})
	}

	t.Run("unknown tool", func(t *testing.T) {
		code, _, errOut := wasmcp(t, "call", "--cache-dir", cacheDir, hostile, "nope")
		if code != 1 || !strings.Contains(errOut, `no tool "nope"`) || !strings.Contains(errOut, "ping") {
			t.Errorf("exit %d, stderr:\n%s\nwant exit 1 naming the tool and the ones there are", code, errOut)
		}
	})
	t.Run("not a module", func(t *testing.T) {
		code, _, errOut := wasmcp(t, "call", "--cache-dir", cacheDir, garbage(t), "ping")
		if code != 1 || !strings.Contains(errOut, "garbage.wasm") {
			t.Errorf("exit %d, stderr:\n%s\nwant exit 1 naming the file", code, errOut)
		}
	})
}

func TestCLIInspect(t *testing.T) {
	code, out, errOut := wasmcp(t, "inspect", "--cache-dir", cacheDir, wat("hostile"))
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	for _, want := range []string{
		"loadable     yes",
		"abi version  1",
		"spin", "bomb", "ping",
		`input schema:  {"type":"object","additionalProperties":false}`,
		"wasmcp_call: (i32, i32, i32, i32) -> i64",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}

	// With --dir, a module whose tools are served already shows the
	// collisions.
	dir := servedCopy(t, wat("hostile"))
	other := filepath.Join(t.TempDir(), "other.wasm")
	copyFile(t, wat("hostile"), other)
	code, out, _ = wasmcp(t, "inspect", "--cache-dir", cacheDir, "--dir", dir, other)
	if code != 0 || !strings.Contains(out, "collisions with") || !strings.Contains(out, "ping: served from") {
		t.Errorf("inspect --dir: exit %d\n%s", code, out)
	}

	code, out, _ = wasmcp(t, "inspect", "--cache-dir", cacheDir, "--json", garbage(t))
	var r struct {
		Loadable bool   `json:"loadable"`
		Problem  string `json:"problem"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("inspect --json: %v\n%s", err, out)
	}
	if code != 1 || r.Loadable || !strings.Contains(r.Problem, "garbage.wasm") {
		t.Errorf("inspect of a non-module: exit %d, %+v; want exit 1 and a problem naming the file", code, r)
	}
}

func TestCLIVersion(t *testing.T) {
	code, out, _ := wasmcp(t, "version")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"wasmcp ", "guest ABI 1", "go-sdk v1.", "wazero v1."} {
		if !strings.Contains(out, want) {
			t.Errorf("version output lacks %q:\n%s", want, out)
		}
	}
}

// garbage returns a file named like a module that is not one.
func garbage(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "garbage.wasm")
	if err := os.WriteFile(p, []byte("not a WebAssembly module"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
