package diff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Golden cases, checked by hand and identical to GNU diff -u --label a --label b.
var goldenDiffs = []struct {
	name, a, b string
	context    int
	want       string
}{
	{"identical", "x\ny\n", "x\ny\n", 3, ""},
	{"both empty", "", "", 3, ""},
	{"change one line", "a\nb\nc\n", "a\nB\nc\n", 3,
		"--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
	{"add to empty", "", "x\ny\n", 3,
		"--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
	{"remove all", "x\n", "", 3,
		"--- a\n+++ b\n@@ -1 +0,0 @@\n-x\n"},
	{"missing newline", "a\nb", "a\nb\n", 3,
		"--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
	{"context 0 insert", "1\n2\n3\n", "1\n2\nnew\n3\n", 0,
		"--- a\n+++ b\n@@ -2,0 +3 @@\n+new\n"},
	{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "x\n2\n3\n4\n5\n6\n7\n8\n9\ny\n", 1,
		"--- a\n+++ b\n@@ -1,2 +1,2 @@\n-1\n+x\n 2\n@@ -9,2 +9,2 @@\n 9\n-10\n+y\n"},
	{"gap of 2x context merges", "1\n2\n3\n4\n5\n6\n", "x\n2\n3\n4\n5\ny\n", 2,
		"--- a\n+++ b\n@@ -1,6 +1,6 @@\n-1\n+x\n 2\n 3\n 4\n 5\n-6\n+y\n"},
	{"gap over 2x context splits", "1\n2\n3\n4\n5\n6\n", "x\n2\n3\n4\n5\ny\n", 1,
		"--- a\n+++ b\n@@ -1,2 +1,2 @@\n-1\n+x\n 2\n@@ -5,2 +5,2 @@\n 5\n-6\n+y\n"},
	{"crlf kept", "a\r\nb\r\n", "a\r\nc\r\n", 3,
		"--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n"},
}

func TestUnifiedGolden(t *testing.T) {
	for _, g := range goldenDiffs {
		t.Run(g.name, func(t *testing.T) {
			r := Unified(g.a, g.b, g.context, "a", "b")
			if r.Text != g.want {
				t.Errorf("diff:\n%s\nwant:\n%s", r.Text, g.want)
			}
			if (r.Hunks == 0) != (g.want == "") || !r.Minimal {
				t.Errorf("hunks %d, minimal %v", r.Hunks, r.Minimal)
			}
			if gnu, ok := gnuDiff(t, g.a, g.b, g.context); ok && gnu != g.want {
				t.Errorf("GNU diff disagrees with the golden case:\n%s", gnu)
			}
		})
	}
}

// TestDiffRandom checks, on random texts, that diffs are minimal (against
// a dynamic-programming LCS) and, when GNU diff and patch are installed,
// that patch turns a into b with our diff and that GNU diff changes as
// many lines.
func TestDiffRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		a := randomText(rng)
		b := mutate(rng, a)
		context := rng.IntN(4)
		al, bl := splitLines(a), splitLines(b)
		edits, minimal := diffLines(al, bl)
		changed := 0
		for _, e := range edits {
			if e.kind != keep {
				changed++
			}
		}
		if want := len(al) + len(bl) - 2*lcsLength(al, bl); changed != want || !minimal {
			t.Fatalf("case %d: %d lines changed, minimum %d\na=%q\nb=%q", iter, changed, want, a, b)
		}
		if got := apply(t, al, bl, edits); got != b {
			t.Fatalf("case %d: edit script gives %q, want %q", iter, got, b)
		}
		diff, _ := unified(al, bl, edits, context, "a", "b")
		if iter%10 == 0 { // the external tools are slow; a sample suffices
			patchCheck(t, a, b, diff)
			if gnu, ok := gnuDiff(t, a, b, context); ok && countChanges(gnu) != changed {
				t.Fatalf("case %d: GNU diff changes %d lines, we change %d\n%s\nours:\n%s", iter, countChanges(gnu), changed, gnu, diff)
			}
		}
	}
}

func TestDiffBudgetFallsBackCorrectly(t *testing.T) {
	// Two long texts with nothing in common and a tiny budget: the result
	// is the valid but non-minimal "remove all, insert all".
	var a, b []string
	for i := range 200 {
		a = append(a, fmt.Sprintf("a%d\n", i%7))
		b = append(b, fmt.Sprintf("a%d\n", i%5))
	}
	d := &differ{budget: 10}
	ids := map[string]int{}
	for _, l := range append(append([]string{}, a...), b...) {
		if _, ok := ids[l]; !ok {
			ids[l] = len(ids)
		}
	}
	for _, l := range a {
		d.a = append(d.a, ids[l])
	}
	for _, l := range b {
		d.b = append(d.b, ids[l])
	}
	d.diff(0, len(a), 0, len(b))
	if !d.gaveUp {
		t.Fatal("budget of 10 steps was enough")
	}
	if got := apply(t, a, b, d.edits); got != strings.Join(b, "") {
		t.Errorf("fallback script does not produce b")
	}
}

func randomText(rng *rand.Rand) string {
	var sb strings.Builder
	for range rng.IntN(30) {
		sb.WriteString(string(rune('a' + rng.IntN(5))))
		sb.WriteByte('\n')
	}
	s := sb.String()
	if s != "" && rng.IntN(5) == 0 {
		s = s[:len(s)-1] // no final newline
	}
	return s
}

func mutate(rng *rand.Rand, s string) string {
	lines := splitLines(s)
	for range rng.IntN(8) {
		switch i := rng.IntN(len(lines) + 1); rng.IntN(3) {
		case 0:
			lines = append(lines[:i], append([]string{string(rune('a'+rng.IntN(7))) + "\n"}, lines[i:]...)...)
		case 1:
			if i < len(lines) {
				lines = append(lines[:i], lines[i+1:]...)
			}
		case 2:
			if i < len(lines) {
				lines[i] = string(rune('a'+rng.IntN(7))) + "\n"
			}
		}
	}
	out := strings.Join(lines, "")
	if out != "" && rng.IntN(5) == 0 {
		out = strings.TrimSuffix(out, "\n")
	}
	return out
}

func lcsLength(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// apply runs an edit script on a, checking that kept and removed lines are
// a's lines in order.
func apply(t *testing.T, a, b []string, edits []edit) string {
	t.Helper()
	var out strings.Builder
	next := 0
	for _, e := range edits {
		switch e.kind {
		case keep, remove:
			if e.a != next {
				t.Fatalf("edit %+v skips old line %d", e, next)
			}
			next++
			if e.kind == keep {
				out.WriteString(a[e.a])
			}
		case insert:
			if e.a != next {
				t.Fatalf("insert %+v not at old line %d", e, next)
			}
		}
		if e.kind == insert {
			out.WriteString(b[e.b])
		}
	}
	if next != len(a) {
		t.Fatalf("script covers %d of %d old lines", next, len(a))
	}
	return out.String()
}

func countChanges(diff string) int {
	n := 0
	for _, line := range strings.Split(diff, "\n") {
		if (strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++ ")) || (strings.HasPrefix(line, "-") && !strings.HasPrefix(line, "--- ")) {
			n++
		}
	}
	return n
}

func gnuDiff(t *testing.T, a, b string, context int) (string, bool) {
	t.Helper()
	bin, err := exec.LookPath("diff")
	if err != nil {
		return "", false
	}
	dir := t.TempDir()
	fa, fb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if os.WriteFile(fa, []byte(a), 0o600) != nil || os.WriteFile(fb, []byte(b), 0o600) != nil {
		t.Fatal("write temp files")
	}
	out, err := exec.Command(bin, fmt.Sprintf("-U%d", context), "--label", "a", "--label", "b", fa, fb).Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("diff: %v", err)
	}
	return string(out), true
}

func patchCheck(t *testing.T, a, b, diff string) {
	t.Helper()
	bin, err := exec.LookPath("patch")
	if err != nil || diff == "" {
		return
	}
	dir := t.TempDir()
	fa, fp, fo := filepath.Join(dir, "a"), filepath.Join(dir, "p"), filepath.Join(dir, "out")
	if os.WriteFile(fa, []byte(a), 0o600) != nil || os.WriteFile(fp, []byte(diff), 0o600) != nil {
		t.Fatal("write temp files")
	}
	cmd := exec.Command(bin, "--quiet", "--force", "-o", fo, "-i", fp, fa)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch refused our diff: %v\n%s\ndiff:\n%s", err, out, diff)
	}
	got, _ := os.ReadFile(fo)
	if !bytes.Equal(got, []byte(b)) {
		t.Fatalf("patch made %q, want %q\ndiff:\n%s", got, b, diff)
	}
}
