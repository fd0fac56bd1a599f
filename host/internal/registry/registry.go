// Package registry maps tool names to the plugins that serve them.
//
// The registry holds an immutable Snapshot behind an atomic pointer. Readers
// (Route, Snapshot) never lock: they load the current snapshot and use it.
// Writers (Update, Close) are serialised by a mutex, build the next snapshot
// copy-on-write, publish it with one atomic store, and only then close the
// plugins they replaced or removed, in the background. A call that already
// holds the old plugin therefore finishes on it (plugin.Close drains
// in-flight calls), and a call that reaches it after it was closed gets
// plugin.ErrClosed and is retried on the snapshot that replaced it.
//
// Which plugin serves a tool that several plugins define is decided by
// claims (see resolve.go): the plugin that served a tool first keeps it, and
// claims outlive restarts when a ClaimStore persists them.
package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/plugin"
)

// Plugin is what the registry needs of a loaded module; *plugin.Plugin
// satisfies it, and the registry's tests give their own. Name identifies
// the plugin: Update with a plugin of a name already present replaces that
// plugin. A Registry holds its plugins by their own type, so that what it
// hands back needs no assertion.
type Plugin interface {
	comparable
	// Name is the plugin's file name without ".wasm", unique in a directory.
	Name() string
	// Path is the file the plugin was loaded from, used in log lines.
	Path() string
	// Tools are the plugin's tool definitions; the slice must not change.
	Tools() []abi.Tool
	// Close refuses new calls, waits for running ones, and frees the plugin.
	Close(ctx context.Context) error
}

// ErrClosed is returned by Route and Update after Close.
var ErrClosed = errors.New("registry closed")

// Options configure a Registry. The zero value is usable.
type Options struct {
	// Logger receives collision, claim and close-failure lines. Nil means
	// slog.Default().
	Logger *slog.Logger
	// Claims persists which plugin owns which tool name across restarts.
	// Nil keeps claims in memory only, so after a restart collisions are
	// decided by plugin name order again.
	Claims ClaimStore
}

// Registry is the tool index of plugins of type P. All methods are safe for
// concurrent use.
type Registry[P Plugin] struct {
	log   *slog.Logger
	store ClaimStore
	snap  atomic.Pointer[Snapshot[P]]

	mu     sync.Mutex        // serialises writers
	claims map[string]string // tool name -> plugin name; guarded by mu
	closed bool              // guarded by mu
	subs   []*subscriber[P]  // guarded by mu
	// held is set while Hold keeps the claims as they were: pending are
	// the claims the swaps since then imply, saved on release.
	held    bool
	pending map[string]string

	drains       sync.WaitGroup  // background Close of replaced plugins
	drainCtx     context.Context // their context; cancelled if Close runs out of time
	cancelDrains context.CancelFunc
}

// New returns an empty registry. Claims are read from opts.Claims now; a
// store that cannot be read is logged and treated as empty.
func New[P Plugin](opts Options) *Registry[P] {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	r := &Registry[P]{log: log, store: opts.Claims, claims: map[string]string{}}
	r.drainCtx, r.cancelDrains = context.WithCancel(context.Background())
	if r.store != nil {
		claims, err := r.store.Load()
		if err != nil {
			log.Warn("tool name claims unreadable; starting without them", "err", err)
		} else if claims != nil {
			r.claims = claims
		}
	}
	r.snap.Store(emptySnapshot[P]())
	return r
}

// Claims returns a copy of the current claims: tool name -> plugin name.
func (r *Registry[P]) Claims() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.claims)
}

// Snapshot returns the current snapshot. It never changes once returned.
func (r *Registry[P]) Snapshot() *Snapshot[P] { return r.snap.Load() }

// Update installs the plugins in put (replacing any of the same name) and
// removes the plugins named in remove, as one atomic swap, then queues the
// resulting Change for subscribers if it is not empty, and returns it.
// Replaced and removed plugins are closed in the background once the new
// snapshot is visible. Update takes ownership of put: after Close it closes
// them and returns ErrClosed.
func (r *Registry[P]) Update(put []P, remove []string) (Change[P], error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		// Never served, so no call can be in flight: closing is quick.
		for _, p := range put {
			if err := p.Close(context.Background()); err != nil {
				r.log.Warn("closing plugin loaded after close", "file", p.Path(), "err", err)
			}
		}
		return Change[P]{}, ErrClosed
	}
	old := r.snap.Load()
	plugins := make(map[string]*loaded[P], len(old.plugins)+len(put))
	for name, l := range old.plugins {
		plugins[name] = l
	}
	var retired []P
	for _, name := range remove {
		if l, ok := plugins[name]; ok {
			retired = append(retired, l.p)
			delete(plugins, name)
		}
	}
	for _, p := range put {
		if l, ok := plugins[p.Name()]; ok && l.p != p {
			retired = append(retired, l.p)
		}
		plugins[p.Name()] = newLoaded(p)
	}

	next, claims := resolve(plugins, r.claims)
	r.logOwnership(old, next)
	if r.held {
		r.pending = claims
	} else {
		r.setClaims(claims)
	}
	r.snap.Store(next)

	change := diff(old, next)
	if !change.Empty() {
		for _, s := range r.subs {
			s.fn(change)
		}
	}
	for _, p := range retired {
		r.closeInBackground(p)
	}
	return change, nil
}

