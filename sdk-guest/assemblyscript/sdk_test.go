//go:build !wasip1

// Package assemblyscript_test checks the AssemblyScript SDK: its ABI names
// and limits against package abi, so that they never drift, and its unit
// tests (tests/sdk.test.ts), compiled with asc and run under Node.
package assemblyscript_test

import (
	"github.com/wasmcp/wasmcp/internal/testenv"

	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/internal/sourcecheck"
)

var (
	read = sourcecheck.Read
	all  = sourcecheck.Submatches
)

func TestABINames(t *testing.T) {
	sourcecheck.Exports(t, "assembly/abi.ts", all(`(?m)^export function (\w+)`, read(t, "assembly/abi.ts")))
	for _, file := range []string{"assembly/log.ts", "lib/wasmcp_abort.ts"} {
		got := all(`@external\(("[^"]+", "[^"]+")\)`, read(t, file))
		if want := strconv.Quote(abi.ImportModule) + ", " + strconv.Quote(abi.ImportLog); !slices.Equal(got, []string{want}) {
			t.Errorf("%s imports %q, want [%s]", file, got, want)
		}
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
	} {
		m := regexp.MustCompile(`const ` + c.name + `: \w+ = (\d+)(?: << (\d+))?;`).FindStringSubmatch(read(t, c.file))
		if m == nil {
			t.Errorf("%s: no const %s of a number or a shifted number", c.file, c.name)
			continue
		}
		got, _ := strconv.Atoi(m[1])
		if m[2] != "" {
			shift, _ := strconv.Atoi(m[2])
			got <<= shift
		}
		if got != c.want {
			t.Errorf("%s = %d, want %d", c.name, got, c.want)
		}
	}
	levels := regexp.MustCompile(`(?m)^\s+(\w+) = (\d+),$`).FindAllStringSubmatch(read(t, "assembly/log.ts"), -1)
	if len(levels) != int(abi.LogEmergency)+1 {
		t.Fatalf("enum LogLevel has %d members, want %d", len(levels), abi.LogEmergency+1)
	}
	for _, m := range levels {
		v, _ := strconv.Atoi(m[2])
		if got, want := strings.ToLower(m[1]), abi.LogLevel(v).String(); got != want {
			t.Errorf("LogLevel.%s = %d, want %s = %d", m[1], v, want, v)
		}
	}
}

// TestUnit compiles tests/sdk.test.ts and runs it under Node (tests/run.mjs).
func TestUnit(t *testing.T) {
	asc := filepath.Join("node_modules", ".bin", "asc")
	if _, err := os.Stat(asc); err != nil {
		testenv.Missing(t, "%s not found: run `make guest-toolchains` (npm ci in sdk-guest/assemblyscript)", asc)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Missing(t, "node not found: install Node.js 20 or later")
	}
	wasm := filepath.Join(t.TempDir(), "sdk.test.wasm")
	if out, err := exec.Command(asc, "tests/sdk.test.ts", "--config", "asconfig.json", "-o", wasm).CombinedOutput(); err != nil {
		t.Fatalf("asc: %v\n%s", err, out)
	}
	out, err := exec.Command(node, "--no-warnings", "tests/run.mjs", wasm).CombinedOutput()
	if err != nil || !strings.HasSuffix(string(out), "ok\n") {
		t.Fatalf("AssemblyScript unit tests failed: %v\n%s", err, out)
	}
}
