// Package testenv says what a test does when this machine lacks something it
// needs (a toolchain, the built modules): a plain go test on a fresh clone
// skips it, and make test, which installs and builds everything and sets
// CI in continuous integration, fails it.
package testenv

import (
	"fmt"
	"os"
	"testing"
)

// Missing skips tb, saying what is missing and how to get it, or fails it
// when the CI environment variable is set: there every test must run.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") != "" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}
