package watcher

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// newLoop returns the goroutine's state for dir without starting anything,
// so that settling can be driven with chosen instants.
func newLoop(t *testing.T, dir string, settle time.Duration) *loop {
	t.Helper()
	known, err := scanStates(dir, DefaultMatch)
	if err != nil {
		t.Fatal(err)
	}
	w := &Watcher{
		dir:    dir,
		settle: settle,
		hold:   10 * settle,
		landed: min(LandedQuiet, settle),
		match:  DefaultMatch,
		log:    testLogger(t),
	}
	return &loop{
		w:       w,
		known:   known,
		pending: map[string]*pending{},
		touched: map[string]fsnotify.Op{},
		readyAt: map[string]int{},
	}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A file that keeps changing after its last notification (here written
// through a hard link outside the directory, which notifies nobody watching
// the directory) is re-armed, not reported, until it stops changing.
func TestSettleRearmsWhileFileChanges(t *testing.T) {
	t.Parallel()
	dir := newDir(t)
	l := newLoop(t, dir, time.Second)
	p := filepath.Join(dir, "x.wasm")
	link := filepath.Join(t.TempDir(), "x-link")
	writeFile(t, p, "first chunk;")
	if err := os.Link(p, link); err != nil {
		t.Fatal(err)
	}

	t0 := time.Now()
	l.touch(p, statFile(p), fsnotify.Write, false, t0) // the notification for the first chunk
	appendTo(t, link, "second chunk;")

	due := t0.Add(time.Second)
	if wake, ok := l.nextWake(); !ok || !wake.Equal(due) {
		t.Fatalf("next wake %v %v, want %v", wake, ok, due)
	}
	l.settle(due)
	if len(l.ready) != 0 {
		t.Fatalf("reported %v while the file was still changing", l.ready)
	}
	if got := l.pending[p].due; !got.Equal(due.Add(time.Second)) {
		t.Fatalf("re-armed until %v, want %v", got, due.Add(time.Second))
	}

	l.settle(due.Add(time.Second))
	if want := (Event{p, Changed}); len(l.ready) != 1 || l.ready[0] != want {
		t.Fatalf("got %v, want [%v]", l.ready, want)
	}
	if !l.known[p].same(statFile(p)) {
		t.Fatal("known state is not the final one")
	}
}

// A path that has settled waits for the rest of the directory to go quiet,
// but no longer than hold.
func TestSettleHoldsForBatchUpToLimit(t *testing.T) {
	t.Parallel()
	dir := newDir(t)
	l := newLoop(t, dir, 100*time.Millisecond)
	quiet, busy := filepath.Join(dir, "quiet.wasm"), filepath.Join(dir, "busy.wasm")
	writeFile(t, quiet, "q")
	writeFile(t, busy, "b")

	t0 := time.Now()
	l.touch(quiet, statFile(quiet), fsnotify.Write, false, t0)
	l.touch(busy, statFile(busy), fsnotify.Write, false, t0.Add(50*time.Millisecond))
	if wake, _ := l.nextWake(); !wake.Equal(t0.Add(150 * time.Millisecond)) {
		t.Fatalf("wake %v, want when both are quiet", wake.Sub(t0))
	}
	l.settle(t0.Add(120 * time.Millisecond)) // quiet is due, busy is not
	if len(l.ready) != 0 {
		t.Fatalf("reported %v before the batch was complete", l.ready)
	}

	// busy keeps getting notifications; quiet must not starve.
	for at := 100 * time.Millisecond; at < 2*time.Second; at += 50 * time.Millisecond {
		l.touch(busy, statFile(busy), fsnotify.Write, false, t0.Add(at))
	}
	limit := t0.Add(100*time.Millisecond + l.w.hold)
	if wake, _ := l.nextWake(); !wake.Equal(limit) {
		t.Fatalf("wake %v, want %v", wake.Sub(t0), limit.Sub(t0))
	}
	l.settle(limit)
	if want := (Event{quiet, Changed}); len(l.ready) != 1 || l.ready[0] != want {
		t.Fatalf("got %v, want [%v]", l.ready, want)
	}
	if _, ok := l.pending[busy]; !ok {
		t.Fatal("busy was settled while still receiving notifications")
	}
}

// Undelivered events merge per path: the consumer gets the latest state.
func TestReadyMerges(t *testing.T) {
	t.Parallel()
	l := newLoop(t, newDir(t), time.Second)
	l.emit("/d/b.wasm", Changed)
	l.emit("/d/a.wasm", Changed)
	l.emit("/d/b.wasm", Removed)
	want := []Event{{"/d/a.wasm", Changed}, {"/d/b.wasm", Removed}}
	got := l.batch()
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %v, want %v", got, want)
	}
	l.emit("/d/a.wasm", Removed) // after sorting, indexes must still be right
	if len(l.ready) != 2 || l.ready[0] != (Event{"/d/a.wasm", Removed}) {
		t.Fatalf("merge after sort: %v", l.ready)
	}
}

// When the kernel queue overflows, notifications were lost: everything is
// rescanned and reported. The test loses them for real by dropping the watch
// while changing files, then delivers the overflow error fsnotify would.
func TestOverflowRescans(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t, "same.wasm", "gone.wasm", "grown.wasm"), fast)
	if err := h.w.fsw.Remove(h.dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(h.path("gone.wasm")); err != nil {
		t.Fatal(err)
	}
	appendTo(t, h.path("grown.wasm"), "more")
	writeFile(t, h.path("new.wasm"), "new")
	if err := h.w.fsw.Add(h.dir); err != nil {
		t.Fatal(err)
	}
	h.w.fsw.Errors <- fsnotify.ErrEventOverflow

	batches := h.expect(map[string]Op{
		"same.wasm":  Changed, // unchanged, reported anyway: the loader dedups
		"gone.wasm":  Removed,
		"grown.wasm": Changed,
		"new.wasm":   Changed,
	})
	if len(batches) != 1 {
		t.Errorf("got %d batches, want one", len(batches))
	}
}

// A rescan's promise to report a path survives later notifications for it
// before it settles.
func TestForceSurvivesLaterEvents(t *testing.T) {
	t.Parallel()
	dir := newDir(t, "x.wasm")
	l := newLoop(t, dir, time.Second)
	p := filepath.Join(dir, "x.wasm")
	t0 := time.Now()
	l.touch(p, statFile(p), 0, true, t0)                                     // rescan
	l.touch(p, statFile(p), fsnotify.Chmod, false, t0.Add(time.Millisecond)) // e.g. a chmod to the same mode
	l.settle(t0.Add(2 * time.Second))
	if want := (Event{p, Changed}); len(l.ready) != 1 || l.ready[0] != want {
		t.Fatalf("got %v, want [%v]", l.ready, want)
	}
}
