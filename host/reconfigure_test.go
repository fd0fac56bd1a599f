package host_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/host/trust"
)

// lockOf pins the named modules of dir as they are now.
func lockOf(t *testing.T, files map[string][]byte) *trust.Verifier {
	t.Helper()
	var lines strings.Builder
	for name, wasm := range files {
		lines.WriteString(trust.LockLine(name, wasm))
	}
	lock, err := trust.ParseLock([]byte(lines.String()))
	if err != nil {
		t.Fatal(err)
	}
	return &trust.Verifier{Lock: lock}
}

// A new lock takes effect on the modules already served: one it no longer
// pins stops serving, one it now pins is loaded, and the tool set changes
// once for both.
func TestReconfigureLock(t *testing.T) {
	dir := t.TempDir()
	a := guest(t, guestSpec{Tools: []string{"a"}, Answer: "a"})
	b := guest(t, guestSpec{Tools: []string{"b"}, Answer: "b"})
	place(t, dir, "a.wasm", a)
	place(t, dir, "b.wasm", b)
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t).WithTrust(lockOf(t, map[string][]byte{"a.wasm": a})))
	ctx := context.Background()
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	if got := toolNames(h.Tools()); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("tools %q, want a", got)
	}
	c := subscribe(h)

	if err := h.Reconfigure(ctx, nil, lockOf(t, map[string][]byte{"b.wasm": b})); err != nil {
		t.Fatal(err)
	}
	if got := summary(c.next(t)); got != "+b -a" {
		t.Errorf("change %q, want +b -a in one", got)
	}
	if got := toolNames(h.Tools()); !slices.Equal(got, []string{"b"}) {
		t.Errorf("tools %q, want b", got)
	}
	l.wait(t, "plugin removed: the trust policy now refuses it", "a.wasm", "not pinned")
	if _, err := h.Call(ctx, host.CallRequest{Tool: "a"}); !errors.Is(err, host.ErrUnknownTool) {
		t.Errorf("call of a: %v, want ErrUnknownTool", err)
	}

	// Without a lock, every module loads.
	if err := h.Reconfigure(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := summary(c.next(t)); got != "+a" {
		t.Errorf("change %q, want +a", got)
	}
	if got := call(t, h, "a") + call(t, h, "b"); got != "ab" {
		t.Errorf("calls answer %q", got)
	}
}

// A module loaded with LoadFile from elsewhere is judged again too, by a
// Host with a directory and by one without.
func TestReconfigureLoadFile(t *testing.T) {
	for _, c := range []struct{ name, dir string }{{"dir", t.TempDir()}, {"no dir", ""}} {
		t.Run(c.name, func(t *testing.T) {
			elsewhere := t.TempDir()
			x := guest(t, guestSpec{Tools: []string{"x"}, Answer: "x"})
			place(t, elsewhere, "x.wasm", x)
			h := newHost(t, c.dir, nil, testConfig(t))
			ctx := context.Background()
			if err := h.LoadFile(ctx, filepath.Join(elsewhere, "x.wasm")); err != nil {
				t.Fatal(err)
			}
			if err := h.Reconfigure(ctx, nil, lockOf(t, nil)); err != nil {
				t.Fatal(err)
			}
			if got := toolNames(h.Tools()); len(got) != 0 {
				t.Errorf("dir %q: tools %q after a lock that pins nothing, want none", c.dir, got)
			}
		})
	}
}

// A new policy reloads every module with its limits; a module it no longer
// lets load (here: a memory limit below its minimum) keeps serving as it was,
// as a failed hot reload does, and the log says why.
func TestReconfigurePolicy(t *testing.T) {
	dir := t.TempDir()
	place(t, dir, "small.wasm", permGuest(t, "small", nil))
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t))
	ctx := context.Background()
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	c := subscribe(h)
	tight, err := policy.Parse([]byte(`{"plugins": {"small": {"memory": 65536}}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Reconfigure(ctx, tight, nil); err != nil {
		t.Fatal(err)
	}
	l.wait(t, "plugin not reloaded; the previous version keeps serving", "small.wasm")
	if got := toolNames(h.Tools()); !slices.Equal(got, []string{"small"}) {
		t.Errorf("tools %q, want small still served", got)
	}
	// Loaded again with the same definitions: clients see no change.
	l.reset()
	if err := h.Reconfigure(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case ch := <-c:
		t.Errorf("a reconfiguration that changes no definition made a change: %s", summary(ch))
	default:
	}
	l.wait(t, "plugin loaded", "small.wasm")
}
