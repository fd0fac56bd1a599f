package e2e

import (
	"github.com/wasmcp/wasmcp/internal/testenv"

	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// definitionCases are describe documents at the edges of what MCP and the
// official SDKs accept. serve must either serve a tool so that the
// TypeScript SDK parses the list, or refuse the module: one module must
// never make a client refuse every module's tools (issue: an array
// outputSchema or a boolean property schema broke the whole tools/list).
var definitionCases = []struct {
	name, tools string
	served      bool
}{
	{"plain", `[{"name":"plain","inputSchema":{"type":"object"}}]`, true},
	{"nested-boolean", `[{"name":"nested-boolean","inputSchema":{"type":"object","properties":{"a":{"type":"array","items":true}}}}]`, true},
	{"icons", `[{"name":"icons","inputSchema":{"type":"object"},"icons":[{"src":"data:image/png;base64,AA==","sizes":["any"],"theme":"light"}]}]`, true},
	{"execution", `[{"name":"execution","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]`, true},
	{"annotated", `[{"name":"annotated","title":"T","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true,"openWorldHint":false},"_meta":{"x":[1]}}]`, true},
	{"draft7", `[{"name":"draft7","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"}},"required":["a"]}}]`, true},
	{"array-output", `[{"name":"array-output","inputSchema":{"type":"object"},"outputSchema":{"type":"array"}}]`, false},
	{"untyped-output", `[{"name":"untyped-output","inputSchema":{"type":"object"},"outputSchema":{"properties":{}}}]`, false},
	{"boolean-property", `[{"name":"boolean-property","inputSchema":{"type":"object","properties":{"a":true}}}]`, false},
	{"boolean-output-property", `[{"name":"boolean-output-property","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"a":false}}}]`, false},
	{"type-list", `[{"name":"type-list","inputSchema":{"type":["object"]}}]`, false},
	{"required-numbers", `[{"name":"required-numbers","inputSchema":{"type":"object","required":[1]}}]`, false},
	{"icon-theme", `[{"name":"icon-theme","inputSchema":{"type":"object"},"icons":[{"src":"https://x/i.png","theme":"blue"}]}]`, false},
	{"task-support", `[{"name":"task-support","inputSchema":{"type":"object"},"execution":{"taskSupport":"always"}}]`, false},
	{"hint-string", `[{"name":"hint-string","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":"yes"}}]`, false},
}

func TestEveryListParsesWithTheTypeScriptSDK(t *testing.T) {
	node, script := typescriptParser(t)
	dir := t.TempDir()
	for _, c := range definitionCases {
		writeDescribeModule(t, filepath.Join(dir, c.name+".wasm"), `{"tools":`+c.tools+`}`)
	}
	s := startRaw(t, dir)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	r := s.answer()
	cmd := exec.Command(node, script)
	cmd.Stdin = bytes.NewReader(r.Result)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("the TypeScript SDK refuses the list: %v\n%s\nlist: %s", err, errOut.String(), r.Result)
	}
	names := strings.Fields(out.String())
	for _, c := range definitionCases {
		t.Run(c.name, func(t *testing.T) {
			if slices.Contains(names, c.name) != c.served {
				t.Errorf("%s: served %v, want %v (log:\n%s)", c.name, !c.served, c.served, s.stderr)
			}
		})
	}
}

// typescriptParser returns node and the script that parses a list with the
// TypeScript SDK, installed by make deps; it skips the test without them.
func typescriptParser(t *testing.T) (node, script string) {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	script = filepath.Join(root, "e2e", "ts", "parse-tools.mjs")
	sdk := filepath.Join(root, "e2e", "ts", "node_modules", "@modelcontextprotocol", "sdk")
	node, err = exec.LookPath("node")
	if _, serr := os.Stat(sdk); err != nil || serr != nil {
		testenv.Missing(t, "node or the TypeScript SDK is missing (%v, %v): make deps installs them", err, serr)
	}
	return node, script
}

// writeDescribeModule assembles a module whose wasmcp_describe returns doc
// and whose every call returns an empty result.
func writeDescribeModule(t *testing.T, path, doc string) {
	t.Helper()
	var lit strings.Builder
	for _, b := range []byte(doc) {
		fmt.Fprintf(&lit, `\%02x`, b)
	}
	wat := fmt.Sprintf(`(module
  (memory (export "memory") 2)
  (data (i32.const 1024) "%s")
  (data (i32.const 64) "{}")
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 65536))
  (func (export "wasmcp_describe") (result i64) (i64.const %d))
  (func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64) (i64.const %d)))`,
		lit.String(), uint64(1024)<<32|uint64(len(doc)), uint64(64)<<32|2)
	wasm, err := wat2wasm([]byte(wat))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, wasm, 0o600); err != nil {
		t.Fatal(err)
	}
}
