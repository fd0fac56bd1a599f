package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/host/watcher"
)

// reloadPatience bounds the wait for one notification, so that a broken
// reload fails the experiment instead of hanging it.
const reloadPatience = 60 * time.Second

// sdkNotificationDelay is go-sdk v1.8.0's debounce of list_changed
// notifications (mcp.notificationDelay, unexported).
const sdkNotificationDelay = 10 * time.Millisecond

// echoDescription is the description of echo in both example modules. The
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

// landing is one timed reload.
type landing struct {
	warm bool
	took time.Duration
}

func runReload(ctx context.Context, e *env) (*section, error) {
	n := e.n(10)
	cPath, err := e.cGuest()
	if err != nil {
		return nil, err
	}
	goPath, err := e.goGuest(ctx, "examples/go/everything")
	if err != nil {
		return nil, err
	}
	s := &section{
		Title: "3. Hot reload: file landed → notifications/tools/list_changed",
		Intro: fmt.Sprintf("`wasmcp serve -dir D` with a go-sdk client (protocol %s). Each landing writes a new version of the "+
			"module (echo's description changed, so the tool set changes) to a dotfile and renames it over the served "+
			"module; the time runs from the rename to the client's list_changed handler. Cold: content never compiled "+
			"before (fresh compilation cache entry). Warm: content compiled earlier in the run (found in the cache). "+
			"%d landings of each kind, cold and warm alternating. The last column subtracts the fixed waits on the path: "+
			"the watcher's quiet period for a file renamed into place (%v) and go-sdk's notification debounce (%v).",
			e.opts.protocol, n, watcher.LandedQuiet, sdkNotificationDelay),
	}
	t := table{Header: []string{"module", "size", "cache", "median ms", "p90 ms", "max ms", "median − waits ms"}}
	for _, m := range []struct{ name, path string }{{"C example", cPath}, {"Go example", goPath}} {
		wasm, err := os.ReadFile(m.path)
		if err != nil {
			return nil, err
		}
		e.log.Info("reload", "module", m.name)
		ls, stray, err := measureReload(ctx, e, filepath.Base(m.path), wasm, n)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.name, err)
		}
		for _, warm := range []bool{false, true} {
			var d []time.Duration
			for _, l := range ls {
				if l.warm == warm {
					d = append(d, l.took)
				}
			}
			sm := summarize(d)
			cache := "cold"
			if warm {
				cache = "warm"
			}
			t.Rows = append(t.Rows, []string{m.name, fmt.Sprintf("%.0f KB", float64(len(wasm))/1024), cache,
				ms(sm.P50), ms(sm.P90), ms(sm.Max), ms(sm.P50 - watcher.LandedQuiet - sdkNotificationDelay)})
			s.value(slug(m.name+"-"+cache), float64(sm.P50))
			if warm {
				s.addRatio(slug(m.name)+"-warm-over-target", fmt.Sprintf("hot reload, %s module, warm: median ÷ 50 ms target", m.name),
					float64(sm.P50), float64(50*time.Millisecond), "≤ 1", "file renamed in → list_changed at the client")
			}
		}
		if stray > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("%s: %d list_changed notifications arrived that no landing caused.", m.name, stray))
		}
	}
	s.Tables = append(s.Tables, t)
	s.Notes = append(s.Notes, fmt.Sprintf("A file renamed into place has landed complete: the watcher waits only %v "+
		"of quiet for it (a file written in place waits the settle time, %v). The last column is what loading, "+
		"swapping and notifying cost on top of the fixed waits.", watcher.LandedQuiet, watcher.DefaultSettle))
	return s, nil
}

// measureReload serves a directory holding the module wasm as name, and
// lands n cold and n warm versions of it.
func measureReload(ctx context.Context, e *env, name string, wasm []byte, n int) (ls []landing, stray int, err error) {
	vm, err := newVersionedModule(wasm)
	if err != nil {
		return nil, 0, err
	}
	dir, err := e.pluginDir("reload-" + slug(name))
	if err != nil {
		return nil, 0, err
	}
	cache, err := e.dir("reload-cache-" + slug(name))
	if err != nil {
		return nil, 0, err
	}
	target := filepath.Join(dir, name)
	if err := os.WriteFile(target, wasm, 0o644); err != nil {
		return nil, 0, err
	}
	p, err := e.wasmcpServer(ctx, "reload-"+name, nil, "serve", "-dir", dir, "-cache-dir", cache, "-log-level", "debug")
	if err != nil {
		return nil, 0, err
	}
	defer p.close()
	changed := make(chan time.Time, 16)
	cs, err := e.sdkClient(ctx, p, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- time.Now() },
	})
	if err != nil {
		return nil, 0, err
	}
	defer cs.Close()

	// land renames a version into place and waits for the notification and
	// the new description.
	seq := 0
	land := func(tag string) (time.Duration, error) {
		// Notifications nobody waited for would be taken for this landing's.
		for len(changed) > 0 {
			<-changed
			stray++
		}
		version, desc := vm.version(tag)
		seq++
		tmp := filepath.Join(dir, ".landing-"+strconv.Itoa(seq))
		if err := os.WriteFile(tmp, version, 0o644); err != nil {
			return 0, err
		}
		start := time.Now()
		if err := os.Rename(tmp, target); err != nil {
			return 0, err
		}
		for {
			var at time.Time
			select {
			case at = <-changed:
			case <-time.After(reloadPatience):
				return 0, fmt.Errorf("no list_changed with echo described %q %v after landing it", desc, reloadPatience)
			case <-ctx.Done():
				return 0, ctx.Err()
			}
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				return 0, err
			}
			for _, t := range res.Tools {
				if t.Name == "echo" && t.Description == desc {
					return at.Sub(start), nil
				}
			}
			stray++ // a notification of some other change
		}
	}
	// The warm version is compiled once, untimed, so that it is in the
	// cache; landing another version in between makes each warm landing a
	// change again.
	const warmTag = "WARM"
	if _, err := land(warmTag); err != nil {
		return nil, 0, err
	}
	for i := range n {
		cold, err := land(fmt.Sprintf("c%03d", i))
		if err != nil {
			return nil, 0, err
		}
		warm, err := land(warmTag)
		if err != nil {
			return nil, 0, err
		}
		ls = append(ls, landing{false, cold}, landing{true, warm})
	}
	return ls, stray, nil
}
