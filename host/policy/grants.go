package policy

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
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
	// Net is what the guest may reach with wasmcp.http_request. Without it
	// every request is denied.
	Net Net
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
	return len(g.Mounts) == 0 && len(g.Env) == 0 && !g.Clock && !g.Random && g.Net.IsZero()
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
