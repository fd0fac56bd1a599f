package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeHTTPUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for i, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--stateless"}, "-stateless needs -http"},
		{[]string{"--token-env", "X"}, "-token-env needs -http"},
		{[]string{"--session-timeout", "1m"}, "-session-timeout needs -http"},
		{[]string{"--allow-origin", "http://localhost:6274"}, "-allow-origin needs -http"},
		{[]string{"--http", ":0", "--token-file", "f", "--token-env", "X"}, "alternatives"},
		{[]string{"--http", ":0", "--token-env", "X", "--insecure-no-auth"}, "contradicts"},
		{[]string{"--http", "nope"}, `listen address "nope"`},
		{[]string{"--http", ":0", "--allow-origin", "localhost:6274"}, "want scheme://host[:port]"},
		{[]string{"--rate", "-1"}, "must not be negative"},
		{[]string{"--rate", "fast"}, `"fast" is not a number`},
		{[]string{"--concurrency", "-2"}, "must not be negative"},
		{[]string{"--max-calls", "-1"}, "must not be negative"},
		{[]string{"--max-principal-sessions", "5"}, "-max-principal-sessions needs -http"},
		{[]string{"--http", ":0", "--max-principal-sessions", "0"}, "-max-principal-sessions must be positive"},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			args := append([]string{"serve", "--dir", dir}, tc.args...)
			code, _, errOut := runCLI(args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("wasmcp %q: exit %d, stderr:\n%s\nwant exit 2 and %q", args, code, errOut, tc.want)
			}
		})
	}
}

// TestServeRefusesExposedWithoutAuth asks for every interface without a
// token: serve must refuse before it listens, and say what to do instead.
func TestServeRefusesExposedWithoutAuth(t *testing.T) {
	code, _, errOut := runCLI("serve", "--dir", t.TempDir(), "--http", "0.0.0.0:0")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, errOut)
	}
	for _, want := range []string{"refusing to serve without authentication", "0.0.0.0:0", "--token-file", "--insecure-no-auth"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr does not mention %q:\n%s", want, errOut)
		}
	}
}

func TestTokenSources(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good", "0123456789abcdef0123456789abcdef\n", 0o600)
	loose := write("loose", "0123456789abcdef0123456789abcdef", 0o644)
	short := write("short", "abc", 0o600)
	empty := write("empty", " \n", 0o600)
	spaced := write("spaced", "two words here, long enough", 0o600)
	t.Setenv("WASMCP_TEST_TOKEN", "fedcba9876543210fedcba9876543210")
	t.Setenv("WASMCP_TEST_EMPTY", "")

	for _, tc := range []struct {
		name  string
		flags httpFlags
		token string // "" with an error
		err   string
		warn  string
	}{
		{"file, newline trimmed", httpFlags{tokenFile: good}, "0123456789abcdef0123456789abcdef", "", ""},
		{"file others can read", httpFlags{tokenFile: loose}, "0123456789abcdef0123456789abcdef", "", "chmod 600"},
		{"short token", httpFlags{tokenFile: short}, "abc", "", "short"},
		{"empty file", httpFlags{tokenFile: empty}, "", "is empty", ""},
		{"missing file", httpFlags{tokenFile: filepath.Join(dir, "none")}, "", "no such file", ""},
		{"spaces", httpFlags{tokenFile: spaced}, "", "printable ASCII", ""},
		{"environment", httpFlags{tokenEnv: "WASMCP_TEST_TOKEN"}, "fedcba9876543210fedcba9876543210", "", ""},
		{"empty variable", httpFlags{tokenEnv: "WASMCP_TEST_EMPTY"}, "", "empty or not set", ""},
		{"unset variable", httpFlags{tokenEnv: "WASMCP_TEST_UNSET_VARIABLE"}, "", "empty or not set", ""},
		{"none", httpFlags{}, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			token, err := tc.flags.token(slog.New(slog.NewTextHandler(&log, nil)))
			if token != tc.token || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("token() = %q, %v; want %q and an error containing %q", token, err, tc.token, tc.err)
			}
			if tc.warn != "" && !strings.Contains(log.String(), tc.warn) {
				t.Errorf("no warning with %q:\n%s", tc.warn, log.String())
			}
			if tc.warn == "" && log.Len() > 0 {
				t.Errorf("unexpected warning:\n%s", log.String())
			}
		})
	}
}

func TestAdmissionDefaults(t *testing.T) {
	for i, tc := range []struct {
		args     []string
		overHTTP bool
		rate     float64
	}{
		{nil, true, defaultHTTPRate},
		{nil, false, 0},
		{[]string{"-rate", "0"}, true, 0},
		{[]string{"-rate", "2.5"}, false, 2.5},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var a admissionFlags
			a.register(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			adm, err := a.admission(tc.overHTTP)
			if err != nil || adm.CallerRate != tc.rate {
				t.Errorf("%q over HTTP=%v: session rate %v, %v; want %v", tc.args, tc.overHTTP, adm.CallerRate, err, tc.rate)
			}
			if adm.Concurrency != 8 || adm.Queue != 64 || adm.ToolRate != 0 || adm.CallerCalls != defaultCalls {
				t.Errorf("defaults: %+v", adm)
			}
		})
	}
}

func TestHelpServeListsFlags(t *testing.T) {
	code, out, _ := runCLI("help", "serve")
	for _, want := range []string{"-http ADDR", "-token-file FILE", "-stateless", "-insecure-no-auth", "-rate N", "-max-calls", "-log-args"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("help serve (exit %d) does not list %s", code, want)
		}
	}
}
