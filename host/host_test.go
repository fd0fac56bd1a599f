package host_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host"
)

func TestConfigValidation(t *testing.T) {
	ctx := context.Background()
	base := host.NewConfig().WithCacheDir("")
	for name, cfg := range map[string]host.Config{
		"memory below one page": base.WithMemoryLimit(65535),
		"memory above 4 GiB":    base.WithMemoryLimit(4<<30 + 65536),
		"zero timeout":          base.WithTimeout(0),
		"zero max input":        base.WithMaxInput(0),
		"negative max output":   base.WithMaxOutput(-1),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := host.New(ctx, cfg); err == nil {
				t.Errorf("%s: New accepted the config", name)
			}
		})
	}
	for name, cfg := range map[string]host.Config{
		"one page": base.WithMemoryLimit(65536),
		"4 GiB":    base.WithMemoryLimit(4 << 30),
	} {
		t.Run(name, func(t *testing.T) {
			h, err := host.New(ctx, cfg)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			h.Close(ctx)
		})
	}
}

func TestMemoryLimitRoundsDownToPages(t *testing.T) {
	// The test guest declares two pages of memory: a limit of two pages and
	// a bit loads it, one page and a bit (rounded down to one) does not.
	path := filepath.Join(t.TempDir(), "m.wasm")
	if err := os.WriteFile(path, guest(t, guestSpec{Tools: []string{"m"}}), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for limit, loads := range map[uint64]bool{2*65536 + 65535: true, 65536 + 65535: false} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			cfg := host.NewConfig().WithCacheDir("").WithMemoryLimit(limit)
			r, err := host.Inspect(ctx, cfg, path)
			if err != nil {
				t.Fatal(err)
			}
			if r.Loadable != loads {
				t.Errorf("limit %d bytes: Loadable = %v (%s), want %v", limit, r.Loadable, r.Problem, loads)
			}
		})
	}
}

func TestCacheDirCreatedPrivate(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "a", "cache")
	dir := t.TempDir()
	place(t, dir, "x.wasm", guest(t, guestSpec{Tools: []string{"x"}}))
	h := newHost(t, dir, nil, host.NewConfig().WithCacheDir(cache))
	if err := h.LoadDir(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(cache)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("cache dir: %v, %v; want a 0700 directory", st, err)
	}
	abs, _ := filepath.Abs(dir)
	if _, err := os.Stat(host.ClaimsPath(cache, abs)); err != nil {
		t.Fatalf("claims file not written: %v", err)
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) < 2 {
		t.Fatalf("cache dir holds %v; want the compiled code and the claims", entries)
	}
}

