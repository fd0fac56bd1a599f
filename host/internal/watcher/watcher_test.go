package watcher

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// cp writing a file in many chunks produces a burst of Write notifications;
// the file must be reported once, complete.
func TestChunkedCopy(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t), safe)
	chunk := bytes.Repeat([]byte{0xAB}, 16<<10)
	const chunks = 64

	f, err := os.Create(h.path("big.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	for range chunks {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
		// Spread the writes so that a watcher reporting a fixed time after
		// the first notification would catch the file half-written.
		time.Sleep(10 * time.Millisecond)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	b := h.next()
	fi, err := os.Stat(h.path("big.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != chunks*int64(len(chunk)) {
		t.Fatalf("reported while %d of %d bytes were written", fi.Size(), chunks*len(chunk))
	}
	if len(b) != 1 || b[0] != (Event{h.path("big.wasm"), Changed}) {
		t.Fatalf("got %v, want one Changed big.wasm", b)
	}
	h.quiet()
}

// Editors and build tools write a temporary name and rename it into place.
// Only the target is reported, once, whether it existed before or not.
func TestAtomicSave(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t, "old.wasm"), fast)
	for _, tc := range []struct{ tmp, target string }{
		{".new.wasm.swp", "new.wasm"},         // new file, dotfile temp
		{"old.wasm.tmp", "old.wasm"},          // over an existing file
		{"new.wasm.part", "new.wasm"},         // over a file we reported
		{"old.wasm-go-tmp-umask", "old.wasm"}, // go build's probe name
	} {
		writeFile(t, h.path(tc.tmp), "content for "+tc.tmp)
		if err := os.Rename(h.path(tc.tmp), h.path(tc.target)); err != nil {
			t.Fatal(err)
		}
		h.expect(map[string]Op{tc.target: Changed})
	}
}

// Vim's default save (backupcopy=auto): probe the directory with a file named
// 4913, move the original to x~, write a new x, delete x~. One Changed.
func TestVimSave(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t, "x.wasm"), safe)
	writeFile(t, h.path("4913"), "")
	if err := os.Remove(h.path("4913")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(h.path("x.wasm"), h.path("x.wasm~")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, h.path("x.wasm"), "edited")
	if err := os.Remove(h.path("x.wasm~")); err != nil {
		t.Fatal(err)
	}
	h.expect(map[string]Op{"x.wasm": Changed})
}

// A file overwritten in place (O_TRUNC, then writes) is one Changed, reported
// with its final content.
func TestOverwriteInPlace(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t, "x.wasm"), safe)
	f, err := os.OpenFile(h.path("x.wasm"), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := writeChunks(t, f, 8)
	h.next()
	got, err := os.ReadFile(h.path("x.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("reported with %d bytes, want %d", len(got), len(want))
	}
	h.quiet()
}

// go build copying onto the target (when it cannot rename across file
// systems) removes, recreates and writes it: one Changed, never Removed.
func TestRemoveAndRecreate(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t, "x.wasm"), safe)
	if err := os.Remove(h.path("x.wasm")); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(h.path("x.wasm"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	writeChunks(t, f, 8)
	h.expect(map[string]Op{"x.wasm": Changed})
}

func writeChunks(t *testing.T, f *os.File, n int) []byte {
	t.Helper()
	var all []byte
	for i := range n {
		chunk := bytes.Repeat([]byte{byte(i)}, 4096)
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
		all = append(all, chunk...)
		time.Sleep(time.Millisecond)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return all
}

// Attribute notifications that change nothing the watcher compares are not
// reported; a real mode change is.
func TestChmod(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t, "x.wasm"), fast)
	p := h.path("x.wasm")
	if err := os.Chmod(p, 0o644); err != nil { // same mode: IN_ATTRIB, nothing new
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, time.Now().Add(time.Hour), fi.ModTime()); err != nil { // atime only
		t.Fatal(err)
	}
	h.quiet()

	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	h.expect(map[string]Op{"x.wasm": Changed})
}

