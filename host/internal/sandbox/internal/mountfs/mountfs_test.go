package mountfs_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
	"github.com/wasmcp/wasmcp/host/policy"
)

// secret is the content of the file outside the mount in these tests.
const secret = "SECRET outside the mount"

// More WASI errno values.
const (
	errnoLoop = 32
	errnoRofs = 69
)

// fakeEpoch is wazero's fake wall clock at its first reading, 2022-01-01.
var fakeEpoch = time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()

// fsop makes the call op of testdata/fsops.wat n times (1 to 255) on the
// guest's first mount, with one or two paths, and returns the last call's
// errno and data.
func fsop(t testing.TB, m *sandbox.Module, op byte, n int, paths ...string) (int, []byte) {
	t.Helper()
	errno, data, err := tryFsop(t, m, op, n, paths...)
	if err != nil {
		t.Fatal(err)
	}
	return errno, data
}

// tryFsop is fsop for goroutines other than the test's, which must not
// call t.Fatal.
func tryFsop(t testing.TB, m *sandbox.Module, op byte, n int, paths ...string) (int, []byte, error) {
	var out []byte
	err := m.Call(testContext(t), string(op), append([]byte{byte(n)}, strings.Join(paths, "\x00")...), nil, func(doc []byte, _ bool) error {
		out = bytes.Clone(doc)
		return nil
	})
	if err != nil {
		return 0, nil, fmt.Errorf("%c %q: %w", op, paths, err)
	}
	errno, err := strconv.Atoi(string(out[:5]))
	if err != nil {
		return 0, nil, fmt.Errorf("%c %q: result %q", op, paths, out)
	}
	return errno, out[5:], nil
}

// The tests run testdata/fsops.wat in the sandbox, as a plugin granted a
// mount: what they check is what a guest can reach through WASI.

//go:generate ../../../../../scripts/wat2wasm-testdata.sh testdata

var (
	testContext = sandboxtest.Context
	fsops       = sandboxtest.NewGuests("testdata")
)

