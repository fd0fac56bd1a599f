package host_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host"
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

// Admit sees the module that serves the tool, can refuse the call, and its
// release runs once the call is over.
func TestCallAdmit(t *testing.T) {
	dir := t.TempDir()
	place(t, dir, "m.wasm", guest(t, guestSpec{Tools: []string{"x"}, Answer: "ok"}))
	h := newHost(t, dir, nil, testConfig(t))
	ctx := context.Background()
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	var admitted []string
	released := 0
	admit := func(_ context.Context, m host.Module) (func(), error) {
		admitted = append(admitted, m.Plugin)
		return func() { released++ }, nil
	}
	if res, err := h.Call(ctx, host.CallRequest{Tool: "x", Admit: admit}); err != nil || res.IsError {
		t.Fatalf("admitted call: %+v, %v", res, err)
	}
	if len(admitted) != 1 || admitted[0] != "m" || released != 1 {
		t.Fatalf("admitted %v, released %d times; want [m], once", admitted, released)
	}
	busy := errors.New("busy")
	refuse := func(context.Context, host.Module) (func(), error) { return nil, busy }
	if res, err := h.Call(ctx, host.CallRequest{Tool: "x", Admit: refuse}); !errors.Is(err, busy) || res != nil {
		t.Fatalf("refused call: %+v, %v; want the refusal", res, err)
	}
	if _, err := h.Call(ctx, host.CallRequest{Tool: "nope", Admit: admit}); !errors.Is(err, host.ErrUnknownTool) || len(admitted) != 1 {
		t.Fatalf("unknown tool: %v, admitted %v; want ErrUnknownTool without admission", err, admitted)
	}
}
