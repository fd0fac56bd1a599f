package mountfs_test

import (
	"bytes"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host/internal/sandbox"
)

// fuzzOps are the calls of testdata/fsops.wat the fuzz target makes.
const fuzzOps = "onwczaefFsStTklLrymxudDC"

// fuzzPaths are the paths a fuzzed call names: the tree of fuzzTree, names
// it does not hold yet, and ways out. A path byte of 128 or more joins two.
var fuzzPaths = []string{
	"", ".", "..", "/", "in.txt", "new", "up", "dir", "outside.txt", "sub", "sub/up", "sub/up/outside.txt",
	"sub/up/in.txt", "sub/deep", "sub/deep/down", "rel-escape", "abs-escape", "inside-link", "dirlink",
	"dirlink/up", "dirlink/up/..", "../outside.txt", "up/outside.txt", "sub/new", "/etc/passwd", "outdir",
	"../outdir/x", "sub/up/outdir/x",
}

func fuzzPath(b byte) string {
	p := fuzzPaths[int(b)%len(fuzzPaths)]
	if b >= 128 {
		p += "/" + fuzzPaths[int(b/7)%len(fuzzPaths)]
	}
	return p
}

// fuzzTree fills data, emptied first, with files, directories and links
// inward and outward of it.
func fuzzTree(t testing.TB, root, data string) {
	entries, err := os.ReadDir(data)
	must(t, err)
	for _, e := range entries {
		must(t, os.RemoveAll(filepath.Join(data, e.Name())))
	}
	must(t, os.MkdirAll(filepath.Join(data, "sub", "deep"), 0o755))
	must(t, os.WriteFile(filepath.Join(data, "in.txt"), []byte("hello"), 0o644))
	must(t, os.Symlink("..", filepath.Join(data, "sub", "up")))
	must(t, os.Symlink("../outside.txt", filepath.Join(data, "rel-escape")))
	must(t, os.Symlink(filepath.Join(root, "outside.txt"), filepath.Join(data, "abs-escape")))
	must(t, os.Symlink("in.txt", filepath.Join(data, "inside-link")))
	must(t, os.Symlink("sub", filepath.Join(data, "dirlink")))
}

// fuzzSeed encodes calls given as "op path path ro" strings (ro: the
// read-only mount) the way FuzzMountOps reads them.
func fuzzSeed(calls ...string) []byte {
	var b []byte
	for _, c := range calls {
		f := strings.Split(c, " ")
		op, p1, p2 := strings.IndexByte(fuzzOps, f[0][0]), slices.Index(fuzzPaths, f[1]), slices.Index(fuzzPaths, f[2])
		if op < 0 || p1 < 0 || p2 < 0 {
			panic("fuzzSeed: " + c)
		}
		b = append(b, byte(op), byte(p1), byte(p2), byte(len(f)-3))
	}
	return b
}

