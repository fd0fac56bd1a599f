package host_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/host/trust"
)

var permTmpl = template.Must(template.ParseFiles("testdata/perm.wat.tmpl"))

// permGuest builds testdata/perm.wat.tmpl with one tool, tool, and the
// permissions request req (nil: none).
func permGuest(t *testing.T, tool string, req *abi.Permissions) []byte {
	t.Helper()
	describe, _ := json.Marshal(abi.Describe{
		Tools:       []abi.Tool{{Name: tool, InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Permissions: req,
	})
	var wat bytes.Buffer
	if err := permTmpl.Execute(&wat, map[string]any{
		"Describe": watString(describe), "DescribePacked": uint64(16)<<32 | uint64(len(describe)),
	}); err != nil {
		t.Fatal(err)
	}
	wasm := sandboxtest.Wat2Wasm(t, wat.Bytes())
	return wasm
}

// permPolicy grants plugin "perm" TZ (from wasmcp's environment), MODE (a
// literal), a read-only mount of a directory holding in.txt, and no clock.
func permPolicy(t *testing.T) *policy.Policy {
	t.Helper()
	t.Setenv("TZ", "Europe/Paris")
	t.Setenv("WASMCP_SECRET", "hunter2")
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "in.txt"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, _ := json.Marshal(map[string]any{
		"defaults": map[string]any{"timeout": "20s"},
		"plugins": map[string]any{"perm": map[string]any{
			"env": []string{"TZ", "MODE=strict"},
			"fs":  []map[string]any{{"host": data, "guest": "/data"}},
		}},
	})
	p, err := policy.Parse(doc, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPermissionsIntersection(t *testing.T) {
	dir := t.TempDir()
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t).WithPolicy(permPolicy(t)))
	ctx := context.Background()

	// Asks for TZ, MODE and WASMCP_SECRET, /data with write, and the clock.
	greedy := &abi.Permissions{
		Env:   []string{"TZ", "WASMCP_SECRET", "MODE"},
		FS:    []abi.FSPermission{{Path: "/data", Write: true}},
		Clock: true,
	}
	place(t, dir, "perm.wasm", permGuest(t, "env", greedy))
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := call(t, h, "env"), "TZ=Europe/Paris;MODE=strict;|0"; got != want {
		t.Errorf("granted sandbox: %q, want %q", got, want)
	}
	line := l.wait(t, "not granted", "perm.wasm")
	for _, d := range []string{"env WASMCP_SECRET", "write to /data", "clock"} {
		if !strings.Contains(line, d) {
			t.Errorf("denial log line lacks %q: %s", d, line)
		}
	}

	// A module that asks for nothing gets nothing, whatever the policy.
	place(t, dir, "perm.wasm", permGuest(t, "env", nil))
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := call(t, h, "env"), "|E"; got != want {
		t.Errorf("no request: %q, want %q", got, want)
	}

	// A plugin the policy does not name gets nothing either.
	place(t, dir, "other.wasm", permGuest(t, "other", greedy))
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := call(t, h, "other"), "|E"; got != want {
		t.Errorf("unnamed plugin: %q, want %q", got, want)
	}
}

func TestInspectPermissions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "perm.wasm")
	req := &abi.Permissions{Env: []string{"TZ", "HOME"}, FS: []abi.FSPermission{{Path: "/data"}}, Random: true}
	if err := os.WriteFile(path, permGuest(t, "env", req), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := host.Inspect(context.Background(), testConfig(t).WithPolicy(permPolicy(t)), path)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Loadable {
		t.Fatal(r.Problem)
	}
	want := &abi.Permissions{Env: []string{"TZ"}, FS: []abi.FSPermission{{Path: "/data"}}}
	if g, _ := json.Marshal(r.Granted); string(g) != string(mustJSON(want)) {
		t.Errorf("granted %s, want %s", g, mustJSON(want))
	}
	if !slices.Equal(r.Denied, []string{"env HOME", "random"}) {
		t.Errorf("denied %q", r.Denied)
	}
	if r.Requested == nil || len(r.Requested.Env) != 2 {
		t.Errorf("requested %+v", r.Requested)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func TestPermissionsMalformedRequestRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "perm.wasm")
	if err := os.WriteFile(path, permGuest(t, "env", &abi.Permissions{FS: []abi.FSPermission{{Path: "data/../x"}}}), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := host.Inspect(context.Background(), testConfig(t), path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Loadable || !strings.Contains(r.Problem, "permissions") {
		t.Errorf("loadable %v, problem %q", r.Loadable, r.Problem)
	}
}

func TestPolicyLimitsPerPlugin(t *testing.T) {
	// A 64 KiB memory limit is below the two pages the guest starts with:
	// the plugin the policy names fails to load, the other loads.
	doc := []byte(`{"plugins": {"small": {"memory": 65536}}}`)
	p, err := policy.Parse(doc, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	h := newHost(t, dir, nil, testConfig(t).WithPolicy(p))
	place(t, dir, "small.wasm", permGuest(t, "small", nil))
	place(t, dir, "big.wasm", permGuest(t, "big", nil))
	if err := h.LoadDir(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := toolNames(h.Tools()); !slices.Equal(got, []string{"big"}) {
		t.Errorf("tools %q, want only big", got)
	}
}

func TestLockedDown(t *testing.T) {
	dir := t.TempDir()
	good := guest(t, guestSpec{Tools: []string{"good"}, Answer: "good"})
	evil := guest(t, guestSpec{Tools: []string{"good"}, Answer: "evil"})
	place(t, dir, "good.wasm", good)
	place(t, dir, "stray.wasm", guest(t, guestSpec{Tools: []string{"stray"}, Answer: "x"}))
	lock, err := trust.ParseLock([]byte(trust.LockLine("good.wasm", good)))
	if err != nil {
		t.Fatal(err)
	}
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t).WithTrust(&trust.Verifier{Lock: lock}))
	ctx := context.Background()
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	if got := toolNames(h.Tools()); !slices.Equal(got, []string{"good"}) {
		t.Fatalf("tools %q, want only good", got)
	}
	l.wait(t, "not loaded", "stray.wasm", "sha256:", "not pinned")

	// A hot reload with other bytes is refused too; the pinned version
	// keeps serving.
	l.reset()
	place(t, dir, "good.wasm", evil)
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	l.wait(t, "good.wasm", "sha256:", "not pinned")
	if got := call(t, h, "good"); got != "good" {
		t.Errorf("after a refused reload: %q", got)
	}
	if err := h.LoadFile(ctx, filepath.Join(dir, "stray.wasm")); !errors.Is(err, trust.ErrNotPinned) {
		t.Errorf("LoadFile of an unpinned module: %v", err)
	}
}

func TestLockedDownSignatures(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	keys, err := trust.ParseKeys([]byte(trust.KeyLine(pub, "test")))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	signed := guest(t, guestSpec{Tools: []string{"signed"}, Answer: "s"})
	unsigned := guest(t, guestSpec{Tools: []string{"unsigned"}, Answer: "u"})
	place(t, dir, "signed.wasm", signed)
	place(t, dir, "unsigned.wasm", unsigned)
	if err := os.WriteFile(trust.SigPath(filepath.Join(dir, "signed.wasm")), trust.Sign(priv, signed), 0o644); err != nil {
		t.Fatal(err)
	}
	lock, _ := trust.ParseLock([]byte(trust.LockLine("signed.wasm", signed) + trust.LockLine("unsigned.wasm", unsigned)))
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t).WithTrust(&trust.Verifier{Lock: lock, Keys: keys}))
	if err := h.LoadDir(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := toolNames(h.Tools()); !slices.Equal(got, []string{"signed"}) {
		t.Fatalf("tools %q, want only signed", got)
	}
	l.wait(t, "unsigned.wasm", "not signed")
}

func TestInspectLockedDown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.wasm")
	if err := os.WriteFile(path, guest(t, guestSpec{Tools: []string{"x"}}), 0o644); err != nil {
		t.Fatal(err)
	}
	lock, _ := trust.ParseLock(nil)
	r, err := host.Inspect(context.Background(), testConfig(t).WithTrust(&trust.Verifier{Lock: lock}), path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Loadable || !strings.Contains(r.Problem, "not pinned") || !strings.Contains(r.Problem, r.SHA256) {
		t.Errorf("loadable %v, problem %q", r.Loadable, r.Problem)
	}
}
