package sandbox_test

import (
	"github.com/wasmcp/wasmcp/host/policy"

	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
)

// WASI errno values the tests name.
const (
	errnoBadf  = 8
	errnoNoent = 44
	errnoPerm  = 63
)

// report parses the "a=ERRNO b=N c=N d=N" document of testdata/wasi.wat.
func report(t *testing.T, out string) [4]int {
	t.Helper()
	var r [4]int
	if _, err := fmt.Sscanf(out, "a=%d b=%d c=%d d=%d", &r[0], &r[1], &r[2], &r[3]); err != nil {
		t.Fatalf("report %q: %v", out, err)
	}
	return r
}

// granted compiles testdata/wasi.wat and grants it g.
func granted(t *testing.T, g policy.Grants) *sandbox.Module {
	t.Helper()
	m := compile(t, "wasi", sandbox.Options{})
	if err := m.SetGrants(testContext(t), g); err != nil {
		t.Fatal(err)
	}
	return m
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestGrantsNone(t *testing.T) {
	m := granted(t, policy.Grants{})
	out, err := call(t, m, "open", "in.txt")
	if err != nil {
		t.Fatal(err)
	}
	if r := report(t, out); r[0] != errnoBadf {
		t.Errorf("open without a mount: errno %d, want EBADF (%d)", r[0], errnoBadf)
	}
	if out := mustCall(t, m, "env", ""); out != "a=00000 b=00000 c=00000 d=00000" {
		t.Errorf("environment without grants: %q", out)
	}
}

func TestGrantsMountReadOnly(t *testing.T) {
	root := sandboxtest.MountTree(t)
	m := granted(t, policy.Grants{Mounts: []policy.Mount{{HostPath: filepath.Join(root, "data"), GuestPath: "/data"}}})
	ok := func(path string, n int) {
		t.Helper()
		out, err := call(t, m, "open", path)
		if err != nil {
			t.Fatal(err)
		}
		if r := report(t, out); r[0] != 0 || r[1] != n {
			t.Errorf("open %s: errno %d, %d bytes; want 0, %d", path, r[0], r[1], n)
		}
	}
	ok("in.txt", 5)
	ok("inside-link", 5) // a link that stays inside is followed
	ok("sub/../in.txt", 5)

	for _, tc := range []struct{ name, path string }{
		{"parent", "../outside.txt"},
		{"sub-parent", "sub/../../outside.txt"},
		{"host-path", filepath.Join(root, "outside.txt")}, // absolute host path
		{"absolute", "/etc/passwd"},
		{"rel-escape", "rel-escape"}, // ../outside.txt
		{"abs-escape", "abs-escape"}, // /ROOT/outside.txt
		{"link-parent", "sub/up/../outside.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := call(t, m, "open", tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if r := report(t, out); r[0] == 0 {
				t.Errorf("open %s escaped the mount: read %d bytes", tc.path, r[1])
			}
		})
	}
	if r := report(t, mustCall(t, m, "write", "new.txt")); r[0] == 0 {
		t.Errorf("write to a read-only mount succeeded")
	}
	if _, err := os.Stat(filepath.Join(root, "data", "new.txt")); err == nil {
		t.Errorf("read-only mount: the guest created a file")
	}
}

func mustCall(t *testing.T, m *sandbox.Module, tool, args string) string {
	t.Helper()
	out, err := call(t, m, tool, args)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGrantsMountWrite(t *testing.T) {
	root := sandboxtest.MountTree(t)
	data := filepath.Join(root, "data")
	m := granted(t, policy.Grants{Mounts: []policy.Mount{{HostPath: data, GuestPath: "/data", Write: true}}})
	if r := report(t, mustCall(t, m, "write", "new.txt")); r[0] != 0 || r[1] != 1 {
		t.Fatalf("write: %v", r)
	}
	if b, err := os.ReadFile(filepath.Join(data, "new.txt")); err != nil || string(b) != "x" {
		t.Errorf("written file: %q, %v", b, err)
	}
	// Writing through a link that leaves the mount fails, and so does
	// making a link at all.
	if r := report(t, mustCall(t, m, "write", "rel-escape")); r[0] != errnoPerm {
		t.Errorf("write through rel-escape: errno %d, want EPERM (%d)", r[0], errnoPerm)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "outside.txt")); string(b) != "secret" {
		t.Errorf("outside.txt changed: %q", b)
	}
	if r := report(t, mustCall(t, m, "symlink", "../outside.txt")); r[0] != errnoPerm {
		t.Errorf("symlink: errno %d, want EPERM (%d)", r[0], errnoPerm)
	}
	if _, err := os.Lstat(filepath.Join(data, "link")); err == nil {
		t.Errorf("the guest made a symbolic link")
	}
	if r := report(t, mustCall(t, m, "write", "../escape.txt")); r[0] == 0 {
		t.Errorf("write ../escape.txt succeeded")
	}
	if _, err := os.Stat(filepath.Join(root, "escape.txt")); err == nil {
		t.Errorf("the guest wrote outside its mount")
	}
}

