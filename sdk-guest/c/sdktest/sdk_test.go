//go:build !wasip1

// Package sdktest checks the C SDK in its parent directory: its ABI names and
// limits against package abi, so that they never drift, and its unit tests
// (testdata/sdk_test.c), run natively under the address and
// undefined-behaviour sanitizers. (Go refuses .c files in a directory of Go
// files unless they are cgo, so the test lives here.)
package sdktest

import (
	"github.com/wasmcp/wasmcp/internal/testenv"

	"bytes"
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/internal/httpcheck"
	"github.com/wasmcp/wasmcp/sdk-guest/internal/resourcecheck"
	"github.com/wasmcp/wasmcp/sdk-guest/internal/sourcecheck"
)

// sources are the SDK's files, the ones a tool module compiles.
var sources = []string{"../wasmcp.c", "../read.c", "../write.c", "../http.c", "../resources.c", "../prompts.c",
	"../uritemplate.c"}

func read(t *testing.T, name string) string {
	t.Helper()
	return sourcecheck.Read(t, filepath.Join("..", name))
}

var all = sourcecheck.Submatches

func TestABINames(t *testing.T) {
	src := read(t, "wasmcp.c")
	sourcecheck.Exports(t, "wasmcp.c", all(`export_name\("([^"]+)"\)`, src))
	for file, want := range map[string][]string{
		"wasmcp.c": {abi.ImportLog},
		"http.c":   {abi.ImportHTTPRequest, abi.ImportReadReply},
	} {
		t.Run(file, func(t *testing.T) {
			src := read(t, file)
			if got := all(`import_module\("([^"]+)"\)`, src); len(got) != len(want) || slices.ContainsFunc(got, func(m string) bool { return m != abi.ImportModule }) {
				t.Errorf("%s: import modules %q, want %d of %q", file, got, len(want), abi.ImportModule)
			}
			if got := all(`import_name\("([^"]+)"\)`, src); !slices.Equal(got, want) {
				t.Errorf("%s: imports %q, want %q", file, got, want)
			}
		})
	}
}

