package watcher

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// record runs do on dir and returns the notifications fsnotify delivered for
// it, in order. A sentinel file created after do marks the end: a directory's
// notifications arrive in the order they happened.
func record(t *testing.T, dir string, do func()) []fsnotify.Event {
	t.Helper()
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer fsw.Close()
	if err := fsw.Add(dir); err != nil {
		t.Fatal(err)
	}
	sentinel := filepath.Join(dir, "zz-sentinel") // never a plugin name
	got := make(chan []fsnotify.Event, 1)
	go func() { // receive while do runs, so fsnotify never waits for us
		var evs []fsnotify.Event
		for {
			select {
			case ev := <-fsw.Events:
				if ev.Name == sentinel {
					got <- evs
					return
				}
				evs = append(evs, ev)
			case err := <-fsw.Errors:
				t.Errorf("recording notifications: %v", err)
			case <-time.After(deadline):
				got <- nil
				return
			}
		}
	}()
	do()
	writeFile(t, sentinel, "")
	evs := <-got
	if evs == nil {
		t.Fatalf("no sentinel notification within %v", deadline)
	}
	if len(evs) <= 8 {
		t.Logf("notifications %v", evs)
	} else {
		t.Logf("%d notifications, first %v", len(evs), evs[0])
	}
	return evs
}

// replay hands recorded notifications to l at t0 the way its goroutine
// would: all in one drain, or each in a drain of its own (the worst case
// for a Create whose Write comes next). The files are sampled now, complete,
// as if the watcher had been slow to look.
func replay(l *loop, evs []fsnotify.Event, t0 time.Time, oneDrain bool) {
	for _, ev := range evs {
		l.note(ev)
		if !oneDrain {
			l.flush(t0)
		}
	}
	l.flush(t0)
}

// takeAt settles l at the instant at and returns what became ready.
func takeAt(l *loop, at time.Time) []Event {
	l.settle(at)
	b := slices.Clone(l.batch())
	l.ready = nil
	clear(l.readyAt)
	return b
}

func renameIn(t *testing.T, dir, name, content string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), name)
	writeFile(t, src, content)
	if err := os.Rename(src, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

// landing is how a file arrives, and what the watcher must make of it.
type landing struct {
	name  string
	files []string                       // present before
	do    func(t *testing.T, dir string) // the landing itself
	want  map[string]Op
}

// Files that arrive complete, by a rename or a link, are reported after the
// short quiet period, however long Settle is.
func TestLandedSkipsSettle(t *testing.T) {
	t.Parallel()
	for _, tc := range []landing{
		{"rename in from elsewhere", nil, func(t *testing.T, dir string) {
			renameIn(t, dir, "x.wasm", "x")
		}, map[string]Op{"x.wasm": Changed}},
		{"temporary name renamed in place", nil, func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, ".x.wasm.tmp"), "x")
			mustRename(t, filepath.Join(dir, ".x.wasm.tmp"), filepath.Join(dir, "x.wasm"))
		}, map[string]Op{"x.wasm": Changed}},
		{"rename over an existing file", []string{"x.wasm"}, func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "x.wasm.part"), "new x")
			mustRename(t, filepath.Join(dir, "x.wasm.part"), filepath.Join(dir, "x.wasm"))
		}, map[string]Op{"x.wasm": Changed}},
		{"old moved aside, new renamed in", []string{"x.wasm"}, func(t *testing.T, dir string) {
			mustRename(t, filepath.Join(dir, "x.wasm"), filepath.Join(dir, "x.wasm~"))
			renameIn(t, dir, "x.wasm", "new x")
		}, map[string]Op{"x.wasm": Changed}},
		{"hard link", nil, func(t *testing.T, dir string) {
			src := filepath.Join(t.TempDir(), "x")
			writeFile(t, src, "x")
			if err := os.Link(src, filepath.Join(dir, "x.wasm")); err != nil {
				t.Fatal(err)
			}
		}, map[string]Op{"x.wasm": Changed}},
		{"symlink", nil, func(t *testing.T, dir string) {
			src := filepath.Join(t.TempDir(), "x")
			writeFile(t, src, "x")
			mustSymlink(t, src, filepath.Join(dir, "x.wasm"))
		}, map[string]Op{"x.wasm": Changed}},
		{"rename in, then chmod", nil, func(t *testing.T, dir string) {
			renameIn(t, dir, "x.wasm", "x")
			if err := os.Chmod(filepath.Join(dir, "x.wasm"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, map[string]Op{"x.wasm": Changed}},
		{"many renamed in", nil, func(t *testing.T, dir string) {
			for i := range 100 {
				renameIn(t, dir, "p"+strconv.Itoa(i)+".wasm", "p")
			}
		}, manyChanged(100)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for oneDrain, r := range replayLanding(t, tc) {
				l, t0 := r.loop, r.t0
				at := t0.Add(LandedQuiet)
				if wake, ok := l.nextWake(); !ok || !wake.Equal(at) {
					t.Fatalf("one drain %v: next wake after %v, want %v", oneDrain, wake.Sub(t0), LandedQuiet)
				}
				checkReported(t, takeAt(l, at), tc.want)
			}
		})
	}
}