// WASI errno values the tests name.
const errnoPerm = 63

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// fsGuest compiles testdata/fsops.wat with dir mounted at /data.
func fsGuest(t testing.TB, dir string, write, clock bool) *sandbox.Module {
	t.Helper()
	rt, err := sandbox.NewRuntime(context.Background(), sandbox.RuntimeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	m, err := rt.Compile(testContext(t), "fsops", fsops.Get(t, "fsops"), sandbox.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	g := policy.Grants{Mounts: []policy.Mount{{HostPath: dir, GuestPath: "/data", Write: write}}, Clock: clock}
	if err := m.SetGrants(testContext(t), g); err != nil {
		t.Fatal(err)
	}
	return m
}

// filestat is the part of a WASI filestat the tests read.
type filestat struct {
	filetype         byte
	nlink, size      uint64
	atim, mtim, ctim int64
}

func parseFilestat(t testing.TB, b []byte) filestat {
	t.Helper()
	if len(b) != 64 {
		t.Fatalf("filestat of %d bytes", len(b))
	}
	u := func(at int) uint64 { return binary.LittleEndian.Uint64(b[at:]) }
	return filestat{b[16], u(24), u(32), int64(u(40)), int64(u(48)), int64(u(56))}
}

// raceTree makes root/outside.txt, the secret, and root/data with
// data/sub/up -> "..", a link that stays inside where it is, and a
// directory data/up holding a harmless outside.txt; it returns root.
func raceTree(t testing.TB) string {
	root := t.TempDir()
	data := filepath.Join(root, "data")
	must(t, os.MkdirAll(filepath.Join(data, "sub"), 0o755))
	must(t, os.MkdirAll(filepath.Join(data, "up"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "outside.txt"), []byte(secret), 0o644))
	must(t, os.WriteFile(filepath.Join(data, "up", "outside.txt"), []byte("decoy"), 0o644))
	must(t, os.Symlink("..", filepath.Join(data, "sub", "up")))
	return root
}

// Race rounds: one instance of a plugin swaps the inward link sub/up -> ..
// with the directory up, a thousand renames a call, so that up/outside.txt
// names the secret whenever the link is at up, while three other instances
// read, create and hard-link through up/. When a path was checked with
// os.Root and then opened again by wazero, they got out in the first
// rounds.
const (
	raceRounds     = 8
	raceIterations = 200
)

func TestMountLinkRace(t *testing.T) {
	root := raceTree(t)
	data := filepath.Join(root, "data")
	outside := filepath.Join(root, "outside.txt")
	outsideInfo, err := os.Stat(outside)
	must(t, err)
	m := fsGuest(t, data, true, false)

	var mu sync.Mutex
	var escapes []string
	// outcomes counts the readers' results, to show that both sides of
	// the race were hit: "decoy", and EPERM when the link was at up.
	outcomes := map[string]int{}
	escaped := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		escapes = append(escapes, fmt.Sprintf(format, args...))
	}
	// op runs one call for a goroutine of the race, reporting whether it
	// failed.
	op := func(op byte, n int, paths ...string) (int, []byte, bool) {
		errno, b, err := tryFsop(t, m, op, n, paths...)
		if err != nil {
			t.Error(err)
		}
		return errno, b, err == nil
	}
	for round := range raceRounds {
		done := make(chan struct{})
		var renamer, victims sync.WaitGroup
		renamer.Go(func() {
			// The link and the directory take turns at up, a thousand
			// times a call. Failures are expected when a victim's create
			// or link got in between.
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, _, ok := op('C', 255, "up", "dir", "sub/up", "up", "up", "sub/up", "dir", "up"); !ok {
					return
				}
			}
		})
		victims.Go(func() {
			for range raceIterations {
				errno, b, ok := op('o', 1, "up/outside.txt")
				if !ok {
					return
				}
				if bytes.Contains(b, []byte("SECRET")) {
					escaped("round %d: read %q", round, b)
				}
				mu.Lock()
				outcomes[fmt.Sprintf("errno %d %s", errno, b)]++
				mu.Unlock()
			}
		})
		victims.Go(func() {
			escape := filepath.Join(root, "escape.txt")
			for range raceIterations {
				if _, _, ok := op('w', 64, "up/escape.txt"); !ok {
					return
				}
				if _, err := os.Stat(escape); err == nil {
					escaped("round %d: created %s", round, escape)
					_ = os.Remove(escape)
				}
			}
		})
		victims.Go(func() {
			stolen := filepath.Join(data, "stolen")
			for range raceIterations {
				if errno, _, ok := op('l', 1, "up/outside.txt", "stolen"); !ok || errno != 0 {
					continue
				}
				if fi, err := os.Lstat(stolen); err == nil && os.SameFile(fi, outsideInfo) {
					escaped("round %d: hard-linked the outside file in", round)
				}
				_ = os.Remove(stolen)
			}
		})
		victims.Wait()
		close(done)
		renamer.Wait()
	}
	if b, _ := os.ReadFile(outside); string(b) != secret {
		escaped("outside.txt now reads %q", b)
	}
	for _, e := range escapes {
		t.Error(e)
	}
	t.Logf("reads of up/outside.txt: %v", outcomes)
}

func TestMountReadlink(t *testing.T) {
	root := sandboxtest.MountTree(t)
	m := fsGuest(t, filepath.Join(root, "data"), true, false)
	if errno, b := fsop(t, m, 'k', 1, "inside-link"); errno != 0 || string(b) != "in.txt" {
		t.Errorf("readlink inside-link: errno %d, %q; want in.txt", errno, b)
	}
	// Targets that are absolute or climb are not revealed, wherever they
	// point: the guest learns neither host paths nor the layout around the
	// mount.
	for _, name := range []string{"rel-escape", "abs-escape", "sub/up"} {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			if errno, b := fsop(t, m, 'k', 1, name); errno != errnoPerm || len(b) != 0 {
				t.Errorf("readlink %s: errno %d, %q; want EPERM and nothing", name, errno, b)
			}
		})
	}
	// Moving a link does not change what may be read of it.
	if errno, _ := fsop(t, m, 'r', 1, "abs-escape", "sub/moved"); errno != 0 {
		t.Fatalf("rename abs-escape: errno %d", errno)
	}
	if errno, b := fsop(t, m, 'k', 1, "sub/moved"); errno != errnoPerm || len(b) != 0 {
		t.Errorf("readlink sub/moved: errno %d, %q", errno, b)
	}
}

func TestMountHardLinkOfLink(t *testing.T) {
	root := sandboxtest.MountTree(t)
	data := filepath.Join(root, "data")
	outside := filepath.Join(root, "outside.txt")
	m := fsGuest(t, data, true, false)
	for i, name := range []string{"rel-escape", "abs-escape", "sub/up/outside.txt", "sub/up/../outside.txt"} {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			for _, op := range []byte{'l', 'L'} {
				t.Run(string(op), func(t *testing.T) {
					copyName := fmt.Sprintf("copy%d%c", i, op)
					fsop(t, m, op, 1, name, copyName)
					if errno, b := fsop(t, m, 'o', 1, copyName); errno == 0 || bytes.Contains(b, []byte("SECRET")) {
						t.Errorf("%c %s %s, then read it: errno %d, %q", op, name, copyName, errno, b)
					}
				})
			}
		})
	}
	outsideInfo, err := os.Stat(outside)
	must(t, err)
	entries, err := os.ReadDir(data)
	must(t, err)
	for _, e := range entries {
		if fi, err := os.Lstat(filepath.Join(data, e.Name())); err == nil && os.SameFile(fi, outsideInfo) {
			t.Errorf("%s is the file outside the mount", e.Name())
		}
	}
}

