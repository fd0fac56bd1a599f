package e2e

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/wasmcp/wasmcp/host/trust"
)

// lockFile writes a lock file pinning the named modules of dir as they are.
func lockFile(t *testing.T, path, dir string, names ...string) {
	t.Helper()
	var lock []byte
	for _, name := range names {
		wasm, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		lock = append(lock, trust.LockLine(name, wasm)...)
	}
	if err := os.WriteFile(path, lock, 0o600); err != nil {
		t.Fatal(err)
	}
}

// An operator in locked-down mode pins a new module and sends SIGHUP: the
// running server reads its lock file again, serves the module and tells the
// client, without a restart. A lock file that cannot be read leaves the
// one in force.
func TestLockReloadOnHangup(t *testing.T) {
	dir := servedCopy(t, wat("hostile"), wat("hello"))
	lock := filepath.Join(t.TempDir(), "wasmcp.lock")
	lockFile(t, lock, dir, "hostile.wasm")
	s := startServer(t, dir, serverOptions{protocol: legacyProtocol, args: []string{"--lock", lock}})
	if _, ok := s.tools(t)["hello"]; ok {
		t.Fatal("hello served before the lock pins it")
	}

	lockFile(t, lock, dir, "hostile.wasm", "hello.wasm")
	mark := s.logMark()
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitToolsChanged(t)
	s.waitLog(t, mark, "configuration reloaded", "lock=")
	if res := s.call(t, "hello", `{}`); text(res) != "hello from a hot-loaded module" {
		t.Errorf("hello = %q", text(res))
	}

	if err := os.WriteFile(lock, []byte("not a lock file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mark = s.logMark()
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitLog(t, mark, "configuration not reloaded; the previous one stays in force")
	if res := s.call(t, "hello", `{}`); text(res) != "hello from a hot-loaded module" {
		t.Errorf("after a broken lock file: hello = %q", text(res))
	}

	// Pinning only hostile again takes hello away.
	lockFile(t, lock, dir, "hostile.wasm")
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitToolsChanged(t)
	if _, ok := s.tools(t)["hello"]; ok {
		t.Error("hello still served after the lock stopped pinning it")
	}
	if res := s.call(t, "ping", `{}`); text(res) != "pong" {
		t.Errorf("ping = %q, want pong", text(res))
	}
}
