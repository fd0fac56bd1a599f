package e2e

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// mountFixture is what an operator's policy could grant adversary_fs.wat:
// a writable mount holding links, the inward ones a guest may move
// outward among them, a read-only mount beside it, and a sentinel in the
// mounts' parent and one in its parent, which no guest may read, create,
// change or move.
//
//	base/secret.txt           sentinel
//	base/o/secret.txt         sentinel
//	base/o/m/                 mount /m, writable
//	  sub/up -> ..            inward; at the top of m it points at base/o
//	  deep/a/b/up3 -> ../../..  inward; moved to m/b it points at base
//	  in -> sub, abs -> base/o/secret.txt, rel -> ../secret.txt
//	  file.txt
//	base/o/ro/                mount /ro, read-only: f.txt, d/, lnk -> f.txt
type mountFixture struct {
	base, outer, mount, ro, policy string
	sentinels                      []string // their paths
}

// fakeEpoch is what a guest without the clock grant must read of every
// timestamp (SECURITY.md, "Timestamps").
const fakeEpoch = "1640995200"

func newMountFixture(t *testing.T) *mountFixture {
	t.Helper()
	base := t.TempDir()
	f := &mountFixture{base: base, outer: filepath.Join(base, "o")}
	f.mount, f.ro = filepath.Join(f.outer, "m"), filepath.Join(f.outer, "ro")
	nonce := fmt.Sprint(time.Now().UnixNano())
	for _, d := range []string{"m/sub", "m/deep/a/b", "ro/d"} {
		if err := os.MkdirAll(filepath.Join(f.outer, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, content string) {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(base, "secret.txt"), filepath.Join(f.outer, "secret.txt")} {
		write(p, "SENTINEL-"+nonce)
		f.sentinels = append(f.sentinels, p)
	}
	write(filepath.Join(f.mount, "file.txt"), "inside")
	write(filepath.Join(f.ro, "f.txt"), "read-only")
	for link, target := range map[string]string{
		"m/sub/up": "..", "m/deep/a/b/up3": "../../..", "m/in": "sub",
		"m/abs": filepath.Join(f.outer, "secret.txt"), "m/rel": "../secret.txt", "ro/lnk": "f.txt",
	} {
		if err := os.Symlink(target, filepath.Join(f.outer, link)); err != nil {
			t.Fatal(err)
		}
	}
	// Old times, so that any change made through an escape shows.
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for _, p := range append([]string{filepath.Join(f.ro, "f.txt")}, f.sentinels...) {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	f.policy = filepath.Join(t.TempDir(), "policy.json")
	write(f.policy, fmt.Sprintf(`{"plugins":{"adversary_fs":{"fs":[{"host":%q,"guest":"/m","write":true},{"host":%q,"guest":"/ro"}]}}}`, f.mount, f.ro))
	return f
}

// snapshot describes every entry under base but the writable mount: type,
// size, modification time, and content digest or link target.
func (f *mountFixture) snapshot(t *testing.T) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(f.base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == f.mount {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			desc += " -> " + target
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			desc += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		snap[p] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// check fails the test if anything outside the writable mount changed, or
// if a file in the mount is a sentinel (a hard link or a rename brought it
// in).
func (f *mountFixture) check(t *testing.T, before map[string]string) {
	t.Helper()
	after := f.snapshot(t)
	for p, d := range before {
		if after[p] != d {
			t.Errorf("ESCAPE: %s changed: %q, was %q", p, after[p], d)
		}
	}
	for p, d := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("ESCAPE: %s appeared outside the mount: %s", p, d)
		}
	}
	var sentinels []os.FileInfo
	for _, p := range f.sentinels {
		if fi, err := os.Stat(p); err == nil {
			sentinels = append(sentinels, fi)
		}
	}
	filepath.WalkDir(f.mount, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		for _, s := range sentinels {
			if os.SameFile(fi, s) {
				t.Errorf("ESCAPE: %s in the mount is the sentinel %s", p, s.Name())
			}
		}
		return nil
	})
}

// runFS calls the fs tool with script, and returns its text.
func runFS(t *testing.T, s *server, script string) (string, error) {
	res, err := s.callErr(t, "fs", fmt.Sprintf(`{"c":%q}`, script))
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", fmt.Errorf("tool error: %s", text(res))
	}
	return text(res), nil
}

// startFS serves adversary_fs.wat under the fixture's policy.
func startFS(t *testing.T, f *mountFixture, args ...string) *server {
	t.Helper()
	return startServer(t, servedCopy(t, wat("adversary_fs")), serverOptions{protocol: legacyProtocol,
		args: append([]string{"--config", f.policy, "--timeout", "60s"}, args...)})
}

// Several instances of one plugin race: some move the inward links of the
// mount so that they point outside it (and back), others meanwhile open,
// create, link, rename, truncate and stat through them (issue: the guest
// escaped within seconds). Every operation through a link that points out
// must fail: no read or stat succeeds, no sentinel is read, and nothing
// outside the mount changes.
func TestAdversaryMountLinkRace(t *testing.T) {
	f := newMountFixture(t)
	before := f.snapshot(t)
	s := startFS(t, f, "--concurrency", "8")
	const n, rounds = 3000, 10
	movers := []string{
		"m sub/up up;m up sub/up",           // up at the top of m: base/o
		"m deep/a/b b;m b deep/a/b",         // b/up3: base
		"l sub/up hl;m hl up4;u up4",        // a hard link of a link, moved out
		"m sub x;m x sub;m in in2;m in2 in", // the directories the links sit in
	}
	// Each of these succeeds only through a link that points outside.
	probes := []string{
		"r up/secret.txt;r b/up3/secret.txt;r b/up3/o/secret.txt;r up4/secret.txt;r hl/secret.txt;" +
			"S up/secret.txt;S b/up3/o/secret.txt;e up;e b/up3;e up4;r abs;r rel",
		"W up/pwned.txt;W b/up3/pwned.txt;W b/up3/o/pwned.txt;W up4/pwned.txt;w up/secret.txt X;" +
			"A b/up3/o/secret.txt X;T up/secret.txt;t up/secret.txt;c b/up3/o/secret.txt;" +
			"l up/secret.txt got;l b/up3/o/secret.txt got2;L up4/secret.txt got3;m up/secret.txt stolen;" +
			"m b/up3/secret.txt stolen2;d up/newdir;u up4/secret.txt;d b/up3/newdir",
	}
	var scripts []string
	for _, m := range movers {
		scripts = append(scripts, fmt.Sprintf("n %d;%s", n, m))
	}
	for range 2 {
		for _, p := range probes {
			scripts = append(scripts, fmt.Sprintf("n %d;%s", n, p))
		}
	}
	start := time.Now()
	moved := make([]string, len(movers))
	for round := range rounds {
		outs := make([]string, len(scripts))
		errs := make([]error, len(scripts))
		var wg sync.WaitGroup
		for i, sc := range scripts {
			wg.Go(func() { outs[i], errs[i] = runFS(t, s, sc) })
		}
		wg.Wait()
		for i, out := range outs {
			switch {
			case errs[i] != nil:
				t.Fatalf("round %d, script %d: %v", round, i, errs[i])
			case strings.Contains(out, "SENTINEL"):
				t.Errorf("ESCAPE: round %d, script %d read a sentinel: %s", round, i, out)
			case i < len(movers):
				moved[i] += strings.TrimPrefix(strings.TrimSpace(out), "n:") + " "
			case strings.TrimSpace(out) != "n:0":
				t.Errorf("ESCAPE: round %d, probe %d succeeded through a link: %s", round, i, out)
			}
		}
	}
	t.Logf("%d rounds of %d concurrent calls, %d iterations each, in %v; operations of each mover that succeeded, by round: %q",
		rounds, len(scripts), n, time.Since(start).Round(time.Millisecond), moved)
	f.check(t, before)
}

// One operation at a time, each way out a guest could try: "..", absolute
// paths, the links, readlink of links that climb or are absolute, hard
// links of links, a descriptor opened below the top, symlink creation; and
// the timestamps a guest without the clock grant reads or writes.
func TestAdversaryMountLeaks(t *testing.T) {
	f := newMountFixture(t)
	before := f.snapshot(t)
	s := startFS(t, f)
	steps := []struct{ cmd, want string }{
		// readlink: only relative targets that do not climb
		{"k abs", "E"}, {"k rel", "E"}, {"k sub/up", "E"}, {"k deep/a/b/up3", "E"}, {"k in", "sub"},
		// the links themselves
		{"r abs", "E"}, {"r rel", "E"}, {"R abs", "E"}, {"S abs", "E"}, {"S rel", "E"}, {"Z abs", "7,"},
		// ".." and absolute paths
		{"r ../secret.txt", "E"}, {"r /secret.txt", "E"}, {"r sub/../../secret.txt", "E"},
		{"r ./../o/secret.txt", "E"}, {"r ../o/m/file.txt", "E"}, {"e ..", "E"}, {"S ..", "E"},
		{"r sub/up/file.txt", "inside"}, {"r in/up/file.txt", "inside"},
		// a directory descriptor below the top
		{"O sub", "ok"}, {"r ../secret.txt", "E"}, {"r up/../../secret.txt", "E"}, {"r up/file.txt", "inside"}, {"F /m", ""},
		// hard links of links stay links, with the same target
		{"l abs habs", ""}, {"L rel hrel", ""}, {"r habs", "E"}, {"r hrel", "E"}, {"k habs", "E"}, {"k hrel", "E"},
		// an inward link moved up, where it climbs out
		{"m deep/a/b/up3 up3m", "ok"}, {"k up3m", "E"}, {"r up3m/secret.txt", "E"}, {"S up3m", "E"}, {"m up3m deep/a/b/up3", "ok"},
		// no symbolic links
		{"s /etc/passwd l1", "E"}, {"s ../secret.txt l2", "E"}, {"s file.txt l3", "E"},
		// the renamed mount root, and removing it
		{"m . gone", "E"}, {"D .", "E"}, {"u .", "E"},
		// timestamps without the clock grant
		{"g", fakeEpoch},
		{"W new.txt", "ok"}, {"S new.txt", "4,5," + fakeEpoch + "," + fakeEpoch}, {"Z new.txt", "4,5," + fakeEpoch + "," + fakeEpoch},
		{"S file.txt", "4,6," + fakeEpoch + "," + fakeEpoch}, {"S .", "3,"}, {"S sub/up", "3,"},
		{"t new.txt", "ok"}, {"S new.txt", "4,5," + fakeEpoch + "," + fakeEpoch}, {"f new.txt", fakeEpoch + "/"},
		{"f file.txt", fakeEpoch + "/"},
	}
	var script []string
	for _, st := range steps {
		script = append(script, st.cmd)
	}
	out, err := runFS(t, s, strings.Join(script, ";"))
	if err != nil {
		t.Fatal(err)
	}
	results := strings.Fields(out)
	if len(results) != len(steps) {
		t.Fatalf("%d results for %d steps: %s", len(results), len(steps), out)
	}
	for i, st := range steps {
		op, got, _ := strings.Cut(results[i], ":")
		if op != strings.Fields(st.cmd)[0] {
			t.Fatalf("step %d %q: result %q", i, st.cmd, results[i])
		}
		switch {
		case strings.Contains(got, "SENTINEL"):
			t.Errorf("ESCAPE: %s read a sentinel: %s", st.cmd, got)
		case st.want == "E" && !strings.HasPrefix(got, "E"):
			t.Errorf("%s: %q, want an error", st.cmd, got)
		case st.want != "E" && st.want != "" && !strings.HasPrefix(got, st.want):
			t.Errorf("%s: %q, want %q...", st.cmd, got, st.want)
		}
		if strings.Contains(got, f.base) {
			t.Errorf("LEAK: %s reveals a host path: %q", st.cmd, got)
		}
	}
	t.Logf("results: %s", out)
	for _, name := range []string{"habs", "hrel"} {
		if fi, err := os.Lstat(filepath.Join(f.mount, name)); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("ESCAPE: the hard link %s of a link is a %v, not a link", name, fi.Mode())
		}
	}
	// "now" set by a guest without the clock is the fake clock's time.
	if fi, err := os.Stat(filepath.Join(f.mount, "new.txt")); err != nil || fi.ModTime().Unix() != 1640995200 {
		t.Errorf("new.txt after t (now, without the clock): %v %v, want the fake clock's time", fi.ModTime(), err)
	}
	f.check(t, before)
}

