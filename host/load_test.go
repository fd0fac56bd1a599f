package host_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
)

// Modules are served as they load, and Loaded closes once every one has.
func TestLoadDirServesAsModulesLoad(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b", "c", "d"} {
		place(t, dir, name+".wasm", guest(t, guestSpec{Tools: []string{name}, Answer: name}))
	}
	h := newHost(t, dir, nil, testConfig(t))
	select {
	case <-h.Loaded():
		t.Fatal("Loaded closed before any load")
	default:
	}
	var added []string
	h.Subscribe(func(c host.Change) {
		for _, tool := range c.Added {
			added = append(added, tool.Name)
		}
	})
	if err := h.LoadDir(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-h.Loaded()
	// Subscribers have seen every module by the time the load is over.
	if len(added) != 4 || len(h.Tools()) != 4 {
		t.Fatalf("added %v, serving %d tools; want all four", added, len(h.Tools()))
	}
}

// A module that fails to load is logged once, not again by the sync that
// Watch starts with, and loaded once its content changes.
func TestFailedModuleLoggedOnce(t *testing.T) {
	dir := t.TempDir()
	place(t, dir, "bad.wasm", []byte("not a module"))
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t))
	if err := h.LoadDir(context.Background()); err != nil {
		t.Fatal(err)
	}
	startWatch(t, h)
	ch := subscribe(h)
	place(t, dir, "good.wasm", guest(t, guestSpec{Tools: []string{"good"}}))
	if got := summary(ch.next(t)); got != "+good" {
		t.Fatalf("Change %q, want +good", got)
	}
	if n := strings.Count(l.String(), "plugin not loaded"); n != 1 {
		t.Fatalf("the failure was logged %d times, want once:\n%s", n, l)
	}
	place(t, dir, "bad.wasm", guest(t, guestSpec{Tools: []string{"mended"}}))
	if got := summary(ch.next(t)); got != "+mended" {
		t.Fatalf("Change %q, want +mended", got)
	}
}

// A module whose every tool another module serves is not logged as serving.
func TestLoadedWithEveryToolRefusedSaysSo(t *testing.T) {
	dir := t.TempDir()
	place(t, dir, "a.wasm", guest(t, guestSpec{Tools: []string{"x"}, Answer: "a"}))
	place(t, dir, "b.wasm", guest(t, guestSpec{Tools: []string{"x"}, Answer: "b"}))
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t))
	if err := h.LoadDir(context.Background()); err != nil {
		t.Fatal(err)
	}
	l.wait(t, "plugin loaded but serves no tool", "b.wasm", "refused=1")
	l.wait(t, "plugin loaded", "a.wasm", "tools=1")
}

// The result names the module version that ran, also after a reload that
// changed the module's code but none of its definitions.
func TestCallNamesTheModuleThatRan(t *testing.T) {
	dir := t.TempDir()
	v1 := guest(t, guestSpec{Tools: []string{"x"}, Answer: "one"})
	v2 := guest(t, guestSpec{Tools: []string{"x"}, Answer: "two"})
	place(t, dir, "m.wasm", v1)
	h := newHost(t, dir, nil, testConfig(t))
	ctx := context.Background()
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := h.Call(ctx, host.CallRequest{Tool: "x"})
	if err != nil {
		t.Fatal(err)
	}
	want := host.Module{Plugin: "m", File: filepath.Join(dir, "m.wasm"), SHA256: sha256Hex(v1)}
	if res.Module != want {
		t.Fatalf("Module = %+v, want %+v", res.Module, want)
	}
	place(t, dir, "m.wasm", v2)
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err = h.Call(ctx, host.CallRequest{Tool: "x"}); err != nil || res.Content[0].Text != "two" {
		t.Fatalf("call after reload = %+v, %v", res, err)
	}
	if res.Module.SHA256 != sha256Hex(v2) {
		t.Fatalf("Module.SHA256 = %s after a code-only reload, want %s", res.Module.SHA256, sha256Hex(v2))
	}
}

