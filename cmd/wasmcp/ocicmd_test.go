package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/host/trust"
	"github.com/wasmcp/wasmcp/internal/ocitest"
)

// echoModule is a small module that loads.
func echoModule(t *testing.T) string {
	t.Helper()
	return filepath.Join("..", "..", "host", "testdata", "echo.wasm")
}

func TestPushPull(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	reg := ocitest.Start(t, ocitest.Options{})
	ref := reg.Ref("team/echo", "v1")
	code, out, errOut := runCLI("push", "-source", "https://example.com/echo", echoModule(t), ref)
	digest := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(digest, "sha256:") {
		t.Fatalf("push: exit %d, out %q, err %s", code, out, errOut)
	}
	want, err := os.ReadFile(echoModule(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, ref string }{{"tag", ref}, {"digest", reg.Ref("team/echo", digest)}} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.ref
			file := filepath.Join(t.TempDir(), "echo.wasm")
			if code, _, errOut := runCLI("pull", r, "-o", file); code != 0 {
				t.Fatalf("pull %s: %s", r, errOut)
			}
			if got, _ := os.ReadFile(file); !bytes.Equal(got, want) {
				t.Errorf("pull %s: %d bytes, not the %d pushed", r, len(got), len(want))
			}
		})
	}
}

func TestPushPullErrors(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String() + "/team/echo:v1"
	ln.Close()
	notWasm := filepath.Join(t.TempDir(), "x.wasm")
	os.WriteFile(notWasm, []byte("not wasm"), 0o644)
	for i, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"pull", down, "-o", filepath.Join(t.TempDir(), "x.wasm")}, 1, down},
		{[]string{"push", echoModule(t), down}, 1, down},
		{[]string{"push", notWasm, down}, 1, "does not load"},
		{[]string{"pull", down}, 2, "want REF and -o FILE"},
		{[]string{"pull", "team/echo", "-o", "x.wasm"}, 1, "names no :tag"},
		{[]string{"push", echoModule(t)}, 2, "want FILE.wasm REF"},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			code, _, errOut := runCLI(tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("wasmcp %q: exit %d, stderr:\n%s\nwant exit %d and %q", tc.args, code, errOut, tc.code, tc.want)
			}
		})
	}
}

func TestInspectAndCallByReference(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	reg := ocitest.Start(t, ocitest.Options{})
	ref := reg.Ref("team/echo", "v1")
	if code, _, errOut := runCLI("push", echoModule(t), ref); code != 0 {
		t.Fatalf("push: %s", errOut)
	}
	cache := t.TempDir()
	code, out, errOut := runCLI("inspect", "-cache-dir", cache, ref)
	if code != 0 || !strings.Contains(out, "echo") {
		t.Fatalf("inspect %s: exit %d\n%s\n%s", ref, code, out, errOut)
	}
	code, out, errOut = runCLI("call", "-cache-dir", cache, ref, "echo", `{"message":"hi"}`)
	if code != 0 || !strings.Contains(out, "hi") {
		t.Fatalf("call %s: exit %d\n%s\n%s", ref, code, out, errOut)
	}
	// From the cache once the registry is gone, saying so.
	reg.Stop()
	code, out, errOut = runCLI("call", "-cache-dir", cache, ref, "echo", `{"message":"hi"}`)
	if code != 0 || !strings.Contains(out, "hi") || !strings.Contains(errOut, "cached copy") {
		t.Fatalf("call %s, registry stopped: exit %d\n%s\n%s", ref, code, out, errOut)
	}
	if code, _, errOut := runCLI("inspect", "-cache-dir", t.TempDir(), ref); code != 1 || !strings.Contains(errOut, ref) {
		t.Fatalf("inspect %s, registry stopped, nothing cached: exit %d\n%s", ref, code, errOut)
	}
}

// TestLockAndSignReference locks a reference and signs it in its registry,
// and checks both with package trust, as serve -lock -trusted-keys would.
func TestLockAndSignReference(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	reg := ocitest.Start(t, ocitest.Options{})
	ref := reg.Ref("team/echo", "v1")
	code, digest, errOut := runCLI("push", echoModule(t), ref)
	if code != 0 {
		t.Fatalf("push: %s", errOut)
	}
	wasm, _ := os.ReadFile(echoModule(t))
	code, out, errOut := runCLI("lock", ref)
	if code != 0 || !strings.Contains(out, "# "+ref+" "+strings.TrimSpace(digest)+"\n") ||
		!strings.HasSuffix(out, trust.LockLine("echo.wasm", wasm)) {
		t.Fatalf("lock %s: exit %d\n%s\n%s", ref, code, out, errOut)
	}
	lock, err := trust.ParseLock([]byte(out))
	if err != nil {
		t.Fatal(err)
	}

	keyFile := filepath.Join(t.TempDir(), "key.pem")
	code, keyLine, errOut := runCLI("keygen", "-o", keyFile)
	if code != 0 {
		t.Fatalf("keygen: %s", errOut)
	}
	keys, err := trust.ParseKeys([]byte(keyLine))
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI("sign", "-key", keyFile, ref); code != 0 || !strings.Contains(errOut, "referrer sha256:") {
		t.Fatalf("sign %s: exit %d\n%s", ref, code, errOut)
	}

	// What serve fetches: the module and the signatures of its manifest.
	cache := t.TempDir()
	f, cleanup, err := (&registryFlags{timeout: time.Minute, maxSize: 1 << 20}).fetcher(&limitFlags{cacheDir: cache, cacheDirSet: true}, &policyFlags{keys: "keys"})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	got, err := f.Fetch(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	p := &trust.Verifier{Lock: lock, Keys: keys}
	if _, err := p.ReadModule(got.Path); err != nil {
		t.Fatalf("the locked and signed module is refused: %v", err)
	}
}