func TestUnusableCacheDirIsAWarning(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	place(t, dir, "x.wasm", guest(t, guestSpec{Tools: []string{"x"}, Answer: "ok"}))
	l := newLogs()
	h := newHost(t, dir, l, host.NewConfig().WithCacheDir(filepath.Join(file, "cache")))
	l.wait(t, "level=WARN", "cache directory unusable")
	if err := h.LoadDir(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := call(t, h, "x"); got != "ok" {
		t.Fatalf("call = %q", got)
	}
}

func TestLoadDirSkipsBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := guest(t, guestSpec{Tools: []string{"alpha", "beta"}, Answer: "a"})
	place(t, dir, "a.wasm", good)
	place(t, dir, "b.wasm", guest(t, guestSpec{Tools: []string{"gamma"}, Answer: "b"}))
	place(t, dir, "c.wasm", []byte("\x00asm garbage"))
	place(t, dir, "d.wasm", good[:len(good)/2])
	// Not plugin files by the watcher's rules: never loaded.
	place(t, dir, "notes.txt", good)
	if err := os.WriteFile(filepath.Join(dir, ".hidden.wasm"), good, 0o600); err != nil {
		t.Fatal(err)
	}
	l := newLogs()
	h := newHost(t, dir, l, testConfig(t))
	if err := h.LoadDir(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := toolNames(h.Tools()), []string{"alpha", "beta", "gamma"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	for _, bad := range []string{"c.wasm", "d.wasm"} {
		l.wait(t, "level=ERROR", "plugin not loaded", filepath.Join(dir, bad))
	}
	if strings.Contains(l.String(), "hidden") || strings.Contains(l.String(), "notes") {
		t.Fatalf("ignored files were looked at:\n%s", l)
	}
	if got := call(t, h, "gamma"); got != "b" {
		t.Fatalf("gamma answered %q", got)
	}
	tools := h.Tools()
	if tools[0].Plugin != "a" || len(tools[0].SHA256) != 64 {
		t.Fatalf("tool alpha = %+v; want plugin a and its SHA-256", tools[0])
	}
}

func TestLoadFileAndCall(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "one.wasm")
	if err := os.WriteFile(path, []byte("not wasm"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := newHost(t, "", nil, testConfig(t))
	ctx := context.Background()
	if err := h.LoadFile(ctx, path); err == nil || !strings.Contains(err.Error(), "one.wasm") {
		t.Fatalf("LoadFile of garbage = %v; want an error naming the file", err)
	}
	if err := os.WriteFile(path, guest(t, guestSpec{Tools: []string{"one"}, Answer: "1"}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := h.LoadFile(ctx, path); err != nil {
		t.Fatal(err)
	}
	if got := call(t, h, "one"); got != "1" {
		t.Fatalf("call = %q", got)
	}
	_, err := h.Call(ctx, host.CallRequest{Tool: "two"})
	if !errors.Is(err, host.ErrUnknownTool) || !strings.Contains(err.Error(), "two") {
		t.Fatalf("unknown tool: %v", err)
	}
	if err := h.LoadDir(ctx); err == nil {
		t.Fatal("LoadDir without a directory succeeded")
	}

	// Unloading another file of the same name leaves it; its own file
	// takes it away.
	if err := h.UnloadFile(filepath.Join(t.TempDir(), "one.wasm")); err != nil || len(h.Tools()) != 1 {
		t.Fatalf("unload of another one.wasm: %v, tools %v", err, h.Tools())
	}
	if err := h.UnloadFile(path); err != nil || len(h.Tools()) != 0 {
		t.Fatalf("unload: %v, tools %v", err, h.Tools())
	}
}

func TestClosedHost(t *testing.T) {
	dir := t.TempDir()
	place(t, dir, "x.wasm", guest(t, guestSpec{Tools: []string{"x"}}))
	h := newHost(t, dir, nil, testConfig(t))
	ctx := context.Background()
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	watchDone := make(chan error)
	go func() { watchDone <- h.Watch(ctx) }()
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-watchDone; err != nil && !errors.Is(err, host.ErrClosed) {
		t.Fatalf("Watch ended with %v", err)
	}
	if _, err := h.Call(ctx, host.CallRequest{Tool: "x"}); !errors.Is(err, host.ErrClosed) {
		t.Fatalf("Call after Close: %v", err)
	}
	if err := h.LoadDir(ctx); !errors.Is(err, host.ErrClosed) {
		t.Fatalf("LoadDir after Close: %v", err)
	}
	if n := host.OpenModules(h); n != 0 {
		t.Fatalf("%d modules open after Close", n)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestClaimsKeepOwnersAcrossRestart(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	ctx := context.Background()
	cfg := host.NewConfig().WithCacheDir(cache)
	place(t, dir, "zed.wasm", guest(t, guestSpec{Tools: []string{"shared"}, Answer: "zed"}))
	h1 := newHost(t, dir, nil, cfg)
	if err := h1.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	// A newcomer, first by name, defines the same tool: refused.
	place(t, dir, "abc.wasm", guest(t, guestSpec{Tools: []string{"shared", "own"}, Answer: "abc"}))
	if err := h1.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	if got := call(t, h1, "shared"); got != "zed" {
		t.Fatalf("shared answered by %s, want the incumbent zed", got)
	}
	want := []host.Refusal{{Tool: "shared", File: filepath.Join(dir, "abc.wasm"), Owner: filepath.Join(dir, "zed.wasm")}}
	if got := h1.Refused(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Refused = %+v, want %+v", got, want)
	}
	h1.Close(ctx)

	// Name order alone would pick abc; the claim keeps zed.
	h2 := newHost(t, dir, nil, cfg)
	if err := h2.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	if got := call(t, h2, "shared"); got != "zed" {
		t.Fatalf("after restart shared answered by %s, want zed", got)
	}
	// Without the cache (so without claims) name order decides.
	h3 := newHost(t, dir, nil, host.NewConfig().WithCacheDir(""))
	if err := h3.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	if got := call(t, h3, "shared"); got != "abc" {
		t.Fatalf("without claims shared answered by %s, want abc", got)
	}
}

func TestInspect(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	ctx := context.Background()
	place(t, dir, "owner.wasm", guest(t, guestSpec{Tools: []string{"x"}}))
	cand := filepath.Join(t.TempDir(), "cand.wasm")
	wasm := guest(t, guestSpec{Tools: []string{"x", "y"}, Description: "candidate"})
	if err := os.WriteFile(cand, wasm, 0o600); err != nil {
		t.Fatal(err)
	}

	r, err := host.Inspect(ctx, host.NewConfig().WithCacheDir(cache), cand)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Loadable || r.Problem != "" || r.ABIVersion != 1 || r.Size != int64(len(wasm)) || len(r.SHA256) != 64 {
		t.Fatalf("report = %+v", r)
	}
	if len(r.Tools) != 2 || r.Tools[1].Description != "candidate" {
		t.Fatalf("tools = %+v", r.Tools)
	}
	if !containsPrefix(r.Exports, "wasmcp_call") || len(r.Imports) != 0 || r.Refused != nil {
		t.Fatalf("imports %v, exports %v, refused %v", r.Imports, r.Exports, r.Refused)
	}

	// Against the directory, x is owned by owner.wasm.
	r, err = host.Inspect(ctx, host.NewConfig().WithCacheDir(cache).WithDir(dir), cand)
	if err != nil {
		t.Fatal(err)
	}
	want := []host.Refusal{{Tool: "x", File: cand, Owner: filepath.Join(dir, "owner.wasm")}}
	if !reflect.DeepEqual(r.Refused, want) {
		t.Fatalf("Refused = %+v, want %+v", r.Refused, want)
	}
	abs, _ := filepath.Abs(dir)
	if _, err := os.Stat(host.ClaimsPath(cache, abs)); !os.IsNotExist(err) {
		t.Fatalf("Inspect wrote claims: %v", err)
	}

	bad := filepath.Join(t.TempDir(), "bad.wasm")
	if err := os.WriteFile(bad, wasm[:len(wasm)-3], 0o600); err != nil {
		t.Fatal(err)
	}
	r, err = host.Inspect(ctx, host.NewConfig().WithCacheDir(""), bad)
	if err != nil {
		t.Fatal(err)
	}
	if r.Loadable || !strings.Contains(r.Problem, "bad.wasm") || r.Size != int64(len(wasm)-3) {
		t.Fatalf("report of a truncated module = %+v", r)
	}
	if _, err := host.Inspect(ctx, host.NewConfig(), filepath.Join(dir, "missing.wasm")); err == nil {
		t.Fatal("Inspect of a missing file succeeded")
	}
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
