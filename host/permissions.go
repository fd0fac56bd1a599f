package host

import (
	"os"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/admission"
	"github.com/wasmcp/wasmcp/host/internal/plugin"
	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/host/trust"
)

// WithPolicy sets the operator's policy: per-plugin limits, which replace
// the Config's for the plugins they name, and the capabilities modules may
// be granted (see package policy). Nil, the default, grants nothing.
func (c Config) WithPolicy(p *policy.Policy) Config { c.policy = p; return c }

// WithTrust sets locked-down mode: every module file, whenever it is
// loaded or reloaded, must be allowed by p (pinned in its lock file and, with
// keys, signed) or it is refused with a log line naming the file and its
// digest. The check runs on the bytes that are then compiled, never on a
// second read. Nil, the default, allows every module.
func (c Config) WithTrust(p *trust.Verifier) Config { c.trust = p; return c }

// readModule reads the module file at path, through the trust policy in
// locked-down mode.
func (h *Host) readModule(path string) ([]byte, error) {
	if h.locked() {
		return h.cfg.trust.ReadModule(path)
	}
	return os.ReadFile(path)
}

// locked reports whether the Host runs in locked-down mode (WithTrust).
func (h *Host) locked() bool { return h.cfg.trust != nil && h.cfg.trust.Locked() }

// pluginOptions are the options of the module at path: the Host's, with the
// policy's limits for its name and its permissions decided by the policy,
// under the Host's generation. A plugin loaded with them counts as open
// (h.open) until it is closed.
func (h *Host) pluginOptions(path string) plugin.Options {
	opts := h.opts
	opts.Generation = h.generation
	opts.Closed = func() { h.open.Add(-1) }
	name := pluginName(path)
	l := h.cfg.policy.Limits(name)
	if l.Memory > 0 {
		opts.Sandbox.Limits.MemoryPages = uint32(l.Memory / pageSize)
	}
	if l.Timeout > 0 {
		opts.Sandbox.Limits.Timeout = l.Timeout
	}
	if l.MaxOutput > 0 {
		opts.Sandbox.Limits.MaxOutput = l.MaxOutput
	}
	opts.Sandbox.Config = h.cfg.policy.Config(name)
	secrets, unset := h.cfg.policy.Secrets(name)
	if len(unset) > 0 {
		h.log.Warn("secrets of the policy not given to the plugin", "file", path, "left_out", unset)
	}
	opts.Sandbox.Secrets = secrets
	opts.Sandbox.ListChanged = func(string) { h.relists.request(name) }
	opts.Surface = h.cfg.policy.Surface(name)
	a := h.cfg.policy.Admission(name)
	opts.Admission = admission.PluginLimits{Concurrency: a.Concurrency, Rate: admission.Rate{PerSecond: a.Rate}}
	opts.Implicit = h.cfg.policy.Offer(name)
	opts.Permit = func(requested *abi.Permissions) (policy.Grants, error) {
		g, denied := h.cfg.policy.Grant(name, requested)
		if len(denied) > 0 {
			h.log.Warn("permissions requested and not granted by the policy", "file", path, "denied", denied)
		}
		return g, nil
	}
	return opts
}