// Every change to a read-only mount fails with EROFS (69), also those
// made through a descriptor opened for reading, and what it holds is
// unchanged.
func TestAdversaryReadOnlyMount(t *testing.T) {
	f := newMountFixture(t)
	before := f.snapshot(t)
	s := startFS(t, f)
	changes := []string{"w f.txt X", "W g.txt", "T f.txt", "A f.txt X", "m f.txt h.txt", "l f.txt h.txt",
		"s f.txt h.txt", "d dd", "D d", "u f.txt", "u lnk", "t f.txt", "c f.txt", "t lnk", "c d",
		"w d/x.txt X", "W d/x.txt", "T lnk", "m d e", "m lnk lnk2", "l lnk lnk3"}
	out, err := runFS(t, s, "F /ro;"+strings.Join(changes, ";")+";f f.txt;r f.txt;r lnk;k lnk")
	if err != nil {
		t.Fatal(err)
	}
	results := strings.Fields(out)
	if len(results) != len(changes)+5 {
		t.Fatalf("%d results: %s", len(results), out)
	}
	for i, c := range changes {
		if _, got, _ := strings.Cut(results[i+1], ":"); got != "E69" {
			t.Errorf("read-only %s: %s, want E69 (EROFS)", c, got)
		}
	}
	// f: fstat / truncate / set times / set append / write, through a
	// descriptor opened for reading.
	fd := strings.Split(strings.TrimPrefix(results[len(changes)+1], "f:"), "/")
	if len(fd) != 5 || fd[1] == "0" || fd[2] == "0" || fd[4] == "0" {
		t.Errorf("changes through a read-only descriptor: %s, want every one refused", results[len(changes)+1])
	}
	if got := strings.Join(results[len(changes)+2:], " "); got != "r:read-only r:read-only k:f.txt" {
		t.Errorf("reads of the read-only mount: %s", got)
	}
	f.check(t, before)
}

// The rest of the closed sandbox, probed by the same guest under a policy
// that grants its mounts only: no environment (though the server has
// variables), no sockets (not even accept on the preopened directory), the
// fake clock, and a sleep of one hour that does not hold the call.
func TestAdversarySandboxProbe(t *testing.T) {
	t.Setenv("WASMCP_ADVERSARY_SECRET", "SENTINEL-ENV")
	f := newMountFixture(t)
	s := startFS(t, f)
	start := time.Now()
	out, err := runFS(t, s, "v;x;P;g;y")
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	r := strings.Fields(out)
	if len(r) != 5 || r[0] != "v:0" || !strings.HasPrefix(r[1], "x:E") || r[2] != "P:ok" || r[3] != "g:"+fakeEpoch {
		t.Errorf("sandbox probe: %s, want v:0 x:E.. P:ok g:%s", out, fakeEpoch)
	}
	if took > 10*time.Second {
		t.Errorf("a guest's one-hour sleep without the clock held the call %v", took)
	}
	t.Logf("probe: %s in %v", out, took.Round(time.Millisecond))
}
