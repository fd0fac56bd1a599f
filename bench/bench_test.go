package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
)

// TestMain lets the test binary serve as the bench's native servers, as the
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

// TestQuick runs every experiment with token workloads and checks that each
// produced its rows, so that the harness cannot rot between the runs that
// measure. It asserts nothing about speed. It needs the modules `make
// plugins` builds.
func TestQuick(t *testing.T) {
	// Not a performance bound: a broken harness fails with its progress log
	// before go test's -timeout ends the process without it.
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	opts, err := parseFlags([]string{"-quick", "-reps", "2"})
	if err != nil {
		t.Fatal(err)
	}
	// The experiments run the modules make builds: a plain go test on a
	// fresh clone skips, make test (which builds them, under CI) fails.
	if _, err := os.Stat(extismPluginPath(t, "extism-as")); err != nil && os.Getenv("CI") != "true" {
		t.Skipf("%v: run make bench-smoke, which builds the modules first", err)
	}
	if why := extismUnsupported(); why != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("experiment extism: %s", why)
		}
		t.Logf("experiment extism left out: %s", why)
		opts.exps = slices.DeleteFunc(opts.exps, func(n string) bool { return n == "extism" })
	}
	var table, progress bytes.Buffer
	rows, err := run(ctx, opts, &table, &progress)
	if err != nil {
		t.Fatalf("%v\nprogress:\n%s", err, progress.String())
	}
	got := map[string]bool{}
	for _, r := range rows {
		got[r.exp] = true
		if len(r.reps) != opts.reps {
			t.Errorf("%s: %d repetitions, want %d", r.name, len(r.reps), opts.reps)
		}
		for _, rp := range r.reps {
			if !(rp.ratio > 0) || math.IsInf(rp.ratio, 0) {
				t.Errorf("%s: ratio %v, want a positive number", r.name, rp.ratio)
			}
		}
		if !strings.Contains(table.String(), "| "+r.name+" |") {
			t.Errorf("the table has no row %q", r.name)
		}
	}
	for _, e := range experiments {
		if !got[e.name] && slices.Contains(opts.exps, e.name) {
			t.Errorf("experiment %s gave no rows", e.name)
		}
	}
	if t.Failed() {
		t.Logf("table:\n%s\nprogress:\n%s", table.String(), progress.String())
	}
}

// TestGenerateGuest loads generated modules through the public host API and
// calls their tools, one with arguments larger than the memory the module
// starts with.
func TestGenerateGuest(t *testing.T) {
	dir := t.TempDir()
	tools := []abi.Tool{scaleTool(0, 0), {Name: "any", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	wasm, err := generateGuest(tools, scaleAnswer)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gen.wasm"), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := host.New(ctx, host.NewConfig().WithDir(dir).WithCacheDir("").WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	if got := h.Tools(); len(got) != len(tools) {
		t.Fatalf("%d tools loaded, want %d", len(got), len(tools))
	}
	big := mustJSON(map[string]string{"text": strings.Repeat("x", 300<<10)})
	for _, c := range []struct {
		tool string
		args []byte
	}{{tools[0].Name, []byte(`{"message":"hi"}`)}, {"any", big}} {
		res, err := h.Call(ctx, host.CallRequest{Tool: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if res.IsError || len(res.Content) != 1 || res.Content[0].Text != scaleAnswer {
			t.Errorf("%s: result %+v", c.tool, res)
		}
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
	for _, bad := range [][]string{{"-exp", "nope"}, {"-reps", "0"}, {"-modules", "0"}, {"extra"}} {
		if _, err := parseFlags(bad); err == nil {
			t.Errorf("%v was accepted", bad)
		}
	}
}

// TestPercentile pins the nearest-rank method.
func TestPercentile(t *testing.T) {
	d := make([]time.Duration, 100)
	for i := range d {
		d[i] = time.Duration(100 - i)
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

// TestRowMedian checks that a row reports the figures of its median
// repetition, and its range.
func TestRowMedian(t *testing.T) {
	var r row
	for _, v := range []float64{3, 1, 2} {
		r.add(v, 1, fmt.Sprint(v), "1")
	}
	m, lo, hi := r.median()
	if m.ratio != 2 || m.num != "2" || lo != 1 || hi != 3 {
		t.Errorf("median %+v, range %v–%v", m, lo, hi)
	}
	if !atMost(2).met(2) || atMost(2).met(2.1) || !atLeast(0.8).met(0.8) || atLeast(0.8).met(0.7) {
		t.Error("floors compare wrongly")
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

// TestSSEData checks that the views experiment reads a tools/list answer
// sent as an event stream or as plain JSON.
func TestSSEData(t *testing.T) {
	for body, want := range map[string]string{
		"event: message\ndata: {\"id\":1}\n\n": `{"id":1}`,
		"id: 7\r\ndata:{\"id\":2}\r\n\r\n":     `{"id":2}`,
		`{"id":3}`:                             `{"id":3}`,
	} {
		if got := string(sseData([]byte(body))); got != want {
			t.Errorf("sseData(%q) = %q, want %q", body, got, want)
		}
	}
}