func TestRemove(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t, "a.wasm", "b.wasm"), fast)
	if err := os.Remove(h.path("a.wasm")); err != nil {
		t.Fatal(err)
	}
	h.expect(map[string]Op{"a.wasm": Removed})
}

func TestRenameOut(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t, "a.wasm"), fast)
	if err := os.Rename(h.path("a.wasm"), filepath.Join(t.TempDir(), "a.wasm")); err != nil {
		t.Fatal(err)
	}
	h.expect(map[string]Op{"a.wasm": Removed})
}

func TestRenameIn(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t), fast)
	src := filepath.Join(t.TempDir(), "a.wasm")
	writeFile(t, src, "a")
	if err := os.Rename(src, h.path("a.wasm")); err != nil {
		t.Fatal(err)
	}
	h.expect(map[string]Op{"a.wasm": Changed})
}

// Renaming a plugin within the directory arrives as one batch, so a loader
// can move its tools from one file to the other in one step.
func TestRenameWithin(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t, "a.wasm"), safe)
	if err := os.Rename(h.path("a.wasm"), h.path("b.wasm")); err != nil {
		t.Fatal(err)
	}
	batches := h.expect(map[string]Op{"a.wasm": Removed, "b.wasm": Changed})
	if len(batches) != 1 {
		t.Fatalf("got %d batches %v, want one", len(batches), batches)
	}
}

// Temporary names, other extensions and subdirectories are not plugins.
func TestIgnored(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t), fast)
	for _, name := range []string{".x.wasm.swp", "x.wasm~", "4913", "x.wasm.tmp", "#x.wasm#", "notes.txt", ".wasm"} {
		writeFile(t, h.path(name), name)
	}
	if err := os.Mkdir(h.path("sub.wasm"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(h.path("sub.wasm"), "inner.wasm"), "inner")
	h.quiet()

	// The watcher is alive and only reports the real plugin.
	writeFile(t, h.path("real.wasm"), "real")
	h.expect(map[string]Op{"real.wasm": Changed})
}

// A symlink is reported under its own name with its target's content; a
// dangling one is absent, a link to a directory is not a plugin.
func TestSymlink(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t), fast)
	outside := t.TempDir()
	target1 := filepath.Join(outside, "one.bin")
	target2 := filepath.Join(outside, "two.bin")
	writeFile(t, target1, "one")
	writeFile(t, target2, "two")

	if err := os.Symlink(target1, h.path("link.wasm")); err != nil {
		t.Fatal(err)
	}
	h.expect(map[string]Op{"link.wasm": Changed})

	// Re-point the link the way ln -sf does (new link renamed over the old).
	if err := os.Symlink(target2, h.path(".link.wasm.new")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(h.path(".link.wasm.new"), h.path("link.wasm")); err != nil {
		t.Fatal(err)
	}
	h.expect(map[string]Op{"link.wasm": Changed})

	if err := os.Remove(target2); err != nil { // dangling now, but no event in our dir
		t.Fatal(err)
	}
	if err := os.Symlink(outside, h.path("dir.wasm")); err != nil {
		t.Fatal(err)
	}
	h.quiet()
	// A load of the whole directory (host.LoadDir, SIGHUP to serve) notices
	// the change behind the link: Scan no longer lists it, nor the link to
	// a directory.
	paths, err := Scan(h.dir, nil)
	if err != nil || len(paths) != 0 {
		t.Errorf("Scan = %v, %v; want nothing", paths, err)
	}
}