func TestMountTimestamps(t *testing.T) {
	root := sandboxtest.MountTree(t)
	data := filepath.Join(root, "data")
	fake, real := fsGuest(t, data, true, false), fsGuest(t, data, true, true)
	if errno, _ := fsop(t, fake, 'w', 1, "new.txt"); errno != 0 {
		t.Fatalf("create: errno %d", errno)
	}
	if errno, _ := fsop(t, fake, 'm', 1, "newdir"); errno != 0 {
		t.Fatalf("mkdir: errno %d", errno)
	}
	// Every timestamp a guest without the clock reads, of a file it made
	// or of any other, is the fake clock's epoch.
	for _, c := range []struct {
		op   byte
		name string
	}{
		{'s', "new.txt"}, {'f', "new.txt"}, {'S', "newdir"}, {'s', "in.txt"}, {'S', "inside-link"},
		{'f', "in.txt"}, {'s', "."}, {'s', "sub"},
	} {
		t.Run(fmt.Sprintf("%c %s", c.op, c.name), func(t *testing.T) {
			errno, b := fsop(t, fake, c.op, 1, c.name)
			if errno != 0 {
				t.Fatalf("%c %s: errno %d", c.op, c.name, errno)
			}
			if st := parseFilestat(t, b); st.atim != fakeEpoch || st.mtim != fakeEpoch || st.ctim != fakeEpoch {
				t.Errorf("%c %s without the clock: times %d %d %d, want %d", c.op, c.name, st.atim, st.mtim, st.ctim, fakeEpoch)
			}
		})
	}
	// Setting times "now" uses the guest's clock, which is fake too.
	fsop(t, fake, 't', 1, "new.txt")
	if fi, err := os.Stat(filepath.Join(data, "new.txt")); err != nil || time.Since(fi.ModTime()) < 24*time.Hour {
		t.Errorf("touch without the clock: host mtime %v, %v", fi.ModTime(), err)
	}
	// With the clock, the real times show (not a timing assertion: within
	// a day of the host's clock).
	errno, b := fsop(t, real, 'w', 1, "real.txt")
	if errno == 0 {
		errno, b = fsop(t, real, 's', 1, "real.txt")
	}
	if errno != 0 {
		t.Fatalf("create and stat with the clock: errno %d", errno)
	}
	if d := time.Since(time.Unix(0, parseFilestat(t, b).mtim)); d > 24*time.Hour || d < -24*time.Hour {
		t.Errorf("with the clock, a new file's mtime is %v", time.Unix(0, parseFilestat(t, b).mtim))
	}
}

// tree is what a directory holds, for comparing before and after: each
// entry's type, size, mode, modification time and content or link target.
func tree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	must(t, filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		desc := fmt.Sprintf("%v %d %v", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			desc += " -> " + target
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			desc += " " + string(b)
		}
		out[rel] = desc
		return nil
	}))
	return out
}

func TestMountReadOnlyRefusesEveryChange(t *testing.T) {
	root := sandboxtest.MountTree(t)
	data := filepath.Join(root, "data")
	before := tree(t, root)
	m := fsGuest(t, data, false, true)
	for _, c := range []struct {
		op    byte
		paths []string
	}{
		{'w', []string{"in.txt"}}, {'w', []string{"new.txt"}}, {'c', []string{"new.txt"}},
		{'z', []string{"in.txt"}}, {'a', []string{"in.txt"}}, {'e', []string{"in.txt"}},
		{'F', []string{"in.txt"}}, {'t', []string{"in.txt"}}, {'T', []string{"in.txt"}},
		{'t', []string{"."}}, {'r', []string{"in.txt", "moved.txt"}}, {'l', []string{"in.txt", "linked.txt"}},
		{'y', []string{"in.txt", "link"}}, {'m', []string{"dir"}}, {'x', []string{"sub"}},
		{'u', []string{"in.txt"}}, {'u', []string{"inside-link"}},
	} {
		t.Run(fmt.Sprintf("%c %s", c.op, strings.Join(c.paths, " ")), func(t *testing.T) {
			if errno, _ := fsop(t, m, c.op, 1, c.paths...); errno == 0 {
				t.Errorf("%c %q on a read-only mount succeeded", c.op, c.paths)
			}
		})
	}
	// Reading still works.
	if errno, b := fsop(t, m, 'o', 1, "in.txt"); errno != 0 || string(b) != "hello" {
		t.Errorf("read: errno %d, %q", errno, b)
	}
	if after := tree(t, root); !maps.Equal(after, before) {
		t.Errorf("the read-only mount changed:\nbefore %v\nafter  %v", before, after)
	}
}

