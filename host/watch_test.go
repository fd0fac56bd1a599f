package host_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wasmcp/wasmcp/host"
)

// startWatch runs h.Watch until the test ends and checks how it returned.
func startWatch(t *testing.T, h *host.Host) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Watch(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	})
}

func TestWatchLifecycle(t *testing.T) {
	dir := t.TempDir()
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t))
	ch := subscribe(h)
	startWatch(t, h)
	path := filepath.Join(dir, "a.wasm")
	v1 := guest(t, guestSpec{Tools: []string{"steady", "extra"}, Description: "one", Answer: "v1"})
	v2 := guest(t, guestSpec{Tools: []string{"steady"}, Description: "two", Answer: "v2"})
	marker := 0
	// expectNothing proves that what was done before produced no Change:
	// a marker file added afterwards must be the next Change.
	expectNothing := func(t *testing.T, what string) {
		t.Helper()
		marker++
		name := fmt.Sprintf("marker%d", marker)
		place(t, dir, name+".wasm", guest(t, guestSpec{Tools: []string{name}}))
		if got := summary(ch.next(t)); got != "+"+name {
			t.Fatalf("after %s: Change %q, want only the marker +%s", what, got, name)
		}
	}

	place(t, dir, "a.wasm", v1)
	if got := summary(ch.next(t)); got != "+extra,steady" {
		t.Fatalf("add: Change %q", got)
	}
	if got := call(t, h, "steady"); got != "v1" {
		t.Fatalf("steady = %q", got)
	}

	place(t, dir, "a.wasm", v2)
	if got := summary(ch.next(t)); got != "~steady -extra" {
		t.Fatalf("replace: Change %q", got)
	}
	if got := call(t, h, "steady"); got != "v2" {
		t.Fatalf("steady after replace = %q", got)
	}

	// The same bytes again (a new mtime and inode): no reload, no Change.
	// The load of v2 is logged after the swap; wait for it before forgetting.
	l.wait(t, "plugin loaded", path, sha256Hex(v2))
	l.reset()
	place(t, dir, "a.wasm", v2)
	l.wait(t, "plugin unchanged; not reloaded", path)
	expectNothing(t, "an identical rewrite")
	if line, _ := l.lineWith("plugin loaded", path); line != "" {
		t.Fatalf("identical content reloaded: %s", line)
	}

	// Garbage and a truncated module: the old version keeps serving.
	for name, bad := range map[string][]byte{"garbage": []byte("garbage"), "truncated": v1[:len(v1)-10]} {
		t.Run(name, func(t *testing.T) {
			l.reset()
			if err := os.WriteFile(path, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			l.wait(t, "plugin not reloaded; the previous version keeps serving", path)
			if got := call(t, h, "steady"); got != "v2" {
				t.Fatalf("steady after %s = %q, want the previous version", name, got)
			}
			expectNothing(t, name)
		})
	}

	// Written again in full: loaded. Its content is v1's, so steady's
	// description changes back and extra returns.
	if err := os.WriteFile(path, v1, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := summary(ch.next(t)); got != "+extra ~steady" {
		t.Fatalf("repair: Change %q", got)
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if got := summary(ch.next(t)); got != "-extra,steady" {
		t.Fatalf("delete: Change %q", got)
	}
	if n := len(h.Tools()); n != marker {
		t.Fatalf("%d tools after delete, want the %d markers", n, marker)
	}

	place(t, dir, "a.wasm", v1)
	if got := summary(ch.next(t)); got != "+extra,steady" {
		t.Fatalf("re-add: Change %q", got)
	}

	// A newcomer, first by name, defining steady and its own tool.
	l.reset()
	place(t, dir, "0new.wasm", guest(t, guestSpec{Tools: []string{"steady", "fresh"}, Answer: "new"}))
	if got := summary(ch.next(t)); got != "+fresh" {
		t.Fatalf("collide: Change %q", got)
	}
	l.wait(t, "tool name collision", "tool=steady", "file="+filepath.Join(dir, "0new.wasm"), "served_by="+path)
	if got := call(t, h, "steady"); got != "v1" {
		t.Fatalf("steady after the collision = %q, want the incumbent", got)
	}
	want := []host.Refusal{{Tool: "steady", File: filepath.Join(dir, "0new.wasm"), Owner: path}}
	if got := h.Refused(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Refused = %+v", got)
	}

	// The owner goes: the newcomer takes steady over.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if got := summary(ch.next(t)); got != "~steady -extra" {
		t.Fatalf("owner deleted: Change %q", got)
	}
	if got := call(t, h, "steady"); got != "new" {
		t.Fatalf("steady = %q, want the newcomer", got)
	}
	if len(h.Refused()) != 0 {
		t.Fatalf("Refused = %+v", h.Refused())
	}
}

func TestWatchHundredModulesAtOnce(t *testing.T) {
	dir := t.TempDir()
	h := newHost(t, dir, nil, testConfig(t))
	ch := subscribe(h)
	startWatch(t, h)
	const n = 100
	want := map[string]bool{}
	for i := range n {
		name := fmt.Sprintf("t%03d", i)
		want[name] = true
		place(t, dir, name+".wasm", guest(t, guestSpec{Tools: []string{name}, Answer: name}))
	}
	got := map[string]bool{}
	for len(got) < n {
		c := ch.next(t)
		if len(c.Updated)+len(c.Removed) != 0 {
			t.Fatalf("unexpected Change %q", summary(c))
		}
		for _, tool := range c.Added {
			if got[tool.Name] {
				t.Fatalf("%s added twice", tool.Name)
			}
			got[tool.Name] = true
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("added %v", got)
	}
	if len(h.Tools()) != n {
		t.Fatalf("%d tools served", len(h.Tools()))
	}
	if got := call(t, h, "t042"); got != "t042" {
		t.Fatalf("t042 answered %q", got)
	}
}

func TestWatchCatchesUpWithChangesAfterLoadDir(t *testing.T) {
	dir := t.TempDir()
	place(t, dir, "a.wasm", guest(t, guestSpec{Tools: []string{"a"}}))
	h := newHost(t, dir, nil, testConfig(t))
	if err := h.LoadDir(context.Background()); err != nil {
		t.Fatal(err)
	}
	ch := subscribe(h)
	// Changed while nobody watches.
	place(t, dir, "b.wasm", guest(t, guestSpec{Tools: []string{"b"}}))
	if err := os.Remove(filepath.Join(dir, "a.wasm")); err != nil {
		t.Fatal(err)
	}
	startWatch(t, h)
	if got := summary(ch.next(t)); got != "+b -a" {
		t.Fatalf("Change %q, want +b -a", got)
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
