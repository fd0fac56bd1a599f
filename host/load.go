package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wasmcp/wasmcp/host/internal/plugin"
	"github.com/wasmcp/wasmcp/host/internal/registry"
	"github.com/wasmcp/wasmcp/host/internal/watcher"
	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/host/trust"
)

// LoadDir loads every plugin file of the configured directory, in parallel,
// and serves each as soon as it has loaded: subscribers hear of the tools
// module by module (in batches when several finish together), and a tool
// several modules define ends with the module the rules of the package
// documentation give it, whatever order they finished in. A file that fails
// to load is logged with the reason and skipped; it is not tried again
// until its content changes. Files already loaded with the same content are
// kept as they are, and loaded plugins of the directory whose file is gone
// are removed, so LoadDir can also be used to resynchronise. The error is
// for the directory itself (none configured, unreadable), a closed Host, or
// ctx ending. The first LoadDir, or the first sync of Watch, closes
// Loaded's channel when it returns.
func (h *Host) LoadDir(ctx context.Context) error {
	if h.dir == "" {
		return errors.New("load: no plugin directory configured")
	}
	if h.isClosed() {
		return ErrClosed
	}
	return h.syncDir(ctx)
}

// LoadFile loads one module file, which need not be in the configured
// directory, and serves it, replacing a loaded plugin of the same name. It
// returns the reason the file could not be loaded, if any. Loading a file
// whose content is already served is a no-op.
func (h *Host) LoadFile(ctx context.Context, path string) error {
	if h.isClosed() {
		return ErrClosed
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("load %s: %w", path, err)
	}
	h.loading.Lock()
	defer h.loading.Unlock()
	defer h.recordReload(ctx, "file", time.Now())
	m, err := h.load(ctx, abs, h.reg.Snapshot())
	if err != nil || m == nil {
		return err
	}
	if _, err := h.reg.Update([]*plugin.Plugin{m}, nil); err != nil {
		return fmt.Errorf("load %s: %w", path, ErrClosed)
	}
	h.logLoaded(m, h.reg.Snapshot())
	return nil
}

// UnloadFile stops serving the plugin loaded from path with LoadFile, if
// the plugin of its name was loaded from that very file; otherwise it does
// nothing. Calls running in it finish first, as when a file of the
// directory is removed.
func (h *Host) UnloadFile(path string) error {
	if h.isClosed() {
		return ErrClosed
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("unload %s: %w", path, err)
	}
	h.loading.Lock()
	defer h.loading.Unlock()
	h.forgetFailure(abs)
	s := h.reg.Snapshot()
	if p, ok := s.Plugin(pluginName(abs)); ok && p.Path() == abs {
		h.update(nil, []string{p.Name()}, s)
	}
	return nil
}

// Watch reloads plugin files of the configured directory as they change,
// until ctx is done or the Host is closed; it then returns nil. Other errors
// are for the directory (none configured, not watchable). Watch first
// brings the loaded set up to date with the directory, so changes made
// between LoadDir and Watch are not missed. Call it at most once at a time.
func (h *Host) Watch(ctx context.Context) error {
	if h.dir == "" {
		return errors.New("watch: no plugin directory configured")
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return ErrClosed
	}
	h.watchers.Add(1)
	h.mu.Unlock()
	defer h.watchers.Done()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(h.stopCtx, cancel)()

	w, err := watcher.New(h.dir, watcher.Options{Settle: h.cfg.settle, Logger: h.log})
	if err != nil {
		return err
	}
	defer w.Close()
	// The watcher reports what changes from now on; the sync covers what
	// changed before it started.
	if err := h.syncDir(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case batch, ok := <-w.Events():
			if !ok {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("watch %s: the watcher stopped", h.dir)
			}
			h.apply(ctx, batch)
		}
	}
}

// Loaded returns a channel closed once the first load of the directory
// (LoadDir, or the sync Watch starts with) is over, or the Host is closed.
// Tools are served as their modules load, before it is closed.
func (h *Host) Loaded() <-chan struct{} { return h.loaded }