// Files written in place, or that may still be written, wait for Settle
// even when their first sample already showed data; a move away waits too,
// so that rename within the directory stays one batch.
func TestWrittenWaitsSettle(t *testing.T) {
	t.Parallel()
	for _, tc := range []landing{
		{"cp: create, then write in chunks", nil, func(t *testing.T, dir string) {
			f, err := os.Create(filepath.Join(dir, "x.wasm"))
			if err != nil {
				t.Fatal(err)
			}
			writeChunks(t, f, 8)
		}, map[string]Op{"x.wasm": Changed}},
		{"one write (shell redirect, os.WriteFile)", nil, func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "x.wasm"), "x")
		}, map[string]Op{"x.wasm": Changed}},
		{"overwrite in place", []string{"x.wasm"}, func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "x.wasm"), "new x")
		}, map[string]Op{"x.wasm": Changed}},
		{"remove and recreate (go build copying)", []string{"x.wasm"}, func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "x.wasm")); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, "x.wasm"), "new x")
		}, map[string]Op{"x.wasm": Changed}},
		{"vim save", []string{"x.wasm"}, func(t *testing.T, dir string) {
			mustRename(t, filepath.Join(dir, "x.wasm"), filepath.Join(dir, "x.wasm~"))
			writeFile(t, filepath.Join(dir, "x.wasm"), "edited")
			if err := os.Remove(filepath.Join(dir, "x.wasm~")); err != nil {
				t.Fatal(err)
			}
		}, map[string]Op{"x.wasm": Changed}},
		{"empty file renamed in", nil, func(t *testing.T, dir string) {
			renameIn(t, dir, "x.wasm", "")
		}, map[string]Op{"x.wasm": Changed}},
		{"rename within the directory", []string{"a.wasm"}, func(t *testing.T, dir string) {
			mustRename(t, filepath.Join(dir, "a.wasm"), filepath.Join(dir, "b.wasm"))
		}, map[string]Op{"a.wasm": Removed, "b.wasm": Changed}},
		{"removed", []string{"x.wasm"}, func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "x.wasm")); err != nil {
				t.Fatal(err)
			}
		}, map[string]Op{"x.wasm": Removed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for oneDrain, r := range replayLanding(t, tc) {
				l, t0 := r.loop, r.t0
				at := t0.Add(time.Hour)
				if wake, ok := l.nextWake(); !ok || !wake.Equal(at) {
					t.Fatalf("one drain %v: next wake after %v, want an hour", oneDrain, wake.Sub(t0))
				}
				if b := takeAt(l, t0.Add(LandedQuiet)); b != nil {
					t.Fatalf("one drain %v: reported %v after %v", oneDrain, b, LandedQuiet)
				}
				if b := takeAt(l, at.Add(-time.Nanosecond)); b != nil {
					t.Fatalf("one drain %v: reported %v before Settle", oneDrain, b)
				}
				checkReported(t, takeAt(l, at), tc.want)
			}
		})
	}
}

