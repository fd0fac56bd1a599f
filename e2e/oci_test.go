package e2e

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wasmcp/wasmcp/internal/ocitest"
)

// push stores module at ref with the wasmcp binary and returns the manifest
// digest it printed.
func push(t *testing.T, module, ref string) string {
	t.Helper()
	return strings.TrimSpace(wasmcpOK(t, "push", module, ref))
}

// dockerConfig points Docker's config at an empty directory, so that the
// tests use no credentials of the machine's user.
func dockerConfig(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
}

// A server serves modules from a real registry beside its directory's: one
// by tag (-plugin), one by digest (the config's sources). The tag moved to a
// new module and SIGHUP is a hot reload with list_changed; with the
// registry stopped, SIGHUP keeps the cached copies serving, and a server
// started while it is down serves them too.
func TestServeByReference(t *testing.T) {
	dockerConfig(t)
	reg := ocitest.Start(t, ocitest.Options{})
	byTag := reg.Ref("team/hello", "v1")
	push(t, wat("hello"), byTag)
	byDigest := reg.Ref("team/structured", push(t, wat("structured"), reg.Ref("team/structured", "v1")))
	config := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(config, []byte(`{"sources": ["`+byDigest+`"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := servedCopy(t, wat("hostile"))
	args := []string{"--log-format", "json", "--plugin", byTag, "--config", config}
	s := startServer(t, dir, serverOptions{protocol: legacyProtocol, args: args})
	tools := s.tools(t)
	for _, name := range []string{"hello", "ok", "ping"} {
		if _, ok := tools[name]; !ok {
			t.Fatalf("%s not served; tools: %v\nlog:\n%s", name, tools, s.stderr)
		}
	}
	s.wantHello(t, helloV1)

	push(t, wat("hello2"), byTag)
	mark := s.logMark()
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitToolsChanged(t)
	s.waitLog(t, mark, "configuration reloaded")
	s.wantHello(t, helloV2)

	reg.Stop()
	mark = s.logMark()
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitLog(t, mark, "registry unreachable; serving the cached copy", logField("ref", byTag))
	s.waitLog(t, mark, "configuration reloaded")
	s.wantHello(t, helloV2)
	if res := s.call(t, "ping", `{}`); text(res) != "pong" {
		t.Errorf("ping = %q", text(res))
	}

	// A new server while the registry is down: the cached copies.
	s2 := startServer(t, t.TempDir(), serverOptions{protocol: legacyProtocol, args: args})
	s2.wantHello(t, helloV2)
	if _, ok := s2.tools(t)["ok"]; !ok {
		t.Errorf("structured (by digest) not served from the cache\nlog:\n%s", s2.stderr)
	}

	// A source taken out of the config stops serving on SIGHUP.
	if err := os.WriteFile(config, []byte(`{"sources": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitToolsChanged(t)
	if _, ok := s.tools(t)["ok"]; ok {
		t.Error("structured still served after its source was removed")
	}
	s.wantHello(t, helloV2)
}

// wasmcpOK runs the binary and returns its stdout, failing the test unless it
// exits 0.
func wasmcpOK(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := wasmcp(t, args...)
	if code != 0 {
		t.Fatalf("wasmcp %q: exit %d\n%s", args, code, errOut)
	}
	return out
}

// Locked-down mode judges references by digest: a module the lock does not
// pin is refused, and with trusted keys so is one whose manifest has no
// signature referrer, or only one by another key. Each refusal is one log
// line naming the reference; the rest is served.
func TestServeByReferenceLockedDown(t *testing.T) {
	dockerConfig(t)
	reg := ocitest.Start(t, ocitest.Options{})
	hello, structured, hostile := reg.Ref("team/hello", "v1"), reg.Ref("team/structured", "v1"), reg.Ref("team/hostile", "v1")
	push(t, wat("hello"), hello)
	push(t, wat("structured"), structured)
	push(t, wat("hostile"), hostile)
	refs := []string{"--log-format", "json", "--plugin", hello, "--plugin", structured, "--plugin", hostile}

	lock := filepath.Join(t.TempDir(), "wasmcp.lock")
	wasmcpOK(t, "lock", "-o", lock, hello, hostile)
	s := startServer(t, t.TempDir(), serverOptions{protocol: legacyProtocol, args: append(refs, "--lock", lock)})
	tools := s.tools(t)
	if _, ok := tools["ok"]; ok {
		t.Error("structured served though the lock does not pin it")
	}
	s.wantHello(t, helloV1)
	s.waitLog(t, 0, "plugin not loaded", logField("ref", structured), "not pinned")

	keyDir := t.TempDir()
	trusted := wasmcpOK(t, "keygen", "-o", filepath.Join(keyDir, "trusted.pem"))
	wasmcpOK(t, "keygen", "-o", filepath.Join(keyDir, "other.pem"))
	keys := filepath.Join(keyDir, "wasmcp.keys")
	if err := os.WriteFile(keys, []byte(trusted), 0o600); err != nil {
		t.Fatal(err)
	}
	wasmcpOK(t, "sign", "-key", filepath.Join(keyDir, "trusted.pem"), hello)
	wasmcpOK(t, "sign", "-key", filepath.Join(keyDir, "other.pem"), structured)
	s = startServer(t, t.TempDir(), serverOptions{protocol: legacyProtocol, args: append(refs, "--trusted-keys", keys)})
	s.wantHello(t, helloV1)
	tools = s.tools(t)
	if _, ok := tools["ok"]; ok {
		t.Error("structured served though signed by an untrusted key")
	}
	if _, ok := tools["ping"]; ok {
		t.Error("hostile served though unsigned")
	}
	s.waitLog(t, 0, "plugin not loaded", logField("ref", structured), "no valid signature from a trusted key")
	s.waitLog(t, 0, "plugin not loaded", logField("ref", hostile), "not signed")
}

// A registry behind basic authentication, with the credentials in a Docker
// config file: push and serve use them; without them the reference is one
// error line naming it.
func TestServeFromAuthenticatedRegistry(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{Auth: true})
	ref := reg.Ref("team/hello", "v1")
	dockerConfig(t)
	if code, _, errOut := wasmcp(t, "push", wat("hello"), ref); code != 1 || !strings.Contains(errOut, ref) {
		t.Fatalf("anonymous push: exit %d\n%s", code, errOut)
	}
	dir := os.Getenv("DOCKER_CONFIG")
	auth := base64.StdEncoding.EncodeToString([]byte(ocitest.User + ":" + ocitest.Password))
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"auths":{"`+reg.Host+`":{"auth":"`+auth+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	push(t, wat("hello"), ref)
	s := startServer(t, t.TempDir(), serverOptions{protocol: legacyProtocol, args: []string{"--plugin", ref}})
	s.wantHello(t, helloV1)
}