// syncDir makes the loaded plugins of the directory match its files,
// serving each module as it loads.
func (h *Host) syncDir(ctx context.Context) error {
	defer h.markLoaded()
	h.loading.Lock()
	defer h.loading.Unlock()
	defer h.recordReload(ctx, "load", time.Now())
	return h.syncDirLocked(ctx, false, true)
}

// markLoaded closes the Loaded channel, once.
func (h *Host) markLoaded() { h.loadedOnce.Do(func() { close(h.loaded) }) }

// syncDirLocked is syncDir with h.loading held. With all, the plugins loaded
// from outside the directory (LoadFile) are loaded again too; without a
// directory, they are all there is. With progressive, each module is served
// as soon as it loads; otherwise the whole sync is one swap.
func (h *Host) syncDirLocked(ctx context.Context, all, progressive bool) error {
	var paths []string
	if h.dir != "" {
		var err error
		if paths, err = watcher.Scan(h.dir, nil); err != nil {
			return fmt.Errorf("load: %w", err)
		}
	}
	s := h.reg.Snapshot()
	present := make(map[string]bool, len(paths)) // a set: a directory may hold thousands
	for _, p := range paths {
		present[p] = true
	}
	var gone []string
	for _, p := range s.Plugins() {
		switch {
		case filepath.Dir(p.Path()) != h.dir:
			if all {
				paths = append(paths, p.Path())
			}
		case !present[p.Path()]:
			gone = append(gone, p.Name())
		}
	}
	h.forgetFailures(present)
	var publish func([]*plugin.Plugin)
	var published []*plugin.Plugin
	if progressive {
		// Ownership of contested names is settled by the whole set, not
		// by who loaded first (registry.Hold).
		defer h.reg.Hold()()
		publish = func(mods []*plugin.Plugin) {
			if _, err := h.reg.Update(mods, gone); err == nil { // the removals go with the first modules
				h.logRemoved(gone, s)
				gone = nil
				published = append(published, mods...)
			}
		}
	}
	mods, refused := h.loadAll(ctx, paths, s, publish)
	h.update(mods, append(gone, refused...), s)
	// Logged once the set is complete: a module served first may have lost
	// a name to one that sorts before it since.
	now := h.reg.Snapshot()
	for _, m := range published {
		h.logLoaded(m, now)
	}
	return ctx.Err()
}

// Reconfigure replaces the operator's policy and the trust policy (what
// Config.WithPolicy and WithTrust set; nil for none) and brings the loaded
// plugins under them, as one change of the tool set: a module the trust
// policy now refuses stops serving, one it now allows is loaded, and every
// other is loaded again with its new limits and grants. A module that fails
// to load again for another reason keeps serving as it was. Calls running
// finish where they are. When the views change, subscribers hear of it
// (Change.Views). The error is for the directory, a closed Host, or
// ctx ending.
func (h *Host) Reconfigure(ctx context.Context, p *policy.Policy, t *trust.Verifier) error {
	if h.isClosed() {
		return ErrClosed
	}
	h.loading.Lock()
	defer h.loading.Unlock()
	h.cfg.policy, h.cfg.trust = p, t
	old := h.policy.Swap(p)
	h.generation++
	defer h.recordReload(ctx, "reconfigure", time.Now())
	err := h.syncDirLocked(ctx, true, false)
	if !old.SameViews(p) {
		h.viewed.tell(Change{Views: true})
	}
	return err
}

// apply loads the changed files of one watcher batch and removes the
// removed ones, as one swap.
func (h *Host) apply(ctx context.Context, batch []watcher.Event) {
	h.loading.Lock()
	defer h.loading.Unlock()
	defer h.recordReload(ctx, "watch", time.Now())
	s := h.reg.Snapshot()
	var changed, gone []string
	for _, e := range batch {
		switch e.Op {
		case watcher.Changed:
			changed = append(changed, e.Path)
		case watcher.Removed:
			// Only the plugin loaded from that file, not one of the same
			// name loaded with LoadFile from elsewhere.
			if p, ok := s.Plugin(pluginName(e.Path)); ok && p.Path() == e.Path {
				gone = append(gone, p.Name())
			}
		}
	}
	mods, refused := h.loadAll(ctx, changed, s, nil)
	h.update(mods, append(gone, refused...), s)
}

