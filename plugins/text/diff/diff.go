// Package diff compares texts line by line and writes the differences in
// the unified format of diff -u. It is the text plugin's unified_diff apart
// from the SDK, so that it runs natively too (the bench compares the two).
//
// Lines are diffed with Myers' O(ND) algorithm in linear space: the "middle
// snake" bisection of "An O(ND) Difference Algorithm and Its Variations"
// (Myers, 1986), as refined in diff-match-patch. Common prefixes and suffixes
// are stripped at every level of the recursion, which also makes the usual
// case (few changes in a long text) fast.
package diff

import (
	"strconv"
	"strings"
)

// A Result is a unified diff and what it counts.
type Result struct {
	// Text is the diff in unified format; empty when the texts are equal.
	Text string
	// Hunks is the number of @@ hunks.
	Hunks int
	// Added and Removed count the lines only in the new and only in the
	// old text.
	Added, Removed int
	// Minimal is false when the texts were too different for an exhaustive
	// search within the work limit: the diff is then correct but may change
	// more lines than necessary.
	Minimal bool
}

// Unified compares the texts a and b line by line and returns their diff in
// unified format, with context unchanged lines around each change and the
// labels in the --- and +++ header lines.
func Unified(a, b string, context int, labelA, labelB string) Result {
	al, bl := splitLines(a), splitLines(b)
	edits, minimal := diffLines(al, bl)
	r := Result{Minimal: minimal}
	for _, e := range edits {
		switch e.kind {
		case insert:
			r.Added++
		case remove:
			r.Removed++
		}
	}
	r.Text, r.Hunks = unified(al, bl, edits, context, labelA, labelB)
	return r
}

// editKind is the role of a line in an edit script, written as the unified
// format's line prefix.
type editKind byte

const (
	keep   editKind = ' '
	remove editKind = '-'
	insert editKind = '+'
)

// edit is one line of an edit script. a and b are the positions in the old
// and new lines where it applies: for keep both lines, for remove the old
// line (b is where the new text continues), for insert the new line (a is
// where the old text continues).
type edit struct {
	kind editKind
	a, b int
}

// differ computes an edit script between two sequences of interned lines.
type differ struct {
	a, b   []int
	edits  []edit
	budget int  // inner-loop steps left before bisection gives up
	gaveUp bool // the script is valid but may not be minimal
}

// diffBudget bounds the work of one diff. Myers' algorithm takes time
// proportional to (N+M)·D; two long, wholly different texts would take
// minutes. Past the budget a remaining region is reported as removed and
// inserted, which is correct, just not minimal (diff --minimal vs diff).
const diffBudget = 50_000_000

// diffLines returns an edit script turning a into b with as few removed
// and inserted lines as the budget allows.
func diffLines(a, b []string) (edits []edit, minimal bool) {
	ids := map[string]int{}
	intern := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	d := &differ{a: intern(a), b: intern(b), budget: diffBudget}
	d.diff(0, len(a), 0, len(b))
	return d.edits, !d.gaveUp
}

func (d *differ) diff(aLo, aHi, bLo, bHi int) {
	for aLo < aHi && bLo < bHi && d.a[aLo] == d.b[bLo] {
		d.edits = append(d.edits, edit{keep, aLo, bLo})
		aLo++
		bLo++
	}
	suffix := 0
	for aLo < aHi-suffix && bLo < bHi-suffix && d.a[aHi-1-suffix] == d.b[bHi-1-suffix] {
		suffix++
	}
	aMid, bMid := aHi-suffix, bHi-suffix
	switch {
	case aLo == aMid:
		d.inserts(aLo, bLo, bMid)
	case bLo == bMid:
		d.removes(aLo, aMid, bLo)
	default:
		if x, y, ok := d.bisect(aLo, aMid, bLo, bMid); ok {
			d.diff(aLo, x, bLo, y)
			d.diff(x, aMid, y, bMid)
		} else {
			d.removes(aLo, aMid, bLo)
			d.inserts(aMid, bLo, bMid)
		}
	}
	for i := 0; i < suffix; i++ {
		d.edits = append(d.edits, edit{keep, aMid + i, bMid + i})
	}
}

func (d *differ) removes(aLo, aHi, b int) {
	for i := aLo; i < aHi; i++ {
		d.edits = append(d.edits, edit{remove, i, b})
	}
}

func (d *differ) inserts(a, bLo, bHi int) {
	for j := bLo; j < bHi; j++ {
		d.edits = append(d.edits, edit{insert, a, j})
	}
}

