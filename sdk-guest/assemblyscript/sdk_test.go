//go:build !wasip1

// Package assemblyscript_test checks the AssemblyScript SDK: its ABI names
// and limits against package abi, so that they never drift, and its unit
// tests (tests/sdk.test.ts), compiled with asc and run under Node.
package assemblyscript_test

import (
	"github.com/wasmcp/wasmcp/internal/testenv"

	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/internal/resourcecheck"
	"github.com/wasmcp/wasmcp/sdk-guest/internal/sourcecheck"
)

var (
	read = sourcecheck.Read
	all  = sourcecheck.Submatches
)

func TestABINames(t *testing.T) {
	sourcecheck.Exports(t, "assembly/abi.ts", all(`(?m)^export function (\w+)`, read(t, "assembly/abi.ts")))
	imp := func(name string) string { return strconv.Quote(abi.ImportModule) + ", " + strconv.Quote(name) }
	for file, want := range map[string][]string{
		"assembly/log.ts":     {imp(abi.ImportLog)},
		"lib/wasmcp_abort.ts": {imp(abi.ImportLog)},
		"assembly/http.ts":    {imp(abi.ImportHTTPRequest), imp(abi.ImportReadReply)},
	} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			if got := all(`@external\(("[^"]+", "[^"]+")\)`, read(t, file)); !slices.Equal(got, want) {
				t.Errorf("%s imports %q, want %q", file, got, want)
			}
		})
	}
}

func TestConstants(t *testing.T) {
	for _, c := range []struct {
		file, name string
		want       int
	}{
		{"assembly/abi.ts", "ABI_VERSION", abi.Version},
		{"assembly/tool.ts", "MAX_TOOL_NAME_LEN", abi.MaxToolNameLen},
		{"assembly/tool.ts", "MAX_TOOLS", abi.MaxTools},
		{"assembly/log.ts", "MAX_LOG_SIZE", abi.MaxLogSize},
		{"assembly/resource.ts", "MAX_RESOURCES", abi.MaxResources},
		{"assembly/resource.ts", "MAX_RESOURCE_TEMPLATES", abi.MaxResourceTemplates},
		{"assembly/resource.ts", "MAX_URI_LEN", abi.MaxURILen},
		{"assembly/prompt.ts", "MAX_PROMPTS", abi.MaxPrompts},
		{"assembly/prompt.ts", "MAX_PROMPT_ARGUMENTS", abi.MaxPromptArguments},
		{"assembly/prompt.ts", "MAX_COMPLETION_VALUES", abi.MaxCompletionValues},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := regexp.MustCompile(`const ` + c.name + `: \w+ = (\d+)(?: << (\d+))?;`).FindStringSubmatch(read(t, c.file))
			if m == nil {
				t.Errorf("%s: no const %s of a number or a shifted number", c.file, c.name)
				return
			}
			got, _ := strconv.Atoi(m[1])
			if m[2] != "" {
				shift, _ := strconv.Atoi(m[2])
				got <<= shift
			}
			if got != c.want {
				t.Errorf("%s = %d, want %d", c.name, got, c.want)
			}
		})
	}
	checkEnum(t, "assembly/log.ts", "LogLevel", int(abi.LogEmergency)+1, func(v int) string { return abi.LogLevel(v).String() })
	checkEnum(t, "assembly/http.ts", "ReplyStatus", int(abi.StatusDenied)+1, func(v int) string { return abi.ReplyStatus(v).String() })
	codes := regexp.MustCompile(`(?s)export enum ErrorCode \{(.*?)\n\}`).FindStringSubmatch(read(t, "assembly/offers.ts"))
	if codes == nil {
		t.Fatal("assembly/offers.ts: no enum ErrorCode")
	}
	for name, want := range map[string]int{
		"NotFound":      abi.CodeResourceNotFound,
		"InvalidParams": abi.CodeInvalidParams,
		"Internal":      abi.CodeInternalError,
	} {
		m := regexp.MustCompile(`\b` + name + ` = (-?\d+),`).FindStringSubmatch(codes[1])
		if m == nil {
			t.Errorf("ErrorCode.%s: not defined", name)
			continue
		}
		if got, _ := strconv.Atoi(m[1]); got != want {
			t.Errorf("ErrorCode.%s = %d, want %d", name, got, want)
		}
	}
}

// checkEnum checks that the enum name of file has n members, numbered as
// their lower-case names are by abi's String method.
func checkEnum(t *testing.T, file, name string, n int, abiName func(int) string) {
	t.Helper()
	body := regexp.MustCompile(`(?s)export enum ` + name + ` \{(.*?)\n\}`).FindStringSubmatch(read(t, file))
	if body == nil {
		t.Fatalf("%s: no enum %s", file, name)
	}
	members := regexp.MustCompile(`(?m)^\s+(\w+) = (\d+),$`).FindAllStringSubmatch(body[1], -1)
	if len(members) != n {
		t.Fatalf("enum %s has %d members, want %d", name, len(members), n)
	}
	for _, m := range members {
		v, _ := strconv.Atoi(m[2])
		if got, want := strings.ToLower(m[1]), abiName(v); got != want {
			t.Errorf("%s.%s = %d, want %s = %d", name, m[1], v, want, v)
		}
	}
}

// compile builds the module of the AssemblyScript file src (relative to
// this directory) with the SDK's configuration and returns its path.
func compile(t *testing.T, src string) string {
	t.Helper()
	asc := filepath.Join("node_modules", ".bin", "asc")
	if _, err := os.Stat(asc); err != nil {
		testenv.Missing(t, "%s not found: run `make guest-toolchains` (npm ci in sdk-guest/assemblyscript)", asc)
	}
	wasm := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), ".ts")+".wasm")
	if out, err := exec.Command(asc, src, "--config", "asconfig.json", "-o", wasm).CombinedOutput(); err != nil {
		t.Fatalf("asc %s: %v\n%s", src, err, out)
	}
	return wasm
}

// TestUnit compiles tests/sdk.test.ts and tests/resources.test.ts and runs
// them under Node (tests/run.mjs).
func TestUnit(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Missing(t, "node not found: install Node.js 20 or later")
	}
	for _, src := range []string{"tests/sdk.test.ts", "tests/resources.test.ts"} {
		wasm := compile(t, src)
		out, err := exec.Command(node, "--no-warnings", "tests/run.mjs", wasm).CombinedOutput()
		if err != nil || !strings.HasSuffix(string(out), "ok\n") {
			t.Fatalf("AssemblyScript unit tests of %s failed: %v\n%s", src, err, out)
		}
	}
}

// TestResources reads, gets prompts and completes through the exports of
// a module built with the SDK.
func TestResources(t *testing.T) {
	resourcecheck.Run(t, compile(t, "tests/resourceguest.ts"))
}

// A module of tools alone runs and holds none of the code of resources and
// prompts, which enableOffers alone reaches: its exports of the addition
// answer 0.
func TestResourcesLinkedOnlyWhenUsed(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{"../../examples/assemblyscript/examples.ts", false},
		{"tests/resourceguest.ts", true},
	} {
		wasm, err := os.ReadFile(compile(t, c.src))
		if err != nil {
			t.Fatal(err)
		}
		// AssemblyScript keeps strings in UTF-16.
		var marker []byte
		for _, r := range "a module defines at most 256 templates" {
			marker = append(marker, byte(r), 0)
		}
		if got := bytes.Contains(wasm, marker); got != c.want {
			t.Errorf("%s: holds the code of resources: %v, want %v", c.src, got, c.want)
		}
	}
}