// Admission refuses a call once its plugin is known, with a tool error that
// names the module and the limit: rates per caller and per tool, a plugin's
// own rate and concurrency from the policy, and a full queue. An unknown tool
// is refused before admission.
func TestCallAdmission(t *testing.T) {
	ctx := t.Context()
	pol, err := policy.Parse([]byte(`{"plugins":{"hostile":{"concurrency":1,"timeout":"30s"},"m":{"rate":1}}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	place(t, dir, "m.wasm", guest(t, guestSpec{Tools: []string{"x", "y"}, Answer: "ok"}))
	hostile, err := os.ReadFile(filepath.Join("testdata", "hostile.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	place(t, dir, "hostile.wasm", hostile)
	h := newHost(t, dir, nil, testConfig(t).WithPolicy(pol).WithAdmission(host.Admission{CallerRate: 2, CallerCalls: 1, ToolRate: 100, Concurrency: 8}))
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	refused := func(t *testing.T, req host.CallRequest, cause error, words string) {
		t.Helper()
		res, err := h.Call(ctx, req)
		if err != nil || !res.IsError || !errors.Is(res.Failure, cause) || !strings.Contains(res.Content[0].Text, words) {
			t.Fatalf("call %s: %+v, %v; want a tool error of %v saying %q", req.Tool, res, err, cause, words)
		}
		if res.Module.Plugin == "" || res.Module.SHA256 == "" {
			t.Errorf("refused call names no module: %+v", res.Module)
		}
	}
	t.Run("plugin rate", func(t *testing.T) {
		if res, err := h.Call(ctx, host.CallRequest{Tool: "x", Caller: "a"}); err != nil || res.IsError {
			t.Fatalf("first call: %+v, %v", res, err)
		}
		refused(t, host.CallRequest{Tool: "y", Caller: "b"}, host.ErrRateLimited, "rate limit exceeded for plugin m: 1 calls/s")
	})
	t.Run("caller rate", func(t *testing.T) {
		for range 2 {
			if res, err := h.Call(ctx, host.CallRequest{Tool: "ok", Caller: "c"}); err != nil || res.IsError {
				t.Fatalf("call within the caller's rate: %+v, %v", res, err)
			}
		}
		refused(t, host.CallRequest{Tool: "ok", Caller: "c"}, host.ErrRateLimited, "rate limit exceeded for this session: 2 calls/s")
		if res, err := h.Call(ctx, host.CallRequest{Tool: "ok", Caller: "d"}); err != nil || res.IsError {
			t.Errorf("another caller: %+v, %v", res, err)
		}
	})
	// spinning runs spin for spinner until stop, once it holds hostile's
	// one slot: a call of ok by another caller is refused as busy, and
	// that refusal is returned. A spin refused because such a call won the
	// race for the slot is started again.
	spinning := func(t *testing.T, spinner string) (busy *host.Result, stop func()) {
		t.Helper()
		spinCtx, cancel := context.WithCancel(ctx)
		spin := func() <-chan struct{} {
			spun := make(chan struct{})
			go func() {
				defer close(spun)
				h.Call(spinCtx, host.CallRequest{Tool: "spin", Caller: spinner})
			}()
			return spun
		}
		spun := spin()
		stop = func() { cancel(); <-spun }
		for i := 0; ; i++ {
			res, err := h.Call(ctx, host.CallRequest{Tool: "ok", Caller: fmt.Sprint(spinner, "-probe-", i)})
			if err != nil {
				stop()
				t.Fatal(err)
			}
			if errors.Is(res.Failure, host.ErrBusy) {
				return res, stop
			}
			if i == 1000 {
				stop()
				t.Fatalf("never refused while spin runs: %q", res.Content[0].Text)
			}
			select {
			case <-spun:
				spun = spin()
			default:
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	t.Run("plugin concurrency", func(t *testing.T) {
		// The policy runs one call of hostile at a time and queues none:
		// once spin is admitted, ok is refused.
		res, stop := spinning(t, "e")
		defer stop()
		if !strings.Contains(res.Content[0].Text, "plugin hostile is busy") {
			t.Errorf("busy refusal %q does not name the plugin", res.Content[0].Text)
		}
	})
	t.Run("caller calls", func(t *testing.T) {
		// While g's one call runs, g's call of another plugin is refused
		// for g.
		_, stop := spinning(t, "g")
		defer stop()
		res, err := h.Call(ctx, host.CallRequest{Tool: "x", Caller: "g"})
		for i := 0; err == nil && errors.Is(res.Failure, host.ErrRateLimited) && i < 10; i++ {
			time.Sleep(500 * time.Millisecond) // g's rate, 2 calls/s, spent by spins that lost the race
			res, err = h.Call(ctx, host.CallRequest{Tool: "x", Caller: "g"})
		}
		if err != nil || !errors.Is(res.Failure, host.ErrBusy) || !strings.Contains(res.Content[0].Text, "too many calls at once from this client: 1 call runs or waits already") {
			t.Errorf("g's second call: %+v, %v; want it refused for g's cap", res, err)
		}
	})
	if _, err := h.Call(ctx, host.CallRequest{Tool: "nope"}); !errors.Is(err, host.ErrUnknownTool) {
		t.Errorf("unknown tool: %v, want ErrUnknownTool", err)
	}
}