// Opening without following a final link fails on any link, as O_NOFOLLOW
// does; following one that stays inside works.
func TestMountNoFollow(t *testing.T) {
	root := sandboxtest.MountTree(t)
	m := fsGuest(t, filepath.Join(root, "data"), false, false)
	if errno, _ := fsop(t, m, 'n', 1, "inside-link"); errno != errnoLoop {
		t.Errorf("open inside-link without following: errno %d, want ELOOP (%d)", errno, errnoLoop)
	}
	if errno, b := fsop(t, m, 'o', 1, "inside-link"); errno != 0 || string(b) != "hello" {
		t.Errorf("open inside-link: errno %d, %q", errno, b)
	}
	if errno, b := fsop(t, m, 'D', 1, "sub", "up/in.txt"); errno != 0 || string(b) != "hello" {
		t.Errorf("open up/in.txt in sub: errno %d, %q", errno, b)
	}
	if errno, st := fsop(t, m, 'S', 1, "rel-escape"); errno != 0 || parseFilestat(t, st).filetype != 7 {
		t.Errorf("lstat rel-escape: errno %d, want a symbolic link", errno)
	}
	if errno, _ := fsop(t, m, 's', 1, "rel-escape"); errno != errnoPerm {
		t.Errorf("stat rel-escape: errno %d, want EPERM", errno)
	}
}

// direntNames parses the names out of WASI dirents.
func direntNames(t testing.TB, b []byte) []string {
	t.Helper()
	var names []string
	for len(b) >= 24 {
		n := int(binary.LittleEndian.Uint32(b[16:]))
		if len(b) < 24+n {
			t.Fatalf("dirent name of %d bytes in %d", n, len(b)-24)
		}
		names = append(names, string(b[24:24+n]))
		b = b[24+n:]
	}
	slices.Sort(names)
	return names
}

// What an ordinary guest does in a writable mount works.
func TestMountOrdinaryUse(t *testing.T) {
	data := filepath.Join(sandboxtest.MountTree(t), "data")
	m := fsGuest(t, data, true, false)
	steps := []struct {
		op    byte
		paths []string
		want  string
	}{
		{'w', []string{"new.txt"}, ""},
		{'a', []string{"new.txt"}, ""},
		{'o', []string{"new.txt"}, "xx"},
		{'m', []string{"dir"}, ""},
		{'r', []string{"new.txt", "dir/moved.txt"}, ""},
		{'D', []string{"dir", "moved.txt"}, "xx"},
		{'D', []string{".", "in.txt"}, "hello"},
		{'D', []string{"sub", "up/in.txt"}, "hello"},
		{'e', []string{"dir/moved.txt"}, ""},
		{'o', []string{"dir/moved.txt"}, ""},
		{'l', []string{"in.txt", "dir/hard.txt"}, ""},
		{'o', []string{"dir/hard.txt"}, "hello"},
		{'u', []string{"dir/moved.txt"}, ""},
		{'u', []string{"dir/hard.txt"}, ""},
		{'x', []string{"dir"}, ""},
	}
	for _, s := range steps {
		if errno, b := fsop(t, m, s.op, 1, s.paths...); errno != 0 || string(b) != s.want {
			t.Fatalf("%c %q: errno %d, %q; want %q", s.op, s.paths, errno, b, s.want)
		}
	}
	errno, b := fsop(t, m, 'd', 1, ".")
	if want := []string{".", "..", "abs-escape", "in.txt", "inside-link", "rel-escape", "sub"}; errno != 0 || !slices.Equal(direntNames(t, b), want) {
		t.Errorf("readdir: errno %d, %q; want %q", errno, direntNames(t, b), want)
	}
	if errno, b := fsop(t, m, 's', 1, "in.txt"); errno != 0 || parseFilestat(t, b).size != 5 {
		t.Errorf("stat in.txt: errno %d", errno)
	}
}
