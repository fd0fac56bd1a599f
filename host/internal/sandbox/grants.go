package sandbox

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental/sysfs"
)

// Grants are the capabilities an operator's policy gives a module's
// instances beyond the closed sandbox of ABI.md section 6. The zero value
// grants nothing.
type Grants struct {
	// Mounts are host directories the guest sees as preopened directories,
	// in this order (the first is file descriptor 3).
	Mounts []Mount
	// Env are the environment variables the guest sees, in this order.
	Env []EnvVar
	// Clock gives the guest the host's wall clock, monotonic clock and real
	// sleeps. Without it both clocks are wazero's deterministic fakes and a
	// sleep returns at once.
	Clock bool
	// Random gives the guest crypto/rand. Without it random_get returns a
	// deterministic sequence.
	Random bool
}

// Mount is one host directory visible to the guest.
type Mount struct {
	// HostPath is the directory on the host.
	HostPath string `json:"host"`
	// GuestPath is where the guest sees it: an absolute, clean path.
	GuestPath string `json:"guest"`
	// Write allows the guest to create, change and remove files under it.
	// Without it the mount is read-only.
	Write bool `json:"write,omitempty"`
}

// EnvVar is one environment variable visible to the guest.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// IsZero reports whether g grants nothing.
func (g Grants) IsZero() bool {
	return len(g.Mounts) == 0 && len(g.Env) == 0 && !g.Clock && !g.Random
}

// Validate reports the first grant that cannot be given: a host path that is
// not a directory, a guest path that is not absolute and clean or is mounted
// twice, an environment variable name that is empty or holds "=" or NUL.
func (g Grants) Validate() error {
	var guests []string
	for _, m := range g.Mounts {
		if !path.IsAbs(m.GuestPath) || path.Clean(m.GuestPath) != m.GuestPath {
			return fmt.Errorf("mount %s: guest path %q is not an absolute clean path", m.HostPath, m.GuestPath)
		}
		if slices.Contains(guests, m.GuestPath) {
			return fmt.Errorf("mount %s: guest path %s is mounted twice", m.HostPath, m.GuestPath)
		}
		guests = append(guests, m.GuestPath)
		if !filepath.IsAbs(m.HostPath) {
			return fmt.Errorf("mount %s: host path is not absolute", m.HostPath)
		}
		fi, err := os.Stat(m.HostPath)
		if err != nil {
			return fmt.Errorf("mount %s: %w", m.HostPath, err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("mount %s: not a directory", m.HostPath)
		}
	}
	for _, e := range g.Env {
		if e.Name == "" || strings.ContainsAny(e.Name, "=\x00") || strings.ContainsRune(e.Value, 0) {
			return fmt.Errorf("environment variable %q: a name must be non-empty without '=' or NUL, a value without NUL", e.Name)
		}
	}
	return nil
}

// configure adds g to cfg, and returns the mounts it opened, which stay
// open until the module is released. sleepCap bounds one sleep of the guest:
// wazero cannot interrupt a host sleep when the call's deadline passes, so a
// guest granted the real clock may overrun its deadline by at most one
// sleepCap.
func (g Grants) configure(cfg wazero.ModuleConfig, sleepCap time.Duration) (wazero.ModuleConfig, []*mountFS, error) {
	for _, e := range g.Env {
		cfg = cfg.WithEnv(e.Name, e.Value)
	}
	var mounts []*mountFS
	if len(g.Mounts) > 0 {
		fsc := wazero.NewFSConfig().(sysfs.FSConfig)
		var out wazero.FSConfig
		for _, m := range g.Mounts {
			fs, err := openMount(m, g.Clock)
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

func closeMounts(mounts []*mountFS) {
	for _, m := range mounts {
		_ = m.root.Close()
	}
}

// SetGrants makes every instance created from now on run with g, and closes
// the idle instances, which were created without it. The loader calls it
// once, after the describe document (read in an instance without grants)
// has said what the module asks for, and before the first call; it is safe
// to call at any time, though: calls already running keep their instance's
// sandbox, and the mounts of earlier grants stay open for them until the
// module is released.
func (m *Module) SetGrants(ctx context.Context, g Grants) error {
	if err := g.Validate(); err != nil {
		return fmt.Errorf("grants for %s: %w", m.name, err)
	}
	cfg, mounts, err := g.configure(m.opts.moduleConfig(), m.opts.Limits.Timeout)
	if err != nil {
		return fmt.Errorf("grants for %s: %w", m.name, err)
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		closeMounts(mounts)
		return fmt.Errorf("grants for %s: %w", m.name, ErrClosed)
	}
	m.config = cfg
	m.mounts = append(m.mounts, mounts...)
	idle := m.idle
	m.idle = nil
	m.mu.Unlock()
	for _, in := range idle {
		_ = in.mod.Close(ctx)
	}
	return nil
}

// moduleConfigNow is the module configuration new instances get, read under
// the lock because SetGrants may change it.
func (m *Module) moduleConfigNow() wazero.ModuleConfig {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.config
}
