//go:build !wasip1

// Package rust_test checks the Rust SDK: its ABI names and limits against
// package abi, so that they never drift, and its own tests, run with
// Debian's cargo (`cargo test`, offline, crates from Debian packages).
package rust_test

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
	lib := read(t, "src/lib.rs")
	sourcecheck.Exports(t, "src/lib.rs", all(`#\[export_name = "([^"]+)"\]`, lib))
	log := read(t, "src/log.rs")
	if got := all(`wasm_import_module = "([^"]+)"`, log); !slices.Equal(got, []string{abi.ImportModule}) {
		t.Errorf("import modules %q, want [%q]", got, abi.ImportModule)
	}
	if got := all(`#\[link_name = "([^"]+)"\]`, log); !slices.Equal(got, []string{abi.ImportLog}) {
		t.Errorf("imports %q, want [%q]", got, abi.ImportLog)
	}
}

func TestConstants(t *testing.T) {
	lib := read(t, "src/lib.rs")
	for name, want := range map[string]int{
		"ABI_VERSION":       abi.Version,
		"MAX_TOOL_NAME_LEN": abi.MaxToolNameLen,
		"MAX_TOOLS":         abi.MaxTools,
		"MAX_LOG_SIZE":      abi.MaxLogSize,
	} {
		m := regexp.MustCompile(`pub const ` + name + `: \w+ = (\d+)(?: << (\d+))?;`).FindStringSubmatch(lib)
		if m == nil {
			t.Errorf("%s: no pub const of a number or a shifted number", name)
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

// TestCargo runs the crate's own tests (`cargo test`), natively.
func TestCargo(t *testing.T) {
	cargo := tool(t, "CARGO", "/usr/bin/cargo")
	rustc := tool(t, "RUSTC", "/usr/bin/rustc")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cargo, "test", "--offline", "--quiet")
	// Share the target directory of `make plugins`, so that the crates are
	// compiled once.
	cmd.Env = append(os.Environ(), "RUSTC="+rustc, "RUSTDOC="+filepath.Join(filepath.Dir(rustc), "rustdoc"),
		"CARGO_TARGET_DIR="+filepath.Join(root, "build", "cargo"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cargo test: %v\n%s", err, out)
	}
}
