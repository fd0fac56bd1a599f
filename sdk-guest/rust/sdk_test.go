//go:build !wasip1

// Package rust_test checks the Rust SDK: its ABI names and limits against
// package abi, so that they never drift, and its own tests, run with
// Debian's cargo (`cargo test`, offline, crates from Debian packages).
package rust_test

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
	"github.com/wasmcp/wasmcp/sdk-guest/internal/httpcheck"
	"github.com/wasmcp/wasmcp/sdk-guest/internal/resourcecheck"
	"github.com/wasmcp/wasmcp/sdk-guest/internal/sourcecheck"
)

var (
	read = sourcecheck.Read
	all  = sourcecheck.Submatches
)

func TestABINames(t *testing.T) {
	lib := read(t, "src/lib.rs")
	sourcecheck.Exports(t, "src/lib.rs", all(`#\[export_name = "([^"]+)"\]`, lib))
	for file, want := range map[string][]string{
		"src/log.rs":  {abi.ImportLog},
		"src/http.rs": {abi.ImportHTTPRequest, abi.ImportReadReply},
	} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src := read(t, file)
			if got := all(`wasm_import_module = "([^"]+)"`, src); !slices.Equal(got, []string{abi.ImportModule}) {
				t.Errorf("%s: import modules %q, want [%q]", file, got, abi.ImportModule)
			}
			if got := all(`#\[link_name = "([^"]+)"\]`, src); !slices.Equal(got, want) {
				t.Errorf("%s: imports %q, want %q", file, got, want)
			}
		})
	}
}

