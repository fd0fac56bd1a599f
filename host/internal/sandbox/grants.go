package sandbox

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental/sysfs"

	"github.com/wasmcp/wasmcp/host/internal/egress"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/mountfs"
	"github.com/wasmcp/wasmcp/host/policy"
)

// configure adds g to cfg, and returns the mounts it opened, which stay
// open until the module is released. sleepCap bounds one sleep of the guest:
// wazero cannot interrupt a host sleep when the call's deadline passes, so a
// guest granted the real clock may overrun its deadline by at most one
// sleepCap.
func configure(g policy.Grants, cfg wazero.ModuleConfig, sleepCap time.Duration) (wazero.ModuleConfig, []*mountfs.FS, error) {
	for _, e := range g.Env {
		cfg = cfg.WithEnv(e.Name, e.Value)
	}
	var mounts []*mountfs.FS
	if len(g.Mounts) > 0 {
		fsc := wazero.NewFSConfig().(sysfs.FSConfig)
		var out wazero.FSConfig
		for _, m := range g.Mounts {
			fs, err := mountfs.Open(m, g.Clock)
			if err != nil {
				closeMounts(mounts)
				return nil, nil, err
			}
			mounts = append(mounts, fs)
			out = fsc.WithSysFSMount(fs, m.GuestPath)
			fsc = out.(sysfs.FSConfig)
		}
		cfg = cfg.WithFSConfig(out)
	}
	if g.Clock {
		cfg = cfg.WithSysWalltime().WithSysNanotime().WithNanosleep(func(ns int64) {
			time.Sleep(min(time.Duration(ns), sleepCap))
		})
	}
	if g.Random {
		cfg = cfg.WithRandSource(rand.Reader)
	}
	return cfg, mounts, nil
}

func closeMounts(mounts []*mountfs.FS) {
	for _, m := range mounts {
		_ = m.Close()
	}
}

// SetGrants makes every instance created from now on run with g, and closes
// the idle instances, which were created without it. The loader calls it
// once, after the describe document (read in an instance without grants)
// has said what the module asks for, and before the first call; it is safe
// to call at any time, though: calls already running keep their instance's
// sandbox, and the mounts of earlier grants stay open for them until the
// module is released.
func (m *Module) SetGrants(ctx context.Context, g policy.Grants) error {
	if err := g.Validate(); err != nil {
		return fmt.Errorf("grants for %s: %w", m.name, err)
	}
	client, err := m.netClient(g.Net)
	if err != nil {
		return fmt.Errorf("grants for %s: %w", m.name, err)
	}
	cfg, mounts, err := configure(g, m.opts.moduleConfig(), m.opts.Limits.Timeout)
	if err != nil {
		return fmt.Errorf("grants for %s: %w", m.name, err)
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		closeMounts(mounts)
		return fmt.Errorf("grants for %s: %w", m.name, ErrClosed)
	}
	m.config, m.net = cfg, client
	m.nets = append(m.nets, client)
	m.mounts = append(m.mounts, mounts...)
	idle := m.idle
	m.idle = nil
	m.mu.Unlock()
	for _, in := range idle {
		_ = in.mod.Close(ctx)
	}
	return nil
}

// moduleConfigNow is the module configuration and the HTTP client new
// instances get, read under the lock because SetGrants may change them.
func (m *Module) moduleConfigNow() (wazero.ModuleConfig, *egress.Client) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.config, m.net
}

// netClient returns the client of wasmcp.http_request for n.
func (m *Module) netClient(n policy.Net) (*egress.Client, error) {
	return egress.New(m.name, n, egress.Options{Logger: m.opts.Logger, Resolver: m.opts.Resolver, Instruments: m.opts.Instruments})
}