// FuzzMountOps makes sequences of file-system calls in a writable mount and
// a read-only one, and checks that none reaches outside them: a file outside
// is never read, changed, linked into a mount or replaced, nothing is
// created beside the mounts, a link target read is never absolute nor
// climbs, every timestamp read is the fake clock's, and the read-only
// mount does not change. Each input is four bytes a call: which call, two
// paths, and whether the mount is the read-only one (odd).
func FuzzMountOps(f *testing.F) {
	root := f.TempDir()
	data, ro, outdir := filepath.Join(root, "data"), filepath.Join(root, "ro"), filepath.Join(root, "outdir")
	for _, d := range []string{data, ro, outdir} {
		must(f, os.Mkdir(d, 0o755))
	}
	outside := filepath.Join(root, "outside.txt")
	must(f, os.WriteFile(outside, []byte(secret), 0o644))
	outsideBefore, err := os.Lstat(outside)
	must(f, err)
	fuzzTree(f, root, ro)
	roBefore := tree(f, ro)
	mods := [2]*sandbox.Module{fsGuest(f, data, true, false), fsGuest(f, ro, false, false)}

	for _, seed := range [][]byte{
		fuzzSeed("r sub/up up", "o up/outside.txt .", "w up/outside.txt .", "l up/outside.txt new"),
		fuzzSeed("l abs-escape new", "o new .", "L rel-escape new", "k new ."),
		fuzzSeed("k abs-escape .", "k rel-escape .", "k sub/up .", "k inside-link ."),
		fuzzSeed("r sub/up dir", "m up .", "r dir up", "D up outside.txt", "d up .", "D . up/outside.txt"),
		fuzzSeed("s in.txt .", "f in.txt .", "S sub/up .", "t in.txt .", "s in.txt ."),
		fuzzSeed("w new . ro", "c new . ro", "z in.txt . ro", "u in.txt . ro", "r in.txt new ro", "T in.txt . ro"),
		fuzzSeed("y ../outside.txt new", "x sub/deep .", "u abs-escape .", "C dirlink up", "o up/outside.txt ."),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		fuzzTree(t, root, data)
		for i := 0; i+4 <= len(in) && i < 4*32; i += 4 {
			op := fuzzOps[int(in[i])%len(fuzzOps)]
			p1, p2 := fuzzPath(in[i+1]), fuzzPath(in[i+2])
			errno, b := fsop(t, mods[in[i+3]&1], op, 1, p1, p2)
			if bytes.Contains(b, []byte("SECRET")) {
				t.Fatalf("%c %q %q read the file outside: %q", op, p1, p2, b)
			}
			if errno != 0 {
				continue
			}
			switch op {
			case 'k':
				if target := string(b); path.IsAbs(target) || strings.Contains(target, root) ||
					path.Clean(target) == ".." || strings.HasPrefix(path.Clean(target), "../") {
					t.Fatalf("readlink %q revealed %q", p1, target)
				}
			case 's', 'S', 'f':
				if st := parseFilestat(t, b); st.atim != fakeEpoch || st.mtim != fakeEpoch || st.ctim != fakeEpoch {
					t.Fatalf("%c %q showed times %d %d %d without the clock", op, p1, st.atim, st.mtim, st.ctim)
				}
			}
		}
		checkOutside(t, root, outsideBefore)
		if after := tree(t, ro); !maps.Equal(after, roBefore) {
			t.Fatalf("the read-only mount changed:\nbefore %v\nafter  %v", roBefore, after)
		}
		must(t, filepath.Walk(data, func(p string, fi os.FileInfo, err error) error {
			if err == nil && os.SameFile(fi, outsideBefore) {
				t.Fatalf("%s is the file outside the mount", p)
			}
			return err
		}))
	})
}

// checkOutside fails t if anything beside the mounts under root changed.
func checkOutside(t *testing.T, root string, outsideBefore os.FileInfo) {
	t.Helper()
	outside := filepath.Join(root, "outside.txt")
	fi, err := os.Lstat(outside)
	if err != nil || !os.SameFile(fi, outsideBefore) || fi.Mode() != outsideBefore.Mode() ||
		!fi.ModTime().Equal(outsideBefore.ModTime()) {
		t.Fatalf("outside.txt was replaced or touched: %v, %v", fi, err)
	}
	if b, err := os.ReadFile(outside); err != nil || string(b) != secret {
		t.Fatalf("outside.txt now reads %q, %v", b, err)
	}
	names, err := os.ReadDir(root)
	must(t, err)
	var got []string
	for _, e := range names {
		got = append(got, e.Name())
	}
	if want := []string{"data", "outdir", "outside.txt", "ro"}; !slices.Equal(got, want) {
		t.Fatalf("beside the mounts: %q, want %q", got, want)
	}
	if names, err := os.ReadDir(filepath.Join(root, "outdir")); err != nil || len(names) != 0 {
		t.Fatalf("outdir holds %v, %v", names, err)
	}
}