// replayed is a loop that was given a landing's notifications at t0.
type replayed struct {
	loop *loop
	t0   time.Time
}

// replayLanding records the notifications of tc's landing in a directory of
// tc.files, and replays them into two loops with a Settle of an hour whose
// baseline is the directory before the landing: keyed true, all drained at
// once; false, one at a time, so that a Create is seen before its Write.
func replayLanding(t *testing.T, tc landing) map[bool]replayed {
	t.Helper()
	dir := newDir(t, tc.files...)
	loops := map[bool]*loop{true: newLoop(t, dir, time.Hour), false: newLoop(t, dir, time.Hour)}
	evs := record(t, dir, func() { tc.do(t, dir) })
	out := map[bool]replayed{}
	for oneDrain, l := range loops {
		t0 := time.Now()
		replay(l, evs, t0, oneDrain)
		out[oneDrain] = replayed{l, t0}
	}
	return out
}

// checkReported asserts that one batch reports exactly want, by base name.
func checkReported(t *testing.T, b []Event, want map[string]Op) {
	t.Helper()
	got := map[string]Op{}
	for _, e := range b {
		got[filepath.Base(e.Path)] = e.Op
	}
	if len(b) != len(want) || len(got) != len(want) {
		t.Fatalf("reported %d events %v, want %v", len(b), b, want)
	}
	for name, op := range want {
		if got[name] != op {
			t.Fatalf("reported %v, want %v", b, want)
		}
	}
}

