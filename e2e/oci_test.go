package e2e

import (
	"os"
	"os/exec"
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
	out, err := exec.Command(binPath, "push", module, ref).Output()
	if err != nil {
		t.Fatalf("wasmcp push %s %s: %v", module, ref, err)
	}
	return strings.TrimSpace(string(out))
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
}
