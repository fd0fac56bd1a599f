package host

import (
	"context"
	"sync"
	"time"

	"github.com/wasmcp/wasmcp/host/internal/plugin"
)

// relistEvery is the least time between two readings of one plugin's
// lists: a plugin saying its lists changed ten thousand times a second gets
// them read a few times a second, the last saying counted.
const relistEvery = 100 * time.Millisecond

// relister reads again the lists of the plugins that say (hyper-mcp's
// notify_*_list_changed) that they changed, at most one reading of a
// plugin at a time and one more pending, then serves what they list.
type relister struct {
	h       *Host
	mu      sync.Mutex
	pending map[string]bool // by plugin: read again once the reading in progress is over
	running map[string]bool
	closed  bool
	wg      sync.WaitGroup
}

// request asks for plugin's lists to be read again. It never blocks: a
// guest calls it.
func (r *relister) request(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if r.running == nil {
		r.running, r.pending = map[string]bool{}, map[string]bool{}
	}
	if r.running[name] {
		r.pending[name] = true
		return
	}
	r.running[name] = true
	r.wg.Add(1)
	go r.run(name)
}

// close stops taking requests and waits for the readings in progress,
// which end early once the Host's stopCtx is done.
func (r *relister) close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.wg.Wait()
}

func (r *relister) run(name string) {
	defer r.wg.Done()
	for {
		select {
		case <-time.After(relistEvery):
		case <-r.h.stopCtx.Done():
		}
		r.h.relist(r.h.stopCtx, name)
		r.mu.Lock()
		if !r.pending[name] || r.h.stopCtx.Err() != nil {
			delete(r.running, name)
			delete(r.pending, name)
			r.mu.Unlock()
			return
		}
		r.pending[name] = false
		r.mu.Unlock()
	}
}

// relist serves the lists the plugin of that name gives now; the plugin
// keeps serving as it was when they cannot be read. The guest lists them
// without h.loading held, which a listing that runs to its deadline would
// keep from every load and reconfiguration meanwhile: what it lists is
// served only if the plugin was not replaced in the meantime.
func (h *Host) relist(ctx context.Context, name string) {
	if ctx.Err() != nil {
		return
	}
	p, ok := h.reg.Snapshot().Plugin(name)
	if !ok {
		return
	}
	n, err := p.Relist(ctx)
	if err != nil {
		h.log.Warn("plugin's lists not read again: it keeps serving what it listed before", "file", p.Path(), "error", err)
		return
	}
	h.loading.Lock()
	defer h.loading.Unlock()
	if cur, ok := h.reg.Snapshot().Plugin(name); !ok || cur != p {
		return // replaced or removed while it listed; n shares p's module, which p's Close closes
	}
	p.HandOver()
	if _, err := h.reg.Update([]*plugin.Plugin{n}, nil); err == nil {
		h.log.Info("plugin's lists read again, as it asked", "file", p.Path(), "tools", len(n.Tools()))
	}
}
