package watcher

import (
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Tests never bound how fast something happens; they bound how long to wait
// before declaring it will never happen.
const deadline = 10 * time.Second

// Settle durations for tests. fast is for scenarios whose outcome cannot
// depend on timing (a single notification, or only notifications for one
// name). safe is for scenarios where a stall of the test goroutine longer
// than Settle between two steps would legitimately split one change into two
// reports; a second-long stall between adjacent syscalls is far beyond what
// a loaded machine produces.
const (
	fast = 50 * time.Millisecond
	safe = time.Second
)

type harness struct {
	t      *testing.T
	dir    string
	settle time.Duration
	w      *Watcher
}

// newDir returns a fresh plugin directory (a subdirectory of t.TempDir(), so
// tests can remove and recreate it) holding the given files.
func newDir(t *testing.T, files ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "plugins")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		writeFile(t, filepath.Join(dir, f), f)
	}
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(logWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// start watches dir; the watcher is closed when the test ends.
func start(t *testing.T, dir string, settle time.Duration) *harness {
	t.Helper()
	w, err := New(dir, Options{Settle: settle, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	return &harness{t: t, dir: w.dir, settle: settle, w: w}
}

func (h *harness) path(name string) string { return filepath.Join(h.dir, name) }

// next returns the next batch and checks the batch invariants.
func (h *harness) next() []Event {
	h.t.Helper()
	select {
	case b, ok := <-h.w.Events():
		if !ok {
			h.t.Fatal("events channel closed")
		}
		h.checkBatch(b)
		return b
	case <-time.After(deadline):
		h.t.Fatalf("no events within %v", deadline)
	}
	return nil
}

func (h *harness) checkBatch(b []Event) {
	h.t.Helper()
	if len(b) <= 5 {
		h.t.Logf("batch %v", b)
	} else {
		h.t.Logf("batch of %d, first %v", len(b), b[0])
	}
	if len(b) == 0 {
		h.t.Fatal("empty batch")
	}
	for i, e := range b {
		if filepath.Dir(e.Path) != h.dir {
			h.t.Fatalf("event %v outside %s", e, h.dir)
		}
		if i > 0 && b[i-1].Path >= e.Path {
			h.t.Fatalf("batch %v not sorted by path or repeats one", b)
		}
	}
}

// waitFor receives until the latest op seen for each base name equals want,
// and returns the batches received. An event for a name not in want fails the
// test at once: intermediate states are allowed only for expected names.
func (h *harness) waitFor(want map[string]Op) [][]Event {
	h.t.Helper()
	got := map[string]Op{}
	var batches [][]Event
	for !maps.Equal(got, want) {
		b := h.next()
		batches = append(batches, b)
		for _, e := range b {
			name := filepath.Base(e.Path)
			if _, ok := want[name]; !ok {
				h.t.Fatalf("unexpected event %v; want only %v", e, want)
			}
			got[name] = e.Op
		}
	}
	return batches
}

// expect is waitFor plus: each name was reported exactly once, and nothing
// else arrives during a quiet window.
func (h *harness) expect(want map[string]Op) [][]Event {
	h.t.Helper()
	batches := h.waitFor(want)
	seen := map[string]int{}
	for _, b := range batches {
		for _, e := range b {
			seen[filepath.Base(e.Path)]++
		}
	}
	for name, n := range seen {
		if n != 1 {
			h.t.Errorf("%s reported %d times in %v; want once", name, n, batches)
		}
	}
	h.quiet()
	return batches
}

// quiet asserts that no batch arrives within a window longer than Settle: a
// spurious report would follow its notification by Settle. It can only miss a
// late spurious event, never invent one.
func (h *harness) quiet() {
	h.t.Helper()
	window := h.settle + 250*time.Millisecond
	select {
	case b, ok := <-h.w.Events():
		if ok {
			h.t.Fatalf("unexpected batch %v", b)
		}
		h.t.Fatal("events channel closed")
	case <-time.After(window):
	}
}