func TestHeaderConstants(t *testing.T) {
	h := read(t, "wasmcp.h")
	for name, want := range map[string]int{
		"WASMCP_ABI_VERSION":       abi.Version,
		"WASMCP_MAX_TOOL_NAME_LEN": abi.MaxToolNameLen,
		"WASMCP_MAX_TOOLS":         abi.MaxTools,
		"WASMCP_MAX_LOG_SIZE":      abi.MaxLogSize,
		"WASMCP_HTTP_OK":           int(abi.StatusOK),
		"WASMCP_HTTP_FAILED":       int(abi.StatusFailed),
		"WASMCP_HTTP_INVALID":      int(abi.StatusInvalid),
		"WASMCP_HTTP_TIMEOUT":      int(abi.StatusTimeout),
		"WASMCP_HTTP_DENIED":       int(abi.StatusDenied),

		"WASMCP_MAX_RESOURCES":          abi.MaxResources,
		"WASMCP_MAX_RESOURCE_TEMPLATES": abi.MaxResourceTemplates,
		"WASMCP_MAX_PROMPTS":            abi.MaxPrompts,
		"WASMCP_MAX_URI_LEN":            abi.MaxURILen,
		"WASMCP_MAX_PROMPT_ARGUMENTS":   abi.MaxPromptArguments,
		"WASMCP_MAX_COMPLETION_VALUES":  abi.MaxCompletionValues,
		"WASMCP_ERROR_NOT_FOUND":        abi.CodeResourceNotFound,
		"WASMCP_ERROR_INVALID_PARAMS":   abi.CodeInvalidParams,
		"WASMCP_ERROR_INTERNAL":         abi.CodeInternalError,
	} {
		t.Run(name, func(t *testing.T) {
			m := regexp.MustCompile(`#define ` + name + `\s+\(?(-?\d+)(?: << (\d+))?\)?\s*(?:/\*.*\*/)?\n`).FindStringSubmatch(h)
			if m == nil {
				t.Errorf("%s: no #define of a number or a shifted number", name)
				return
			}
			got, _ := strconv.Atoi(m[1])
			if m[2] != "" {
				shift, _ := strconv.Atoi(m[2])
				got <<= shift
			}
			if got != want {
				t.Errorf("%s = %d, want %d", name, got, want)
			}
		})
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
func TestUnit(t *testing.T) { runNative(t, "testdata/sdk_test.c") }

// TestResourcesUnit builds testdata/resources_test.c, the resources,
// templates, prompts and completion, natively and runs it.
func TestResourcesUnit(t *testing.T) { runNative(t, "testdata/resources_test.c") }

// TestHTTPUnit builds testdata/http_test.c, wasmcp_http against a stand-in
// for the host, natively and runs it.
func TestHTTPUnit(t *testing.T) { runNative(t, "testdata/http_test.c") }

// runNative builds the test program src with the SDK and runs it.
func runNative(t *testing.T, src string) {
	cc := compiler(t)
	bin := filepath.Join(t.TempDir(), "sdk_test")
	args := append([]string{"-std=c11", "-Wall", "-Wextra", "-Werror", "-g", "-I..", "-o", bin, src}, sources...)
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
		t.Fatalf("C unit tests of %s failed: %v\n%s", src, err, out)
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

// buildWasm compiles the C files srcs with the SDK into a WASI reactor, as
// mk/guests.mk does, and returns its path, dir/name.
func buildWasm(t *testing.T, dir, name string, srcs ...string) string {
	t.Helper()
	clang := cmp.Or(os.Getenv("CLANG"), "clang")
	sysroot := cmp.Or(os.Getenv("WASI_SYSROOT"), "/usr")
	if _, err := exec.LookPath(clang); err != nil {
		testenv.Missing(t, "%s not found: run `make guest-toolchains` (clang lld wasi-libc libclang-rt-14-dev-wasm32), or set CLANG", clang)
	}
	if _, err := os.Stat(filepath.Join(sysroot, "lib", "wasm32-wasi", "libc.a")); err != nil {
		testenv.Missing(t, "no wasi-libc in %s: run `make guest-toolchains`, or set WASI_SYSROOT", sysroot)
	}
	out := filepath.Join(dir, name)
	args := append([]string{"--target=wasm32-wasi", "-mexec-model=reactor", "--sysroot=" + sysroot, "-Os", "-std=c11",
		"-Wall", "-Wextra", "-Werror", "-Wl,--strip-all", "-I..", "-o", out}, srcs...)
	if b, err := exec.Command(clang, append(args, sources...)...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", clang, err, b)
	}
	return out
}

// Only a module that calls wasmcp_http imports http_request, so that one
// that does not still loads in a host older than the import.
func TestHTTPImportedOnlyWhenUsed(t *testing.T) {
	dir := t.TempDir()
	if got := httpcheck.Imports(t, buildWasm(t, dir, "examples.wasm", "../../../examples/c/examples.c")); !slices.Equal(got, []string{abi.ImportLog}) {
		t.Errorf("examples/c imports %q, want only %s", got, abi.ImportLog)
	}
	want := []string{abi.ImportHTTPRequest, abi.ImportLog, abi.ImportReadReply}
	slices.Sort(want)
	if got := httpcheck.Imports(t, buildWasm(t, dir, "httpguest.wasm", "testdata/httpguest.c")); !slices.Equal(got, want) {
		t.Errorf("testdata/httpguest.c imports %q, want %q", got, want)
	}
}

// TestHTTP makes requests through the host with wasmcp_http.
func TestHTTP(t *testing.T) {
	httpcheck.Run(t, buildWasm(t, t.TempDir(), "chttp.wasm", "testdata/httpguest.c"))
}

// TestResources reads, gets prompts and completes through the exports of
// a module built with the SDK.
func TestResources(t *testing.T) {
	resourcecheck.Run(t, buildWasm(t, t.TempDir(), "cresources.wasm", "testdata/resourceguest.c"))
}

// A module of tools alone links none of the code of resources and prompts,
// which wasmcp_offers_enable_ alone reaches: its exports of the addition
// answer 0.
func TestResourcesLinkedOnlyWhenUsed(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		src  string
		want bool
	}{
		{"../../../examples/c/examples.c", false},
		{"testdata/resourceguest.c", true},
	} {
		wasm, err := os.ReadFile(buildWasm(t, dir, "m.wasm", c.src))
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(wasm, []byte("wasmcp_add_resource_template")); got != c.want {
			t.Errorf("%s: holds the code of resources.c: %v, want %v", c.src, got, c.want)
		}
	}
}
