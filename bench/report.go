package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// A section is one experiment's part of the report.
type section struct {
	name   string // experiment name, set by run
	Title  string
	Intro  string
	Tables []table
	// Ratios are the headline figures: each a measurement divided by its
	// baseline from the same run.
	Ratios []ratio
	Notes  []string
	// Values are the section's figures by key, for the smoke test: every
	// one must be a positive number.
	Values map[string]float64
}

type table struct {
	Caption string
	Header  []string
	Rows    [][]string
}

type ratio struct {
	Name   string
	Value  float64
	Target string // e.g. "≤ 1.10"; empty when the issue sets none
	Detail string // what was divided by what
}

// value records a figure for the smoke test and returns it.
func (s *section) value(key string, v float64) float64 {
	if s.Values == nil {
		s.Values = map[string]float64{}
	}
	s.Values[key] = v
	return v
}

// addRatio records a headline ratio.
func (s *section) addRatio(key, name string, num, den float64, target, detail string) {
	r := 0.0
	if den > 0 {
		r = num / den
	}
	s.value(key, r)
	s.Ratios = append(s.Ratios, ratio{Name: name, Value: r, Target: target, Detail: detail})
}

// percentile returns the p-th percentile (0 < p <= 100) of sorted, by the
// nearest-rank method.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p/100+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// summary are the usual figures of a sample of latencies.
type summary struct {
	N                  int
	P50, P90, P99, Max time.Duration
	Mean               time.Duration
}

func summarize(d []time.Duration) summary {
	s := slices.Clone(d)
	slices.Sort(s)
	var sum time.Duration
	for _, v := range s {
		sum += v
	}
	out := summary{N: len(s)}
	if len(s) > 0 {
		out.P50, out.P90, out.P99 = percentile(s, 50), percentile(s, 90), percentile(s, 99)
		out.Max = s[len(s)-1]
		out.Mean = sum / time.Duration(len(s))
	}
	return out
}

// us formats a duration in microseconds, ms in milliseconds.
func us(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Microsecond)) }
func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }

func mib(bytes int64) string { return fmt.Sprintf("%.1f", float64(bytes)/(1<<20)) }

func writeReport(w io.Writer, e *env, opts options, sections []*section) {
	fmt.Fprintf(w, "## wasmcp benchmarks\n\n")
	fmt.Fprintf(w, "Command: `go run ./bench %s`\n\n", strings.Join(os.Args[1:], " "))
	fmt.Fprintf(w, "Machine: %s, %d CPUs (GOMAXPROCS %d), %s/%s, %s; %s.\n\n",
		cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version(),
		time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(w, "Every ratio divides two figures measured in this run, interleaved where the experiment allows, "+
		"so that machine drift cancels; absolute times are for orientation only.\n\n")
	var all []ratio
	for _, s := range sections {
		all = append(all, s.Ratios...)
	}
	if len(all) > 0 {
		fmt.Fprintf(w, "### Summary\n\n| figure | ratio | target | measured as |\n|---|---:|---|---|\n")
		for _, r := range all {
			fmt.Fprintf(w, "| %s | %.2f | %s | %s |\n", r.Name, r.Value, r.Target, r.Detail)
		}
		fmt.Fprintln(w)
	}
	for _, s := range sections {
		fmt.Fprintf(w, "### %s\n\n", s.Title)
		if s.Intro != "" {
			fmt.Fprintf(w, "%s\n\n", s.Intro)
		}
		for _, t := range s.Tables {
			writeTable(w, t)
		}
		for _, n := range s.Notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
		if len(s.Notes) > 0 {
			fmt.Fprintln(w)
		}
	}
}

func writeTable(w io.Writer, t table) {
	if t.Caption != "" {
		fmt.Fprintf(w, "%s\n\n", t.Caption)
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(t.Header, " | "))
	seps := make([]string, len(t.Header))
	for i := range seps {
		seps[i] = "---:"
		if i == 0 {
			seps[i] = "---"
		}
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(seps, "|"))
	for _, r := range t.Rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
	}
	fmt.Fprintln(w)
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
