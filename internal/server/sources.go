package server

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/oci"
)

// sources serves the modules that -plugin and the config's "sources" name
// by reference: each is fetched into the module cache and its cached file
// loaded beside the directory's modules (host.LoadFile), under the plugin
// name of its repository's last component. A tag is resolved again on each
// sync; a module that changed replaces the one served, as a changed file
// does, and a reference no longer listed stops serving.
type sources struct {
	fetcher *oci.Fetcher
	logger  *slog.Logger
	dir     string // the served directory ("" for none)
	flags   []string
	// mu serialises syncs (start-up, SIGHUP) and guards served.
	mu sync.Mutex
	// served is the cached file each reference serves, by reference.
	served map[string]string
}

// refs are the references to serve under pol: -plugin's first, then the
// config's, without duplicates.
func (s *sources) refs(configured []string) []string {
	var refs []string
	for _, r := range append(slices.Clone(s.flags), configured...) {
		if !slices.Contains(refs, r) {
			refs = append(refs, r)
		}
	}
	return refs
}

// sync fetches every reference, in parallel, and loads the modules they
// name, then unloads those of references no longer listed. A reference that
// cannot be fetched, and was never cached, is one error line and is not
// served; the rest are.
func (s *sources) sync(ctx context.Context, h *host.Host, refs []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.served == nil {
		s.served = map[string]string{}
	}
	defer s.unloadRemoved(h, refs)
	fetched := make([]oci.Fetched, len(refs))
	errs := make([]error, len(refs))
	var wg sync.WaitGroup
	for i, ref := range refs {
		wg.Go(func() { fetched[i], errs[i] = s.fetcher.Fetch(ctx, ref) })
	}
	wg.Wait()
	names := map[string]string{} // plugin name → the reference that has it
	for i, ref := range refs {
		if ctx.Err() != nil {
			return
		}
		f, err := fetched[i], errs[i]
		if err != nil {
			s.logger.Error("plugin not loaded", "ref", ref, "err", err)
			continue
		}
		if other, ok := names[f.Name]; ok {
			s.logger.Error("plugin not loaded: another reference has its name", "ref", ref, "plugin", f.Name, "other", other)
			continue
		}
		names[f.Name] = ref
		if s.dir != "" {
			if _, err := os.Stat(filepath.Join(s.dir, f.Name+".wasm")); err == nil {
				s.logger.Error("plugin not loaded: the directory has a module of its name", "ref", ref, "plugin", f.Name, "dir", s.dir)
				continue
			}
		}
		if f.Stale != nil {
			s.logger.Warn("registry unreachable; serving the cached copy", "ref", ref, "manifest", f.Manifest, "err", f.Stale)
		}
		if err := h.LoadFile(ctx, f.Path); err != nil {
			if ctx.Err() == nil {
				s.logger.Error("plugin not loaded", "ref", ref, "manifest", f.Manifest, "err", err)
			}
			continue
		}
		s.served[ref] = f.Path
		s.logger.Info("plugin from registry", "ref", ref, "plugin", f.Name, "manifest", f.Manifest, "sha256", f.Layer.Encoded())
	}
}

// unloadRemoved stops serving the modules of references not in refs. One
// whose plugin name a listed reference has taken since is left alone:
// UnloadFile removes a plugin only if it still serves that file.
func (s *sources) unloadRemoved(h *host.Host, refs []string) {
	for ref, path := range s.served {
		if slices.Contains(refs, ref) {
			continue
		}
		delete(s.served, ref)
		if err := h.UnloadFile(path); err != nil {
			s.logger.Error("plugin not unloaded", "ref", ref, "err", err)
			continue
		}
		s.logger.Info("reference no longer a source", "ref", ref)
	}
}
