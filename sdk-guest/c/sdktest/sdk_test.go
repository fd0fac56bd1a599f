//go:build !wasip1

// Package sdktest checks the C SDK in its parent directory: its ABI names and
// limits against package abi, so that they never drift, and its unit tests
// (testdata/sdk_test.c), run natively under the address and
// undefined-behaviour sanitizers. (Go refuses .c files in a directory of Go
// files unless they are cgo, so the test lives here.)
package sdktest

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

// sources are the SDK's files, the ones a tool module compiles.
var sources = []string{"../wasmcp.c", "../read.c", "../write.c"}

func read(t *testing.T, name string) string {
	t.Helper()
	return sourcecheck.Read(t, filepath.Join("..", name))
}

var all = sourcecheck.Submatches

func TestABINames(t *testing.T) {
	src := read(t, "wasmcp.c")
	sourcecheck.Exports(t, "wasmcp.c", all(`export_name\("([^"]+)"\)`, src))
	if got := all(`import_module\("([^"]+)"\)`, src); !slices.Equal(got, []string{abi.ImportModule}) {
		t.Errorf("import modules %q, want [%q]", got, abi.ImportModule)
	}
	if got := all(`import_name\("([^"]+)"\)`, src); !slices.Equal(got, []string{abi.ImportLog}) {
		t.Errorf("imports %q, want [%q]", got, abi.ImportLog)
	}
}

func TestHeaderConstants(t *testing.T) {
	h := read(t, "wasmcp.h")
	for name, want := range map[string]int{
		"WASMCP_ABI_VERSION":       abi.Version,
		"WASMCP_MAX_TOOL_NAME_LEN": abi.MaxToolNameLen,
		"WASMCP_MAX_TOOLS":         abi.MaxTools,
		"WASMCP_MAX_LOG_SIZE":      abi.MaxLogSize,
	} {
		m := regexp.MustCompile(`#define ` + name + `\s+\(?(\d+)(?: << (\d+))?\)?\n`).FindStringSubmatch(h)
		if m == nil {
			t.Errorf("%s: no #define of a number or a shifted number", name)
			continue
		}
		got, _ := strconv.Atoi(m[1])
		if m[2] != "" {
			shift, _ := strconv.Atoi(m[2])
			got <<= shift
		}
		if got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
	// The enumerators take the values 0, 1, ... in order: their names must
	// follow abi.LogLevel's.
	enum := regexp.MustCompile(`(?s)typedef enum wasmcp_log_level \{(.*?)\}`).FindStringSubmatch(h)
	if enum == nil {
		t.Fatal("no enum wasmcp_log_level")
	}
	if strings.Contains(enum[1], "=") {
		t.Fatal("wasmcp_log_level sets values explicitly; this test expects 0, 1, ... in order")
	}
	levels := all(`WASMCP_LOG_(\w+)`, enum[1])
	for i := abi.LogDebug; i <= abi.LogEmergency; i++ {
		if int(i) >= len(levels) || strings.ToLower(levels[i]) != i.String() {
			t.Errorf("wasmcp_log_level: %q, want level %d to be %s", levels, i, i)
			break
		}
	}
}

// compiler returns the C compiler of the native tests: $CC, or cc.
func compiler(t *testing.T) string {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		testenv.Missing(t, "no C compiler (%s) to run the C SDK's unit tests: install one (make guest-toolchains installs clang) or set CC", cc)
	}
	return cc
}

// TestUnit builds testdata/sdk_test.c natively and runs it.
func TestUnit(t *testing.T) {
	cc := compiler(t)
	bin := filepath.Join(t.TempDir(), "sdk_test")
	args := append([]string{"-std=c11", "-Wall", "-Wextra", "-Werror", "-g", "-I..", "-o", bin, "testdata/sdk_test.c"}, sources...)
	args = append(args, "-lm")
	sanitize := []string{"-fsanitize=address,undefined", "-fno-sanitize-recover=all"}
	out, err := exec.Command(cc, append(sanitize, args...)...).CombinedOutput()
	if err != nil {
		// Not every compiler ships the sanitizer runtimes; the checks still run.
		t.Logf("building with sanitizers failed, building without:\n%s", out)
		if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cc, err, out)
		}
	}
	out, err = exec.Command(bin).CombinedOutput()
	if err != nil || !strings.HasSuffix(string(out), "ok\n") {
		t.Fatalf("C unit tests failed: %v\n%s", err, out)
	}
}

// Call memory comes from the SDK's own blocks (wasmcp.c), inside which
// AddressSanitizer would see no bounds: the SDK poisons what no allocation
// owns, so that TestUnit's sanitizer run catches an overflow of call memory
// as it would one of malloc's. testdata/overflow.c writes one byte past a
// block, which the sanitizer must stop.
func TestCallMemoryPoisoned(t *testing.T) {
	cc := compiler(t)
	bin := filepath.Join(t.TempDir(), "overflow")
	args := append([]string{"-std=c11", "-g", "-fsanitize=address", "-I..", "-o", bin, "testdata/overflow.c"}, sources...)
	if out, err := exec.Command(cc, append(args, "-lm")...).CombinedOutput(); err != nil {
		t.Fatalf("%s cannot build with AddressSanitizer, which TestUnit relies on: %v\n%s", cc, err, out)
	}
	out, err := exec.Command(bin).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "use-after-poison") {
		t.Fatalf("a write past a block of call memory went unreported: %v\n%s", err, out)
	}
}