// update swaps mods in and gone out, and logs what happened to each file.
func (h *Host) update(mods []*plugin.Plugin, gone []string, s *registry.Snapshot[*plugin.Plugin]) {
	if len(mods) == 0 && len(gone) == 0 {
		return
	}
	if _, err := h.reg.Update(mods, gone); err != nil {
		return // closed: the registry closed mods
	}
	now := h.reg.Snapshot()
	for _, m := range mods {
		h.logLoaded(m, now)
	}
	h.logRemoved(gone, s)
}

func (h *Host) logRemoved(gone []string, s *registry.Snapshot[*plugin.Plugin]) {
	for _, name := range gone {
		p, _ := s.Plugin(name)
		h.log.Info("plugin removed", "file", p.Path())
	}
}

// logLoaded says that m now serves, and how many of its tools another
// module serves instead (the registry logs each such collision once).
func (h *Host) logLoaded(m *plugin.Plugin, s *registry.Snapshot[*plugin.Plugin]) {
	refused := 0
	for _, r := range s.Refused() {
		if r.Plugin == m.Name() {
			refused++
		}
	}
	served := len(m.Tools()) - refused
	if served == 0 && refused > 0 {
		h.log.Warn("plugin loaded but serves no tool: other modules serve every tool it defines",
			"file", m.Path(), "refused", refused, "sha256", m.SHA256())
		return
	}
	h.log.Info("plugin loaded", "file", m.Path(), "tools", served, "refused", refused, "sha256", m.SHA256())
	if s := m.StandIns(); len(s) > 0 {
		h.log.Warn("plugin reads stand-ins for what its policy section does not grant", "file", m.Path(), "stand_ins", s)
	}
}

// loadAll loads paths in parallel, at most GOMAXPROCS at a time. Without
// publish it returns the modules that loaded and differ from those in s, in
// the order of paths whatever order they finish in. With publish, it hands
// them to publish as they finish instead, together those that finished
// while publish was busy, and returns none. Failures are logged; refused
// are the plugins of s that must stop serving because of theirs (see
// loadFailed).
func (h *Host) loadAll(ctx context.Context, paths []string, s *registry.Snapshot[*plugin.Plugin], publish func([]*plugin.Plugin)) (mods []*plugin.Plugin, refused []string) {
	mods = make([]*plugin.Plugin, len(paths))
	refusedAt := make([]string, len(paths))
	finished := make(chan *plugin.Plugin, len(paths))
	published := make(chan struct{})
	if publish != nil {
		go func() {
			defer close(published)
			for m := range finished {
				batch := []*plugin.Plugin{m}
				for more := true; more; {
					select {
					case next, ok := <-finished:
						if ok {
							batch = append(batch, next)
						}
						more = ok
					default:
						more = false
					}
				}
				publish(batch)
			}
		}()
	}
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, path := range paths {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			m, err := h.load(ctx, path, s)
			switch {
			case err != nil:
				refusedAt[i] = h.loadFailed(ctx, path, err, s)
			case m != nil && publish != nil:
				finished <- m
			default:
				mods[i] = m
			}
		}()
	}
	wg.Wait()
	close(finished)
	if publish != nil {
		<-published
	}
	for _, name := range refusedAt {
		if name != "" {
			refused = append(refused, name)
		}
	}
	return slices.DeleteFunc(mods, func(m *plugin.Plugin) bool { return m == nil }), refused
}