func manyChanged(n int) map[string]Op {
	m := map[string]Op{}
	for i := range n {
		m["p"+strconv.Itoa(i)+".wasm"] = Changed
	}
	return m
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

// A landed file's short quiet period does not survive a Write, a change no
// notification announced, or a rescan: until it is reported, it waits for
// Settle like any written file.
func TestLandedDemoted(t *testing.T) {
	t.Parallel()
	dir := newDir(t)
	p := filepath.Join(dir, "x.wasm")
	writeFile(t, p, "landed")
	const settle = time.Hour
	t0 := time.Now()

	t.Run("write", func(t *testing.T) {
		l := newLoop(t, dir, settle)
		l.touch(p, statFile(p), fsnotify.Create, false, t0)
		if due := l.pending[p].due; !due.Equal(t0.Add(LandedQuiet)) {
			t.Fatalf("landed file due after %v, want %v", due.Sub(t0), LandedQuiet)
		}
		l.touch(p, statFile(p), fsnotify.Write, false, t0.Add(time.Millisecond))
		l.touch(p, statFile(p), fsnotify.Create, false, t0.Add(2*time.Millisecond)) // renamed over again
		if due := l.pending[p].due; !due.Equal(t0.Add(2*time.Millisecond + settle)) {
			t.Fatalf("written file due after %v, want Settle after its last notification", due.Sub(t0))
		}
	})
	t.Run("silent change", func(t *testing.T) {
		l := newLoop(t, dir, settle)
		l.touch(p, statFile(p), fsnotify.Create, false, t0)
		appendTo(t, p, " and written through another path")
		at := t0.Add(LandedQuiet)
		if b := takeAt(l, at); b != nil {
			t.Fatalf("reported %v while it changed", b)
		}
		if due := l.pending[p].due; !due.Equal(at.Add(settle)) {
			t.Fatalf("re-armed for %v, want Settle", due.Sub(at))
		}
		l.touch(p, statFile(p), fsnotify.Chmod, false, at) // attribute notifications do not restore it
		if l.pending[p].landed() {
			t.Fatal("landed again after a silent change")
		}
	})
	t.Run("rescan", func(t *testing.T) {
		l := newLoop(t, dir, settle)
		l.touch(p, statFile(p), fsnotify.Create, false, t0)
		l.rescanAll()
		if l.pending[p].landed() {
			t.Fatal("still landed after a rescan: notifications may have been lost")
		}
	})
}

// A landed file waits for the rest of the directory like any settled path,
// so a batch stays whole, but never longer than if it had waited Settle.
func TestLandedBatching(t *testing.T) {
	t.Parallel()
	const settle = 100 * time.Millisecond
	hold := 10 * settle
	t0 := time.Now()
	// newBatchLoop returns a loop whose baseline is an empty directory, and
	// the two files that then appear in it.
	newBatchLoop := func(t *testing.T) (l *loop, landed, written string) {
		dir := newDir(t)
		l = newLoop(t, dir, settle)
		landed, written = filepath.Join(dir, "landed.wasm"), filepath.Join(dir, "written.wasm")
		writeFile(t, landed, "l")
		writeFile(t, written, "w")
		return l, landed, written
	}

	t.Run("only landed files", func(t *testing.T) {
		l, landed, _ := newBatchLoop(t)
		l.touch(landed, statFile(landed), fsnotify.Create, false, t0)
		if wake, _ := l.nextWake(); !wake.Equal(t0.Add(LandedQuiet)) {
			t.Fatalf("wake after %v, want %v", wake.Sub(t0), LandedQuiet)
		}
		if b := takeAt(l, t0.Add(LandedQuiet)); len(b) != 1 || b[0] != (Event{landed, Changed}) {
			t.Fatalf("got %v, want the landed file", b)
		}
	})
	t.Run("a written file settling", func(t *testing.T) {
		l, landed, written := newBatchLoop(t)
		l.touch(written, statFile(written), fsnotify.Write, false, t0)
		l.touch(landed, statFile(landed), fsnotify.Create, false, t0.Add(50*time.Millisecond))
		// Both go in one batch, when the written file settles: earlier than
		// the landed file would have been reported if it waited Settle.
		want := t0.Add(settle)
		if wake, _ := l.nextWake(); !wake.Equal(want) {
			t.Fatalf("wake after %v, want %v", wake.Sub(t0), want.Sub(t0))
		}
		if b := takeAt(l, want); len(b) != 2 {
			t.Fatalf("got %v, want both in one batch", b)
		}
	})
	t.Run("a file being written for long", func(t *testing.T) {
		l, landed, written := newBatchLoop(t)
		l.touch(landed, statFile(landed), fsnotify.Create, false, t0)
		for at := time.Duration(0); at < 3*hold; at += 10 * time.Millisecond {
			l.touch(written, statFile(written), fsnotify.Write, false, t0.Add(at))
		}
		want := t0.Add(LandedQuiet + hold)
		if wake, _ := l.nextWake(); !wake.Equal(want) {
			t.Fatalf("wake after %v, want %v", wake.Sub(t0), want.Sub(t0))
		}
		if b := takeAt(l, want); len(b) != 1 || b[0] != (Event{landed, Changed}) {
			t.Fatalf("got %v, want the landed file alone", b)
		}
	})
}

// End to end: with Settle an hour, a file renamed or linked in still
// arrives. Written files are covered by TestWrittenWaitsSettle, where time
// is chosen rather than waited for.
func TestLandedEndToEnd(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t, "old.wasm"), time.Hour)
	renameIn(t, h.dir, "new.wasm", "new")
	h.waitFor(map[string]Op{"new.wasm": Changed})
	renameIn(t, h.dir, "old.wasm", "replaced")
	h.waitFor(map[string]Op{"old.wasm": Changed})
	src := filepath.Join(t.TempDir(), "linked")
	writeFile(t, src, "linked")
	if err := os.Link(src, h.path("linked.wasm")); err != nil {
		t.Fatal(err)
	}
	h.waitFor(map[string]Op{"linked.wasm": Changed})
}
