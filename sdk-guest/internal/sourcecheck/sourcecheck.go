// Package sourcecheck holds what the tests of the C, Rust and AssemblyScript
// guest SDKs share. Those SDKs spell the ABI's names and limits in their own
// languages; their tests read the sources and compare what is written there
// with package abi, so that no SDK drifts from the contract.
package sourcecheck

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
)

// Read returns the text of the file at path and fails t if it cannot.
func Read(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Submatches returns the first submatch of every match of re in text.
func Submatches(re, text string) []string {
	var out []string
	for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// Exports fails t unless got holds every function ABI v1 requires a guest
// to export and nothing but those and the exports of resources and prompts
// (which each SDK's resource test calls). where names the source read, for
// the message.
func Exports(t testing.TB, where string, got []string) {
	t.Helper()
	required := []string{abi.ExportAlloc, abi.ExportVersion, abi.ExportCall, abi.ExportDescribe}
	known := append([]string{abi.ExportRead, abi.ExportPrompt, abi.ExportComplete}, required...)
	for _, name := range required {
		if !slices.Contains(got, name) {
			t.Errorf("%s does not export %s (it exports %q)", where, name, got)
		}
	}
	for _, name := range got {
		if !slices.Contains(known, name) {
			t.Errorf("%s exports %s, which ABI v1 does not define", where, name)
		}
	}
}
