package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the bench's child servers, as the
// bench executable does.
func TestMain(m *testing.M) {
	if role := os.Getenv(roleEnv); role != "" {
		if err := serveRole(role); err != nil {
			fmt.Fprintf(os.Stderr, "bench %s server: %v\n", role, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestExperiments runs every experiment with token workloads and checks
// that each produced its figures, so that the harness cannot rot between
// the runs that measure. It asserts nothing about speed.
func TestExperiments(t *testing.T) {
	// Not a performance bound: a broken harness fails instead of hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	opts, err := parseFlags([]string{"-exp", "all", "-n", "2", "-modules", "3", "-quick", "-profile", t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var report, progress bytes.Buffer
	sections, err := run(ctx, opts, &report, &progress)
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	if len(sections) != len(experiments) {
		t.Fatalf("got %d sections, want %d", len(sections), len(experiments))
	}
	for _, s := range sections {
		if len(s.Values) == 0 {
			// Only HTTP may be unmeasurable: in a tree whose `wasmcp serve`
			// has no HTTP listener. The report must say so.
			if s.name != "http" || len(s.Notes) == 0 {
				t.Errorf("%s: no figures", s.name)
			}
		}
		for k, v := range s.Values {
			if !(v > 0) || math.IsInf(v, 0) {
				t.Errorf("%s: %s = %v, want a positive number", s.name, k, v)
			}
		}
		if !strings.Contains(report.String(), "### "+s.Title) {
			t.Errorf("%s: the report has no section %q", s.name, s.Title)
		}
	}
	if t.Failed() {
		t.Logf("report:\n%s", report.String())
	}
}

// TestParseFlags checks the experiment selection.
func TestParseFlags(t *testing.T) {
	o, err := parseFlags([]string{"-exp", "scale,stdio"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.exps, ",") != "scale,stdio" {
		t.Errorf("exps = %v", o.exps)
	}
	if _, err := parseFlags([]string{"-exp", "nope"}); err == nil {
		t.Error("an unknown experiment was accepted")
	}
	for _, bad := range [][]string{{"-n", "-1"}, {"-modules", "0"}, {"extra"}} {
		if _, err := parseFlags(bad); err == nil {
			t.Errorf("%v was accepted", bad)
		}
	}
}

// TestPercentile pins the nearest-rank method the tables use.
func TestPercentile(t *testing.T) {
	d := make([]time.Duration, 100)
	for i := range d {
		d[i] = time.Duration(i + 1)
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 50}, {90, 90}, {99, 99}, {100, 100}, {1, 1}} {
		if got := percentile(d, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("p50 of nothing = %v", got)
	}
}

// TestVersionedModule checks that versions of a module differ only in
// echo's description, keeping the size.
func TestVersionedModule(t *testing.T) {
	wasm := []byte("\x00asm...{\"description\":\"" + echoDescription + "\"}...")
	vm, err := newVersionedModule(wasm)
	if err != nil {
		t.Fatal(err)
	}
	v, desc := vm.version("c001")
	if len(v) != len(wasm) || !bytes.Contains(v, []byte(desc)) || desc != "Echoes back the input mesc001." {
		t.Errorf("version = %q, description %q", v, desc)
	}
	if _, err := newVersionedModule([]byte("no description here")); err == nil {
		t.Error("a module without the description was accepted")
	}
}