func TestGrantsEnv(t *testing.T) {
	t.Setenv("WASMCP_TEST_SECRET", "hunter2")
	m := granted(t, policy.Grants{Env: []policy.EnvVar{{Name: "TZ", Value: "UTC"}, {Name: "LANG", Value: "C"}}})
	out := mustCall(t, m, "env", "")
	if want := "TZ=UTC\x00LANG=C\x00"; out != want {
		t.Errorf("environment %q, want %q", out, want)
	}
}

func TestGrantsClockAndRandom(t *testing.T) {
	now := func(m *sandbox.Module) time.Time {
		b := []byte(mustCall(t, m, "clock", ""))
		return time.Unix(0, int64(binary.LittleEndian.Uint64(b)))
	}
	fake, real := granted(t, policy.Grants{}), granted(t, policy.Grants{Clock: true, Random: true})
	// Not a timing assertion: the fake clock is years off, the real one
	// within a day of the host's.
	if d := time.Since(now(fake)); d < 24*time.Hour {
		t.Errorf("ungranted clock reads %v, the host's time", now(fake))
	}
	if d := time.Since(now(real)); d > 24*time.Hour || d < -24*time.Hour {
		t.Errorf("granted clock reads %v, host time is %v", now(real), time.Now())
	}
	// The fake random source repeats itself in every new module; the real
	// one does not.
	fake2 := granted(t, policy.Grants{})
	if a, b := mustCall(t, fake, "random", ""), mustCall(t, fake2, "random", ""); a != b {
		t.Errorf("ungranted random differs between modules: %x, %x", a, b)
	}
	real2 := granted(t, policy.Grants{Random: true})
	if a, b := mustCall(t, real, "random", ""), mustCall(t, real2, "random", ""); a == b || bytes.Equal([]byte(a), make([]byte, 16)) {
		t.Errorf("granted random repeats: %x, %x", a, b)
	}
}

func TestSocketsFail(t *testing.T) {
	root := sandboxtest.MountTree(t)
	// Even with a preopened directory as fd 3, no socket call succeeds.
	m := granted(t, policy.Grants{Mounts: []policy.Mount{{HostPath: filepath.Join(root, "data"), GuestPath: "/data", Write: true}}, Clock: true})
	r := report(t, mustCall(t, m, "net", ""))
	for i, name := range []string{"sock_accept", "sock_recv", "sock_send", "sock_shutdown"} {
		if r[i] == 0 {
			t.Errorf("%s succeeded", name)
		}
	}
}

func TestGrantsValidate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	must(t, os.WriteFile(file, nil, 0o644))
	for _, tc := range []struct {
		name string
		g    policy.Grants
	}{
		{"relative guest path", policy.Grants{Mounts: []policy.Mount{{HostPath: dir, GuestPath: "data"}}}},
		{"unclean guest path", policy.Grants{Mounts: []policy.Mount{{HostPath: dir, GuestPath: "/a/../b"}}}},
		{"relative host path", policy.Grants{Mounts: []policy.Mount{{HostPath: "rel", GuestPath: "/a"}}}},
		{"host file", policy.Grants{Mounts: []policy.Mount{{HostPath: file, GuestPath: "/a"}}}},
		{"missing host path", policy.Grants{Mounts: []policy.Mount{{HostPath: filepath.Join(dir, "missing"), GuestPath: "/a"}}}},
		{"guest path twice", policy.Grants{Mounts: []policy.Mount{{HostPath: dir, GuestPath: "/a"}, {HostPath: dir, GuestPath: "/a"}}}},
		{"env name with =", policy.Grants{Env: []policy.EnvVar{{Name: "A=B"}}}},
		{"empty env name", policy.Grants{Env: []policy.EnvVar{{Name: ""}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.g.Validate(); err == nil {
				t.Errorf("%+v: no error", tc.g)
			}
		})
	}
}

// The mounts of grants given to a closed module are not kept open.
func TestSetGrantsAfterClose(t *testing.T) {
	m := compile(t, "wasi", sandbox.Options{})
	must(t, m.Close(testContext(t)))
	g := policy.Grants{Mounts: []policy.Mount{{HostPath: t.TempDir(), GuestPath: "/data"}}}
	if err := m.SetGrants(testContext(t), g); !errors.Is(err, sandbox.ErrClosed) {
		t.Errorf("SetGrants after Close: %v, want ErrClosed", err)
	}
}