func TestConstants(t *testing.T) {
	lib := read(t, "src/lib.rs")
	for name, want := range map[string]int{
		"ABI_VERSION":       abi.Version,
		"MAX_TOOL_NAME_LEN": abi.MaxToolNameLen,
		"MAX_TOOLS":         abi.MaxTools,
		"MAX_LOG_SIZE":      abi.MaxLogSize,

		"MAX_RESOURCES":          abi.MaxResources,
		"MAX_RESOURCE_TEMPLATES": abi.MaxResourceTemplates,
		"MAX_PROMPTS":            abi.MaxPrompts,
		"MAX_URI_LEN":            abi.MaxURILen,
		"MAX_PROMPT_ARGUMENTS":   abi.MaxPromptArguments,
		"MAX_COMPLETION_VALUES":  abi.MaxCompletionValues,
	} {
		t.Run(name, func(t *testing.T) {
			m := regexp.MustCompile(`pub const ` + name + `: \w+ = (\d+)(?: << (\d+))?;`).FindStringSubmatch(lib)
			if m == nil {
				t.Errorf("%s: no pub const of a number or a shifted number", name)
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
	http := read(t, "src/http.rs")
	for name, want := range map[string]abi.ReplyStatus{
		"STATUS_OK":      abi.StatusOK,
		"STATUS_FAILED":  abi.StatusFailed,
		"STATUS_INVALID": abi.StatusInvalid,
		"STATUS_TIMEOUT": abi.StatusTimeout,
		"STATUS_DENIED":  abi.StatusDenied,
	} {
		t.Run(name, func(t *testing.T) {
			m := regexp.MustCompile(`const ` + name + `: u32 = (\d+);`).FindStringSubmatch(http)
			if m == nil {
				t.Errorf("src/http.rs: no const %s", name)
			} else if got, _ := strconv.Atoi(m[1]); got != int(want) {
				t.Errorf("src/http.rs: %s = %d, want %d", name, got, want)
			}
		})
	}
	errs := read(t, "src/error.rs")
	for name, want := range map[string]int{
		"NOT_FOUND":      abi.CodeResourceNotFound,
		"INVALID_PARAMS": abi.CodeInvalidParams,
		"INTERNAL":       abi.CodeInternalError,
	} {
		m := regexp.MustCompile(`pub const ` + name + `: i32 = (-?\d+);`).FindStringSubmatch(errs)
		if m == nil {
			t.Errorf("src/error.rs: no const %s", name)
		} else if got, _ := strconv.Atoi(m[1]); got != want {
			t.Errorf("src/error.rs: %s = %d, want %d", name, got, want)
		}
	}
	levels := regexp.MustCompile(`(?m)^\s+(\w+) = (\d+),$`).FindAllStringSubmatch(read(t, "src/log.rs"), -1)
	if len(levels) != int(abi.LogEmergency)+1 {
		t.Fatalf("enum Level has %d variants, want %d", len(levels), abi.LogEmergency+1)
	}
	for _, m := range levels {
		v, _ := strconv.Atoi(m[2])
		if got, want := strings.ToLower(m[1]), abi.LogLevel(v).String(); got != want {
			t.Errorf("Level::%s = %d, want %s = %d", m[1], v, want, v)
		}
	}
}

// tool returns the path of a Debian toolchain program, which env overrides.
func tool(t *testing.T, env, debian string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		return p
	}
	if _, err := os.Stat(debian); err != nil {
		testenv.Missing(t, "%s not found: run `make guest-toolchains` (apt-get install rustc cargo libstd-rust-dev-wasm32 "+
			"librust-serde-dev librust-serde-derive-dev librust-serde-json-dev), or set %s", debian, env)
	}
	return debian
}

// cargo runs cargo with args in dir, with Debian's toolchain, and returns
// its target directory.
func cargo(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cargo := tool(t, "CARGO", "/usr/bin/cargo")
	rustc := tool(t, "RUSTC", "/usr/bin/rustc")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// Share the target directory of `make plugins`, so that the crates are
	// compiled once.
	target := filepath.Join(root, "build", "cargo")
	cmd := exec.Command(cargo, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RUSTC="+rustc, "RUSTDOC="+filepath.Join(filepath.Dir(rustc), "rustdoc"),
		"CARGO_TARGET_DIR="+target)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cargo %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return target
}

// TestCargo runs the crate's own tests (`cargo test`), natively.
func TestCargo(t *testing.T) {
	cargo(t, ".", "test", "--offline", "--quiet")
}

// buildWasm builds the cdylib crate in dir for wasm32-wasi and returns the
// path of its module, named lib.wasm by cargo, copied to name in a
// temporary directory.
func buildWasm(t *testing.T, dir, lib, name string) string {
	t.Helper()
	target := cargo(t, dir, "build", "--release", "--offline", "--locked", "--quiet", "--target", "wasm32-wasi")
	wasm, err := os.ReadFile(filepath.Join(target, "wasm32-wasi", "release", lib+".wasm"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Only a module that calls wasmcp::http imports http_request, so that one
// that does not still loads in a host older than the import.
func TestHTTPImportedOnlyWhenUsed(t *testing.T) {
	if got := httpcheck.Imports(t, buildWasm(t, "../../examples/rust", "wasmcp_examples", "examples.wasm")); !slices.Equal(got, []string{abi.ImportLog}) {
		t.Errorf("examples/rust imports %q, want only %s", got, abi.ImportLog)
	}
	want := []string{abi.ImportHTTPRequest, abi.ImportLog, abi.ImportReadReply}
	slices.Sort(want)
	if got := httpcheck.Imports(t, buildWasm(t, "testdata/httpguest", "wasmcp_httpguest", "httpguest.wasm")); !slices.Equal(got, want) {
		t.Errorf("testdata/httpguest imports %q, want %q", got, want)
	}
}

// TestHTTP makes requests through the host with wasmcp::http.
func TestHTTP(t *testing.T) {
	httpcheck.Run(t, buildWasm(t, "testdata/httpguest", "wasmcp_httpguest", "rusthttp.wasm"))
}

// TestResources reads, gets prompts and completes through the exports of
// a module built with the SDK.
func TestResources(t *testing.T) {
	resourcecheck.Run(t, buildWasm(t, "testdata/resourceguest", "wasmcp_resourceguest", "rustresources.wasm"))
}

// A module of tools alone links none of the code of resources and prompts,
// which the Offers of a Toolbox alone reach: its exports of the addition
// answer 0.
func TestResourcesLinkedOnlyWhenUsed(t *testing.T) {
	for _, c := range []struct {
		dir, lib string
		want     bool
	}{
		{"../../examples/rust", "wasmcp_examples", false},
		{"testdata/resourceguest", "wasmcp_resourceguest", true},
	} {
		wasm, err := os.ReadFile(buildWasm(t, c.dir, c.lib, "m.wasm"))
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(wasm, []byte("a module defines at most 256 templates")); got != c.want {
			t.Errorf("%s: holds the code of resources: %v, want %v", c.dir, got, c.want)
		}
	}
}