// setClaims replaces the claims and saves them if they changed; r.mu is
// held.
func (r *Registry[P]) setClaims(claims map[string]string) {
	if maps.Equal(r.claims, claims) {
		return
	}
	r.claims = claims
	if r.store != nil {
		if err := r.store.Save(claims); err != nil {
			r.log.Warn("tool name claims not saved; they last until exit", "err", err)
		}
	}
}

// Hold keeps the claims as they are until release is called, so that a set
// of plugins published one swap at a time, as each finishes loading, ends in
// the snapshot one swap of them all would give: ownership of a contested
// tool is then decided by the claims and plugin names, not by which plugin
// loaded first (a plugin that arrives later may take over a name while
// held). release adopts the claims the last swap implies. Holds do not
// nest.
func (r *Registry[P]) Hold() (release func()) {
	r.mu.Lock()
	r.held = true
	r.mu.Unlock()
	return sync.OnceFunc(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.held = false
		if r.pending != nil {
			r.setClaims(r.pending)
			r.pending = nil
		}
	})
}

// closeInBackground drains and closes p without holding up the caller.
// Close waits for these, so no plugin outlives the registry.
func (r *Registry[P]) closeInBackground(p P) {
	r.drains.Add(1)
	go func() {
		defer r.drains.Done()
		if err := p.Close(r.drainCtx); err != nil {
			r.log.Warn("closing replaced plugin", "file", p.Path(), "err", err)
		}
	}()
}

// Route runs fn with the plugin serving tool now. If fn reports that the
// plugin was closed (an error wrapping plugin.ErrClosed) because it was
// swapped out between the lookup and the call, fn is run again with the
// plugin of the newer snapshot, so a tool present before and after a swap
// never fails because of it. The error is plugin.ErrUnknownTool (wrapped with the
// name) for a tool no plugin serves, ErrClosed after Close, or fn's.
func (r *Registry[P]) Route(tool string, fn func(P) error) error {
	for {
		s := r.snap.Load()
		if s.closed {
			return ErrClosed
		}
		e, ok := s.tools[tool]
		if !ok {
			return fmt.Errorf("%w %q", plugin.ErrUnknownTool, tool)
		}
		err := fn(e.Plugin)
		if errors.Is(err, plugin.ErrClosed) && r.snap.Load() != s {
			// Swapped out under us: the new snapshot was stored before
			// the old plugin was closed, so the retry sees it.
			continue
		}
		return err
	}
}

type subscriber[P Plugin] struct{ fn func(Change[P]) }

// Subscribe calls fn with the tools served now, as one Change of added
// tools (unless there are none), and then with every non-empty Change, in
// the order of the swaps. fn runs with the registry's writer lock held, in
// the goroutine of the swap, so that when Update returns its subscribers
// have seen it: fn must be quick and must not call Update, Hold or Close.
// After cancel returns, fn is not called again.
func (r *Registry[P]) Subscribe(fn func(Change[P])) (cancel func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &subscriber[P]{fn: fn}
	if now := r.snap.Load().all(); len(now) > 0 {
		fn(Change[P]{Added: now})
	}
	r.subs = append(slices.Clip(r.subs), s)
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.subs = slices.DeleteFunc(slices.Clone(r.subs), func(x *subscriber[P]) bool { return x == s })
	}
}

// Close empties the registry, closes every plugin and waits for plugins
// being closed in the background after earlier swaps. Waiting for in-flight
// calls is bounded by ctx: when it is done, the plugins are closed anyway
// and their remaining calls fail. Queued changes not yet delivered are
// dropped. Close is idempotent.
func (r *Registry[P]) Close(ctx context.Context) error {
	stop := context.AfterFunc(ctx, r.cancelDrains)
	defer stop()
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		r.drains.Wait()
		return nil
	}
	r.closed = true
	old := r.snap.Load()
	empty := emptySnapshot[P]()
	empty.closed = true
	r.snap.Store(empty)
	r.mu.Unlock()

	errs := make([]error, 0, len(old.plugins))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, l := range old.plugins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.p.Close(ctx); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("close %s: %w", l.p.Path(), err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	r.drains.Wait()
	r.cancelDrains()
	return errors.Join(errs...)
}

// logOwnership reports collisions that appear and tools whose owner changes
// between two snapshots, so a log reader learns about each event once.
func (r *Registry[P]) logOwnership(old, next *Snapshot[P]) {
	before := make(map[Refusal]bool, len(old.refused))
	for _, f := range old.refused {
		before[f] = true
	}
	for _, f := range next.refused {
		if before[f] {
			continue
		}
		r.log.Warn("tool name collision: tool refused, another module serves it",
			"tool", f.Tool, "file", next.plugins[f.Plugin].p.Path(), "served_by", next.plugins[f.Owner].p.Path())
	}
	for _, u := range next.unviewed {
		if !slices.Contains(old.unviewed, u) {
			r.log.Warn("tool served without its app view: another module serves the view's URI",
				"tool", u.tool, "view", u.view, "file", u.plugin.Path(), "served_by", u.owner.Path())
		}
	}
	if r.held {
		// Names move to the modules that sort first as they arrive; the
		// refusals above say where each ended.
		return
	}
	for name, e := range next.tools {
		prev, ok := old.tools[name]
		if !ok || prev.Plugin.Name() == e.Plugin.Name() {
			continue
		}
		r.log.Info("tool name claim moved: the previous owner no longer defines it",
			"tool", name, "from", prev.Plugin.Path(), "to", e.Plugin.Path())
	}
}
