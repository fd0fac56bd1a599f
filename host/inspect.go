package host

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/plugin"
	"github.com/wasmcp/wasmcp/host/internal/registry"
	"github.com/wasmcp/wasmcp/host/internal/watcher"
	"github.com/wasmcp/wasmcp/host/policy"
)

// Report is what Inspect learns about a module file.
type Report struct {
	// Path is the absolute path of the file.
	Path string `json:"path"`
	// SHA256 is the hex SHA-256 of its content.
	SHA256 string `json:"sha256"`
	// Size is its length in bytes.
	Size int64 `json:"size"`
	// Kind is "wasmcp" for a module of the wasmcp ABI, "extism" for an
	// Extism plugin (ABI.md section 9); empty if it did not load.
	Kind string `json:"kind,omitempty"`
	// ABIVersion is what the module's wasmcp_abi_version returned; zero if
	// it did not get that far, or for an Extism plugin.
	ABIVersion uint32 `json:"abiVersion,omitempty"`
	// Protocol is an Extism plugin's hyper-mcp plugin protocol, 1 or 2.
	Protocol int `json:"protocol,omitempty"`
	// Tools are the module's definitions, as a client would see them.
	Tools []abi.Tool `json:"tools,omitempty"`
	// Resources, ResourceTemplates and Prompts are what it offers besides
	// (ABI.md section 4, "Resources and prompts").
	Resources         []abi.Resource         `json:"resources,omitempty"`
	ResourceTemplates []abi.ResourceTemplate `json:"resourceTemplates,omitempty"`
	Prompts           []abi.Prompt           `json:"prompts,omitempty"`
	// DroppedOrigins are the CSP origins of its app views that its grants
	// do not cover: clients do not get them.
	DroppedOrigins []string `json:"droppedOrigins,omitempty"`
	// Imports and Exports are "name: signature" lines, sorted.
	Imports []string `json:"imports,omitempty"`
	Exports []string `json:"exports,omitempty"`
	// Loadable reports whether the module loads with the Config's limits.
	Loadable bool `json:"loadable"`
	// Problem says why it does not, naming the file, the tool and the rule.
	Problem string `json:"problem,omitempty"`
	// Requested is the module's permissions request, Granted what the
	// Config's policy grants of it (without variable values), Denied what
	// it does not, in words such as "fs /data" or "clock".
	Requested *abi.Permissions `json:"requested,omitempty"`
	Granted   *abi.Permissions `json:"granted,omitempty"`
	Denied    []string         `json:"denied,omitempty"`
	// StandIns are the imports of an Extism plugin that read a stand-in
	// (a fixed clock, fixed random bytes) because the policy does not grant
	// the real thing, each naming the import and the policy key.
	StandIns []string `json:"standIns,omitempty"`
	// Refused are the collisions the module would be in if it were added
	// to the Config's directory while a Host serves it: its tools that
	// another module owns (File is this module), and the tools it owns that
	// others define (Owner is this module). It is empty without a
	// directory.
	Refused []Refusal `json:"refused,omitempty"`
}

// Inspect loads the module at path on its own, with cfg's limits, reports
// what it is and whether it loads, and closes it. The error is for an
// unreadable file or an invalid cfg; a module that does not load is a
// Report with Loadable false and the reason in Problem.
//
// If cfg has a plugin directory, Inspect also loads the directory's modules
// and reports the collisions path would be in if it were dropped into the
// directory of a running Host: the directory's modules are loaded first,
// under the directory's claims, then path arrives, as a newcomer or as a
// new version of the module of its name. Nothing is served and the claims
// are not changed.
func Inspect(ctx context.Context, cfg Config, path string) (*Report, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("inspect %s: %w", path, err)
	}
	wasm, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("inspect: %w", err)
	}
	h, err := New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer h.Close(ctx)

	r := &Report{Path: abs, SHA256: hexDigest(wasm), Size: int64(len(wasm))}
	// In locked-down mode the module is checked as serve would check it,
	// on the bytes of a read of its own; a refusal is the report's problem.
	if h.locked() {
		if wasm, err = h.readModule(abs); err != nil {
			r.Problem = err.Error()
			return r, nil
		}
		r.SHA256, r.Size = hexDigest(wasm), int64(len(wasm))
	}
	p, err := plugin.Load(ctx, abs, wasm, h.pluginOptions(abs))
	if err != nil {
		r.Problem = err.Error()
		return r, nil
	}
	info := p.Info()
	r.Loadable, r.Tools = true, p.Tools()
	r.Resources, r.ResourceTemplates, r.Prompts, r.DroppedOrigins = p.Resources(), p.ResourceTemplates(), p.Prompts(), p.DroppedOrigins()
	r.Requested, r.Granted = p.Requested(), policy.Summary(p.Granted())
	_, r.Denied = h.cfg.policy.Grant(p.Name(), p.Requested())
	r.StandIns = p.StandIns()
	r.ABIVersion, r.Protocol, r.Imports, r.Exports = info.ABIVersion, info.Protocol, info.Imports, info.Exports
	r.Kind = string(info.Kind)
	h.open.Add(1)
	target := p
	if h.dir == "" {
		return r, target.Close(ctx)
	}
	r.Refused, err = h.collisions(ctx, target)
	return r, err
}

// collisions resolves target together with the modules of h's directory
// under the directory's claims, in a registry of its own, and returns the
// refusals involving target. It closes every module it loaded, and target.
func (h *Host) collisions(ctx context.Context, target *plugin.Plugin) ([]Refusal, error) {
	paths, err := watcher.Scan(h.dir, nil)
	if err != nil {
		target.Close(ctx)
		return nil, fmt.Errorf("inspect: %w", err)
	}
	var others []string
	for _, p := range paths {
		if pluginName(p) != target.Name() {
			others = append(others, p)
		}
	}
	mods, _ := h.loadAll(ctx, others, h.reg.Snapshot(), nil)
	sim := registry.New[*plugin.Plugin](registry.Options{
		Logger: slog.New(slog.DiscardHandler), // the collisions are the report
		Claims: frozenClaims(h.reg.Claims()),
	})
	// The directory's modules first, as a running Host would serve them;
	// then target arrives, as a newcomer or as a new version of the module
	// of its name.
	// Update fails only on a closed registry, and sim is not closed.
	_, _ = sim.Update(mods, nil)
	_, _ = sim.Update([]*plugin.Plugin{target}, nil)
	var out []Refusal
	for _, f := range refusals(sim.Snapshot()) {
		if f.File == target.Path() || f.Owner == target.Path() {
			out = append(out, f)
		}
	}
	return out, sim.Close(ctx)
}

// frozenClaims is a ClaimStore that is read but never written, for
// deciding collisions without recording the outcome.
type frozenClaims map[string]string

func (f frozenClaims) Load() (map[string]string, error) { return maps.Clone(f), nil }
func (frozenClaims) Save(map[string]string) error       { return nil }