// bisect finds a point (x, y) on an optimal path through the edit graph of
// a[aLo:aHi] and b[bLo:bHi], strictly inside it, by running the forward and
// reverse searches until they overlap. Both regions are non-empty and their
// first and last lines differ. ok is false when the regions have no line in
// common or the budget ran out (then gaveUp is set).
func (d *differ) bisect(aLo, aHi, bLo, bHi int) (x, y int, ok bool) {
	n, m := aHi-aLo, bHi-bLo
	maxD := (n + m + 1) / 2
	offset := maxD
	size := 2*maxD + 2
	v1 := make([]int, size)
	v2 := make([]int, size)
	for i := range v1 {
		v1[i], v2[i] = -1, -1
	}
	v1[offset+1], v2[offset+1] = 0, 0
	delta := n - m
	// With an odd delta the forward path meets the reverse one, else the reverse meets the forward.
	front := delta%2 != 0
	// k1start, k1end, ... skip diagonals whose paths ran off the grid.
	k1start, k1end, k2start, k2end := 0, 0, 0, 0
	for dist := 0; dist < maxD; dist++ {
		for k1 := -dist + k1start; k1 <= dist-k1end; k1 += 2 {
			d.budget--
			i := offset + k1
			var x1 int
			if k1 == -dist || (k1 != dist && v1[i-1] < v1[i+1]) {
				x1 = v1[i+1]
			} else {
				x1 = v1[i-1] + 1
			}
			y1 := x1 - k1
			for x1 < n && y1 < m && d.a[aLo+x1] == d.b[bLo+y1] {
				x1++
				y1++
				d.budget--
			}
			v1[i] = x1
			switch {
			case x1 > n:
				k1end += 2
			case y1 > m:
				k1start += 2
			case front:
				j := offset + delta - k1
				if j >= 0 && j < size && v2[j] != -1 && x1 >= n-v2[j] {
					return d.split(aLo, aHi, bLo, bHi, x1, y1)
				}
			}
		}
		for k2 := -dist + k2start; k2 <= dist-k2end; k2 += 2 {
			d.budget--
			i := offset + k2
			var x2 int
			if k2 == -dist || (k2 != dist && v2[i-1] < v2[i+1]) {
				x2 = v2[i+1]
			} else {
				x2 = v2[i-1] + 1
			}
			y2 := x2 - k2
			for x2 < n && y2 < m && d.a[aHi-1-x2] == d.b[bHi-1-y2] {
				x2++
				y2++
				d.budget--
			}
			v2[i] = x2
			switch {
			case x2 > n:
				k2end += 2
			case y2 > m:
				k2start += 2
			case !front:
				j := offset + delta - k2
				if j >= 0 && j < size && v1[j] != -1 {
					x1 := v1[j]
					y1 := offset + x1 - j
					if x1 >= n-x2 {
						return d.split(aLo, aHi, bLo, bHi, x1, y1)
					}
				}
			}
		}
		if d.budget <= 0 {
			d.gaveUp = true
			return 0, 0, false
		}
	}
	// The searches did not meet in maxD rounds, so every path has
	// D >= n+m-1 edits; with first and last lines differing that means no
	// line is common, and "remove all, insert all" is minimal.
	return 0, 0, false
}

// split converts a relative split point to absolute positions, refusing one
// on the region's corners, where recursing would not make progress.
func (d *differ) split(aLo, aHi, bLo, bHi, x, y int) (int, int, bool) {
	if (x == 0 && y == 0) || (aLo+x == aHi && bLo+y == bHi) {
		d.gaveUp = true
		return 0, 0, false
	}
	return aLo + x, bLo + y, true
}

// splitLines cuts s after every "\n". A last line without one is kept as
// is, so that "x" and "x\n" differ, as they do for diff.
func splitLines(s string) []string {
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// unified formats an edit script in the unified format of diff -u, with
// context lines around each change; changes closer than 2·context lines
// share a hunk. It returns "" when there is no change.
func unified(a, b []string, edits []edit, context int, labelA, labelB string) (text string, hunks int) {
	var sb strings.Builder
	for i := 0; i < len(edits); {
		for i < len(edits) && edits[i].kind == keep {
			i++
		}
		if i == len(edits) {
			break
		}
		start := max(i-context, 0)
		last := i // the last change in this hunk
		for j := i; j < len(edits); {
			if edits[j].kind != keep {
				last = j
				j++
				continue
			}
			k := j
			for k < len(edits) && edits[k].kind == keep {
				k++
			}
			if k == len(edits) || k-j > 2*context {
				break
			}
			j = k
		}
		end := min(last+1+context, len(edits))
		if hunks == 0 {
			sb.WriteString("--- " + labelA + "\n+++ " + labelB + "\n")
		}
		hunks++
		writeHunk(&sb, a, b, edits[start:end])
		i = end
	}
	return sb.String(), hunks
}

func writeHunk(sb *strings.Builder, a, b []string, h []edit) {
	var countA, countB int
	for _, e := range h {
		if e.kind != insert {
			countA++
		}
		if e.kind != remove {
			countB++
		}
	}
	sb.WriteString("@@ -" + hunkRange(h[0].a, countA) + " +" + hunkRange(h[0].b, countB) + " @@\n")
	for _, e := range h {
		var line string
		if e.kind == insert {
			line = b[e.b]
		} else {
			line = a[e.a]
		}
		sb.WriteByte(byte(e.kind))
		sb.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange writes a hunk's range as diff does: "start,count", just "start"
// for one line, and for no lines the line before the hunk with count 0.
func hunkRange(pos, count int) string {
	switch count {
	case 0:
		return strconv.Itoa(pos) + ",0"
	case 1:
		return strconv.Itoa(pos + 1)
	}
	return strconv.Itoa(pos+1) + "," + strconv.Itoa(count)
}
