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

// Exports fails t unless got, in any order, is exactly the set of functions
// ABI v1 requires a guest to export. where names the source read, for the
// message.
func Exports(t testing.TB, where string, got []string) {
	t.Helper()
	want := []string{abi.ExportAlloc, abi.ExportVersion, abi.ExportCall, abi.ExportDescribe}
	slices.Sort(want)
	got = slices.Sorted(slices.Values(got))
	if !slices.Equal(got, want) {
		t.Errorf("exports of %s %q, want %q", where, got, want)
	}
}
