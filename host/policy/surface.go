package policy

import (
	"fmt"
	"path"

	"github.com/wasmcp/wasmcp/abi"
)

// Surface is which of a plugin's tools are served, and under which names:
// its policy section's "tools". The operator keeps a model's tool list short
// (clients cap how many tools they take, and every definition costs context)
// and settles collisions between plugins without touching them.
//
//	"tools": {"allow": ["get-*", "echo"], "deny": ["get-error"],
//	          "rename": {"get-sum": "sum"}, "prefix": "ev_"}
type Surface struct {
	// Allow are globs (path.Match, on the tool names the module gives) of
	// the tools served; none allows every tool.
	Allow []string `json:"allow,omitempty"`
	// Deny are globs of tools not served, whatever Allow says.
	Deny []string `json:"deny,omitempty"`
	// Rename serves a tool, by the name the module gives, under another.
	Rename map[string]string `json:"rename,omitempty"`
	// Prefix goes before the name of every served tool not renamed.
	Prefix string `json:"prefix,omitempty"`
}

// Serve says whether the tool the module calls name is served, and under
// which name. A name served must still be a valid tool name (the loader
// checks it).
func (s *Surface) Serve(name string) (served string, ok bool) {
	if s == nil {
		return name, true
	}
	if len(s.Allow) > 0 && !matchAny(s.Allow, name) {
		return "", false
	}
	if matchAny(s.Deny, name) {
		return "", false
	}
	if to, ok := s.Rename[name]; ok {
		return to, true
	}
	return s.Prefix + name, true
}

// check validates the globs and the names the surface gives.
func (s *Surface) check() error {
	if s == nil {
		return nil
	}
	for _, list := range [][]string{s.Allow, s.Deny} {
		for _, g := range list {
			if _, err := path.Match(g, ""); err != nil {
				return fmt.Errorf("tools: glob %q: %w", g, err)
			}
		}
	}
	for from, to := range s.Rename {
		if !abi.ValidToolName(to) {
			return fmt.Errorf("tools: rename %q to %q: not a tool name (1-%d characters of A-Z a-z 0-9 _ . -)", from, to, abi.MaxToolNameLen)
		}
	}
	if s.Prefix != "" && !abi.ValidToolName(s.Prefix) {
		return fmt.Errorf("tools: prefix %q: not made of tool name characters (A-Z a-z 0-9 _ . -)", s.Prefix)
	}
	return nil
}

// Surface returns the tool surface of the plugin named plugin; nil serves
// every tool under its own name.
func (p *Policy) Surface(plugin string) *Surface { return p.settings(plugin).Tools }

// matchAny reports whether name matches one of globs.
func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}
