package plugin

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/policy"
)

// Bounds of a permissions request (ABI.md section 4).
const (
	maxFSPermissions  = 64
	maxEnvPermissions = 256
	maxNetPermissions = 256
)

// PermitFunc decides what a module gets of what it requested (nil when its
// describe document has no permissions). It returns the grants its
// instances get; anything not in its result is denied. Load refuses the
// module when it returns an error.
type PermitFunc func(requested *abi.Permissions) (policy.Grants, error)

// Requested is the permissions object of the module's describe document, nil
// when it has none. Callers must not modify it.
func (p *Plugin) Requested() *abi.Permissions { return p.requested }

// Granted is what the module's call instances run with.
func (p *Plugin) Granted() policy.Grants { return p.granted }

// standIns are the WASI imports that read something the sandbox replaces
// with a stand-in unless a grant gives the real one: the policy key that
// grants it, and what the module reads without it.
var standIns = []struct {
	imports        []string
	grant, without string
}{
	{[]string{"clock_time_get", "clock_res_get"}, "clock", "a fixed clock that starts at 2022-01-01T00:00:00Z"},
	{[]string{"random_get"}, "random", "the same random bytes on every start"},
}

// StandIns says, for a module that cannot ask for permissions (an Extism
// plugin), which of its WASI imports read a stand-in because its policy
// section does not grant the real thing, naming the import and the policy
// key that grants it. A wasmcp module that imports the clock without asking
// for it chose the stand-in, and is not named.
func (p *Plugin) StandIns() []string { return p.standIns }

// findStandIns returns what StandIns reports of a module with imports
// (Info.Imports lines) and grants g.
func findStandIns(imports []string, g policy.Grants) []string {
	var out []string
	for _, s := range standIns {
		if (s.grant == "clock" && g.Clock) || (s.grant == "random" && g.Random) {
			continue
		}
		for _, name := range s.imports {
			prefix := "wasi_snapshot_preview1." + name + ":"
			if slices.ContainsFunc(imports, func(line string) bool { return strings.HasPrefix(line, prefix) }) {
				out = append(out, fmt.Sprintf("imports wasi_snapshot_preview1.%s but its policy section does not set %q: true, so it reads %s",
					name, s.grant, s.without))
				break
			}
		}
	}
	return out
}

// permit asks permit for the grants and gives them to the module's future
// instances. The instance that ran describe had none; SetGrants closes it.
func (p *Plugin) permit(ctx context.Context, permit PermitFunc) error {
	if permit == nil {
		return nil
	}
	g, err := permit(p.requested)
	if err != nil {
		return fmt.Errorf("permissions: %w", err)
	}
	if g.IsZero() {
		return nil
	}
	p.granted = g
	return p.mod.SetGrants(ctx, g)
}

// validatePermissions checks a permissions request against ABI.md section 4.
func validatePermissions(r *abi.Permissions) error {
	if r == nil {
		return nil
	}
	if len(r.FS) > maxFSPermissions {
		return fmt.Errorf("%d fs entries, more than %d", len(r.FS), maxFSPermissions)
	}
	if len(r.Env) > maxEnvPermissions {
		return fmt.Errorf("%d env entries, more than %d", len(r.Env), maxEnvPermissions)
	}
	var seen []string
	for _, f := range r.FS {
		if !path.IsAbs(f.Path) || path.Clean(f.Path) != f.Path {
			return fmt.Errorf("fs path %q is not an absolute clean path", f.Path)
		}
		if slices.Contains(seen, f.Path) {
			return fmt.Errorf("fs path %s requested twice", f.Path)
		}
		seen = append(seen, f.Path)
	}
	for _, name := range r.Env {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			return errors.New("env names must be non-empty, without '=' or NUL")
		}
	}
	if len(r.Net) > maxNetPermissions {
		return fmt.Errorf("%d net entries, more than %d", len(r.Net), maxNetPermissions)
	}
	for _, o := range r.Net {
		if _, err := policy.ParseOrigin(o); err != nil {
			return fmt.Errorf("net: %w", err)
		}
	}
	return nil
}
