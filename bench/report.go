package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// A row is one headline of the table: a ratio measured once per repetition.
type row struct {
	exp   string // experiment name, set by run
	name  string
	reps  []rep
	floor floor
}

// A rep is one repetition's ratio and what it divided, as text: "212 µs"
// and "181 µs".
type rep struct {
	ratio    float64
	num, den string
}

// A floor is the bound a ratio must keep: ratio <= max, or ratio >= min.
// The zero floor sets none.
type floor struct {
	op    string // "≤", "≥" or ""
	value float64
}

func atMost(v float64) floor  { return floor{"≤", v} }
func atLeast(v float64) floor { return floor{"≥", v} }

func (f floor) String() string {
	if f.op == "" {
		return "—"
	}
	return fmt.Sprintf("%s %g", f.op, f.value)
}

// met reports whether r keeps the floor.
func (f floor) met(r float64) bool {
	switch f.op {
	case "≤":
		return r <= f.value
	case "≥":
		return r >= f.value
	}
	return true
}

// add records one repetition's ratio num/den, with the figures it divides.
func (r *row) add(num, den float64, numText, denText string) {
	ratio := 0.0
	if den > 0 {
		ratio = num / den
	}
	r.reps = append(r.reps, rep{ratio, numText, denText})
}

// median returns the repetition whose ratio is the median (the upper one,
// for an even count), and the smallest and largest ratio.
func (r *row) median() (m rep, lo, hi float64) {
	s := slices.Clone(r.reps)
	slices.SortFunc(s, func(a, b rep) int { return cmp.Compare(a.ratio, b.ratio) })
	return s[len(s)/2], s[0].ratio, s[len(s)-1].ratio
}

// median returns the middle value of v (the upper middle for an even count).
func median[T int64 | float64 | time.Duration](v []T) T {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// percentile returns the p-th percentile (0 < p <= 100) of d by the
// nearest-rank method.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }
func mib(b int64) string        { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// ms formats d in milliseconds, with a decimal below 100.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	if v >= 100 {
		return fmt.Sprintf("%.0f ms", v)
	}
	return fmt.Sprintf("%.1f ms", v)
}

// writeTable writes the rows as one markdown table, with the machine and the
// command above it.
func writeTable(w io.Writer, opts options, rows []row) {
	fmt.Fprintf(w, "Command: `cd bench && go run . %s`; %s, %d CPUs, %s/%s, %s; %s.\n\n",
		strings.Join(os.Args[1:], " "), cpuModel(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(),
		time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(w, "| row | ratio (median of %d) | range | floor | met | measured (median repetition) |\n", opts.reps)
	fmt.Fprintf(w, "|---|---:|---:|---:|---|---|\n")
	for _, r := range rows {
		if len(r.reps) == 0 {
			continue // its experiment failed before the first repetition
		}
		m, lo, hi := r.median()
		met := "yes"
		switch {
		case r.floor.op == "":
			met = "—"
		case !r.floor.met(m.ratio):
			met = "**no**"
		}
		fmt.Fprintf(w, "| %s | %.2f | %.2f–%.2f | %s | %s | %s ÷ %s |\n",
			r.name, m.ratio, lo, hi, r.floor, met, m.num, m.den)
	}
}

// cpuModel reads the processor's name from /proc/cpuinfo (Linux).
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}
