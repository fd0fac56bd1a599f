package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// runCLI runs one command line in-process and returns its exit status and
// output.
func runCLI(args ...string) (code int, out, errOut string) {
	var o, e bytes.Buffer
	code = run(context.Background(), args, &o, &e)
	return code, o.String(), e.String()
}

func TestHelp(t *testing.T) {
	code, out, _ := runCLI("help")
	if code != 0 {
		t.Errorf("help: exit %d, want 0", code)
	}
	for _, c := range commands {
		if !strings.Contains(out, "\t"+c.name+" ") {
			t.Errorf("help does not list %s:\n%s", c.name, out)
		}
	}
	code, out, _ = runCLI("help", "serve")
	if code != 0 || !strings.Contains(out, "Usage: wasmcp serve") || !strings.Contains(out, "-no-watch") {
		t.Errorf("help serve: exit %d\n%s", code, out)
	}
	code, _, errOut := runCLI("call", "-h")
	if code != 0 || !strings.Contains(errOut, "Usage: wasmcp call") || !strings.Contains(errOut, "-timeout") {
		t.Errorf("call -h: exit %d\n%s", code, errOut)
	}
}

func TestUsageErrors(t *testing.T) {
	for i, tc := range []struct {
		args []string
		want string
	}{
		{nil, "Usage:"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"serve"}, "-dir is required"},
		{[]string{"serve", "--dir", ".", "extra"}, `unexpected argument "extra"`},
		{[]string{"serve", "--dir", ".", "--log-format", "xml"}, `"xml" is not one of text, json`},
		{[]string{"serve", "--dir", ".", "--log-level", "loud"}, `"loud" is not one of`},
		{[]string{"serve", "--dir", ".", "--memory", "lots"}, `"lots" is not a size`},
		{[]string{"call", "x.wasm"}, "want FILE.wasm TOOL [ARGUMENTS]"},
		{[]string{"call", "x.wasm", "echo", "{nope"}, "arguments are not valid JSON"},
		{[]string{"inspect"}, "want one FILE.wasm"},
		{[]string{"version", "extra"}, `unexpected argument "extra"`},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			code, _, errOut := runCLI(tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("wasmcp %q: exit %d, stderr:\n%s\nwant exit 2 and %q", tc.args, code, errOut, tc.want)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI("version")
	if code != 0 {
		t.Fatalf("version: exit %d", code)
	}
	for _, want := range []string{"wasmcp ", "guest ABI 1\n", "go-sdk ", "wazero ", "go1."} {
		if !strings.Contains(out, want) {
			t.Errorf("version output lacks %q:\n%s", want, out)
		}
	}
}