// load reads path and loads it, unless s already serves that content from
// that path, or it failed to load before with that content under the
// current configuration: then it returns nil, nil.
func (h *Host) load(ctx context.Context, path string, s *registry.Snapshot[*plugin.Plugin]) (*plugin.Plugin, error) {
	wasm, err := h.readModule(path)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	digest := hexDigest(wasm)
	if cur, ok := loaded(s, pluginName(path)); ok && cur.Path() == path && cur.SHA256() == digest &&
		cur.Generation() == h.generation {
		h.log.Debug("plugin unchanged; not reloaded", "file", path)
		return nil, nil
	}
	if h.failedBefore(path, digest) {
		h.log.Debug("plugin unchanged since it failed to load; not tried again", "file", path)
		return nil, nil
	}
	p, err := plugin.Load(ctx, path, wasm, h.pluginOptions(path))
	if err != nil {
		if ctx.Err() == nil {
			h.recordFailure(path, digest)
			result := "failed"
			if errors.As(err, new(*trust.RefusedError)) {
				result = "refused"
			}
			h.recordLoad(ctx, pluginName(path), result)
		}
		return nil, err
	}
	h.recordLoad(ctx, p.Name(), "loaded")
	h.forgetFailure(path)
	h.open.Add(1)
	return p, nil
}

// A failure is the content and configuration a file failed to load with;
// the same file is not loaded (nor logged) again until one of them changes.
type failure struct {
	sha256     string
	generation uint64
}

func (h *Host) failedBefore(path, digest string) bool {
	h.failMu.Lock()
	defer h.failMu.Unlock()
	return h.failed[path] == failure{digest, h.generation}
}

func (h *Host) recordFailure(path, digest string) {
	h.failMu.Lock()
	defer h.failMu.Unlock()
	h.failed[path] = failure{digest, h.generation}
}

func (h *Host) forgetFailure(path string) {
	h.failMu.Lock()
	defer h.failMu.Unlock()
	delete(h.failed, path)
}

// forgetFailures drops the failures of files of the directory that are
// gone, so that the map does not grow with files that came and went.
func (h *Host) forgetFailures(present map[string]bool) {
	h.failMu.Lock()
	defer h.failMu.Unlock()
	for path := range h.failed {
		if filepath.Dir(path) == h.dir && !present[path] {
			delete(h.failed, path)
		}
	}
}

// loadFailed logs why path did not load, and returns the name of the plugin
// of s that must stop serving because of it: the one loaded from path under
// an older trust policy, which the current one refuses (Reconfigure).
// Otherwise the plugin loaded from path, if any, keeps serving. A failure
// caused by ctx ending (shutdown) is not the file's fault and is not
// reported.
func (h *Host) loadFailed(ctx context.Context, path string, err error, s *registry.Snapshot[*plugin.Plugin]) (refused string) {
	if ctx.Err() != nil {
		return ""
	}
	cur, ok := loaded(s, pluginName(path))
	switch {
	case ok && cur.Path() == path && cur.Generation() != h.generation && errors.As(err, new(*trust.RefusedError)):
		h.log.Error("plugin removed: the trust policy now refuses it", "file", path, "err", err)
		return cur.Name()
	case ok && cur.Path() == path:
		// Perhaps caught mid-write: its writer's next write reports it again.
		h.log.Error("plugin not reloaded; the previous version keeps serving", "file", path, "err", err)
	default:
		h.log.Error("plugin not loaded", "file", path, "err", err)
	}
	return ""
}

// PluginFiles returns the plugin files of dir, sorted, as LoadDir and Watch
// choose them (see the package documentation).
func PluginFiles(dir string) ([]string, error) { return watcher.Scan(dir, nil) }

// loaded is the module of that name in s.
func loaded(s *registry.Snapshot[*plugin.Plugin], name string) (*plugin.Plugin, bool) {
	return s.Plugin(name)
}

// pluginName is the name plugin.Load gives the module at path.
func pluginName(path string) string { return strings.TrimSuffix(filepath.Base(path), ".wasm") }

// hexDigest is the SHA-256 of wasm in hex, as plugin.Plugin.SHA256 reports
// it.
func hexDigest(wasm []byte) string {
	sum := sha256.Sum256(wasm)
	return hex.EncodeToString(sum[:])
}