// A hundred files landing at once are all reported, in one batch, by a fixed
// number of goroutines.
func TestManyFiles(t *testing.T) { // not parallel: it counts goroutines
	dir := newDir(t)
	before := runtime.NumGoroutine()
	h := start(t, dir, safe)
	want := map[string]Op{}
	for i := range 100 {
		name := "p" + strconv.Itoa(i) + ".wasm"
		writeFile(t, h.path(name), name)
		want[name] = Changed
	}
	// All hundred are pending now (unless the machine stalled past Settle,
	// which only makes this check weaker).
	if n := runtime.NumGoroutine() - before; n > 4 {
		t.Errorf("%d goroutines added for 100 pending files; want a fixed few", n)
	}
	batches := h.expect(want)
	if len(batches) != 1 {
		t.Errorf("got %d batches, want one", len(batches))
	}

	// Close leaves nothing running. Goroutines end asynchronously, so wait
	// for the count to come back rather than sampling it once.
	if err := h.w.Close(); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(deadline); runtime.NumGoroutine() > before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d goroutines left running after Close", runtime.NumGoroutine()-before)
		}
	}
}

// Removing the directory reports every file Removed; recreating it reports
// every file in it Changed.
func TestDirRemovedAndRecreated(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t, "a.wasm", "b.wasm"), fast)
	if err := os.RemoveAll(h.dir); err != nil {
		t.Fatal(err)
	}
	h.expect(map[string]Op{"a.wasm": Removed, "b.wasm": Removed})

	if err := os.Mkdir(h.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, h.path("a.wasm"), "a again")
	writeFile(t, h.path("c.wasm"), "c")
	h.expect(map[string]Op{"a.wasm": Changed, "c.wasm": Changed})

	// The new directory is watched, not just scanned once.
	if err := os.Remove(h.path("c.wasm")); err != nil {
		t.Fatal(err)
	}
	h.expect(map[string]Op{"c.wasm": Removed})
}

// Renaming the directory away is like removing it, even though no
// notification names the files; a directory renamed into its place is
// picked up.
func TestDirRenamed(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t, "a.wasm", "b.wasm"), fast)
	if err := os.Rename(h.dir, h.dir+".old"); err != nil {
		t.Fatal(err)
	}
	h.expect(map[string]Op{"a.wasm": Removed, "b.wasm": Removed})

	staged := filepath.Join(t.TempDir(), "staged")
	if err := os.Mkdir(staged, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(staged, "b.wasm"), "b")
	if err := os.Rename(staged, h.dir); err != nil {
		t.Fatal(err)
	}
	h.expect(map[string]Op{"b.wasm": Changed})
}

// Swapping a directory for another in quick succession ends with the new
// directory's files Changed and the old-only ones Removed, whatever was
// reported in between.
func TestDirSwapped(t *testing.T) {
	t.Parallel()
	h := start(t, newDir(t, "keep.wasm", "gone.wasm"), fast)
	staged := filepath.Join(filepath.Dir(h.dir), "staged")
	if err := os.Mkdir(staged, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(staged, "keep.wasm"), "keep.wasm") // same size as before
	writeFile(t, filepath.Join(staged, "new.wasm"), "new")
	if err := os.Rename(h.dir, h.dir+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(staged, h.dir); err != nil {
		t.Fatal(err)
	}
	h.waitFor(map[string]Op{"keep.wasm": Changed, "gone.wasm": Removed, "new.wasm": Changed})
	h.quiet()
}

func TestClose(t *testing.T) {
	t.Parallel()
	dir := newDir(t)
	w, err := New(dir, Options{Settle: fast, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	// Undelivered events must not keep Close waiting for a consumer.
	writeFile(t, filepath.Join(dir, "a.wasm"), "a")
	time.Sleep(2 * fast) // let something become ready; not required for the assertions
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	for range w.Events() { // drains at most what was in flight, then must end
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := New(filepath.Join(dir, "missing"), Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing dir: got %v, want fs.ErrNotExist", err)
	}
	file := filepath.Join(dir, "file")
	writeFile(t, file, "")
	if _, err := New(file, Options{}); err == nil {
		t.Error("a file as dir: got nil error")
	}
	if _, err := New(dir, Options{Settle: -time.Second}); err == nil {
		t.Error("negative settle: got nil error")
	}
}
