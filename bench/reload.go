package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reloadPatience bounds the wait for one notification, so that a broken
// reload fails the experiment instead of hanging it.
const reloadPatience = 60 * time.Second

// reloadTarget is the target of a warm reload.
const reloadTarget = 50 * time.Millisecond

// echoDescription is the description of echo in the example modules. The
// bench makes versions of a module by rewriting its last characters, which
// changes a tool definition (so the server must notify) without changing
// the module's size or code.
const echoDescription = "Echoes back the input message."

// versionedModule makes versions of one module that differ in the
// description of echo.
type versionedModule struct {
	wasm []byte
	at   int // offset of echoDescription's last 5 bytes, "sage."
}

func newVersionedModule(wasm []byte) (*versionedModule, error) {
	if c := bytes.Count(wasm, []byte(echoDescription)); c != 1 {
		return nil, fmt.Errorf("the module holds %q %d times, not once", echoDescription, c)
	}
	i := bytes.Index(wasm, []byte(echoDescription))
	return &versionedModule{wasm: wasm, at: i + len(echoDescription) - 5}, nil
}

// version returns the module with tag (4 characters) in place of "sage" in
// echo's description, and that description.
func (v *versionedModule) version(tag string) (wasm []byte, description string) {
	out := bytes.Clone(v.wasm)
	copy(out[v.at:v.at+4], tag)
	return out, echoDescription[:len(echoDescription)-5] + tag + "."
}

// runReload times hot reloads in `wasmcp serve -dir D` seen by a go-sdk
// client: from a new version of a module renamed into D to the client's
// notifications/tools/list_changed handler. The versions differ in echo's
// description, and each has been compiled earlier in the run (warm): two
// versions land in turn, after each has landed once untimed.
func runReload(ctx context.Context, e *env) ([]row, error) {
	landings := e.size(10, 2)
	var rows []row
	for _, m := range []struct{ name, title string }{
		{"examples-c", "C example"},
		{"everything", "Go example"},
	} {
		path, err := e.module(m.name)
		if err != nil {
			return rows, err
		}
		wasm, err := os.ReadFile(path)
		if err != nil {
			return rows, err
		}
		r := row{name: fmt.Sprintf("hot reload, warm, %s (%d KB): file landed → list_changed at a go-sdk client ÷ %s",
			m.title, len(wasm)>>10, ms(reloadTarget)), floor: atMost(1)}
		for i := range e.opts.reps {
			d, err := reloadRep(ctx, e, fmt.Sprintf("%s-%d", m.name, i), wasm, landings)
			if err != nil {
				return append(rows, r), fmt.Errorf("%s: %w", m.title, err)
			}
			e.log.Info("reload", "module", m.name, "rep", i, "median", d)
			r.add(float64(d), float64(reloadTarget), ms(d), ms(reloadTarget))
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// reloadRep serves a directory holding the module wasm and returns the
// median of n timed warm landings.
func reloadRep(ctx context.Context, e *env, name string, wasm []byte, n int) (time.Duration, error) {
	vm, err := newVersionedModule(wasm)
	if err != nil {
		return 0, err
	}
	dir, err := e.dir("reload-" + name)
	if err != nil {
		return 0, err
	}
	cache, err := e.dir("reload-cache-" + name)
	if err != nil {
		return 0, err
	}
	target := filepath.Join(dir, "module.wasm")
	if err := os.WriteFile(target, wasm, 0o644); err != nil {
		return 0, err
	}
	cmd, err := e.wasmcpCmd("reload-"+name, "serve", "-dir", dir, "-cache-dir", cache)
	if err != nil {
		return 0, err
	}
	changed := make(chan time.Time, 16)
	cs, err := connectStdio(ctx, cmd, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- time.Now() },
	})
	if err != nil {
		return 0, err
	}
	defer cs.Close()

	// land renames a version into place and waits for the notification
	// and the new description.
	land := func(tag string) (time.Duration, error) {
		version, desc := vm.version(tag)
		landed, notified, err := landModule(ctx, target, version, changed, func() (bool, error) {
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				return false, err
			}
			return slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == "echo" && t.Description == desc }), nil
		})
		if err != nil {
			return 0, fmt.Errorf("echo described %q: %w", desc, err)
		}
		return notified.Sub(landed), nil
	}
	tags := [2]string{"WRMA", "WRMB"}
	for _, tag := range tags { // compiled once, untimed
		if _, err := land(tag); err != nil {
			return 0, err
		}
	}
	d := make([]time.Duration, n)
	for i := range d {
		if d[i], err = land(tags[i%2]); err != nil {
			return 0, err
		}
	}
	return median(d), nil
}

// landModule writes wasm to a dotfile beside target (the watcher ignores
// it) and renames it over target, then waits for the list_changed
// notifications that changed delivers (the time each arrived) until seen
// reports, called after each, that the new version is served. It returns
// when the file landed and when the notification that seen accepted
// arrived.
func landModule(ctx context.Context, target string, wasm []byte, changed <-chan time.Time, seen func() (bool, error)) (landed, notified time.Time, err error) {
	for len(changed) > 0 { // notifications no landing waited for
		<-changed
	}
	tmp := filepath.Join(filepath.Dir(target), ".landing-"+randomHex(4))
	if err := os.WriteFile(tmp, wasm, 0o644); err != nil {
		return landed, notified, err
	}
	landed = time.Now()
	if err := os.Rename(tmp, target); err != nil {
		return landed, notified, err
	}
	for {
		select {
		case notified = <-changed:
		case <-time.After(reloadPatience):
			return landed, notified, fmt.Errorf("not served %v after landing it", reloadPatience)
		case <-ctx.Done():
			return landed, notified, ctx.Err()
		}
		ok, err := seen()
		if ok || err != nil {
			return landed, notified, err
		}
	}
}
