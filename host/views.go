package host

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/wasmcp/wasmcp/host/internal/plugin"
	"github.com/wasmcp/wasmcp/host/internal/registry"
	"github.com/wasmcp/wasmcp/host/policy"
)

// Principal is who makes a call (policy.Principal): the policy's views
// decide which tools it lists and may call.
type Principal = policy.Principal

// ErrInsufficientScope is wrapped by the error of Call for a tool the
// principal sees but whose policy view requires a scope it lacks: a client
// can ask for the scope and try again (a step-up), which it could not for
// a tool it does not see (ErrUnknownTool).
var ErrInsufficientScope = errors.New("insufficient scope")

// ScopeError is the error of Call for a tool that needs scopes the
// principal lacks, and of GetPrompt, ReadResource and Complete for a
// prompt, resource or template that does. It wraps ErrInsufficientScope.
type ScopeError struct {
	// Tool names the tool, prompt, resource or template.
	Tool string
	// Scopes are the scopes missing, all of which the call needs.
	Scopes []string
}

func (e *ScopeError) Error() string {
	return fmt.Sprintf("tool %s needs the scope %s", e.Tool, strings.Join(e.Scopes, " "))
}

func (e *ScopeError) Unwrap() error { return ErrInsufficientScope }

// Local is the principal of a client no transport identified: the policy's
// "local" (the stdio client), subject "local" without one.
func (h *Host) Local() *Principal { return h.policy.Load().Local() }

// ToolsFor returns the served tools the principal p sees, sorted by name:
// every tool without views in the policy. The list of each view's
// principals is made once per change of the tool set.
func (h *Host) ToolsFor(p *Principal) []Tool {
	pol := h.policy.Load()
	sight := pol.Sight(p)
	if sight == nil {
		return h.Tools()
	}
	return h.sights.list(pol, h.reg.Snapshot(), sight)
}

// sightLists keeps the tool list of each sight (a set of matched views) for
// the policy and the snapshot it was made from: listing a hundred tools of
// ten thousand must not cost a walk of the ten thousand for every
// tools/list.
type sightLists struct {
	mu    sync.Mutex
	pol   *policy.Policy
	snap  *registry.Snapshot[*plugin.Plugin]
	lists map[string][]Tool
}

func (c *sightLists) list(pol *policy.Policy, s *registry.Snapshot[*plugin.Plugin], sight *policy.Sight) []Tool {
	key := sight.Views()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap != s || c.pol != pol {
		c.pol, c.snap, c.lists = pol, s, map[string][]Tool{}
	}
	if l, ok := c.lists[key]; ok {
		return slices.Clone(l)
	}
	var l []Tool
	for _, e := range s.Entries() {
		if sight.Sees(e.Plugin.Name(), e.Tool.Name) {
			l = append(l, Tool{Tool: e.Tool, Plugin: e.Plugin.Name(), SHA256: e.Plugin.SHA256()})
		}
	}
	c.lists[key] = l
	return slices.Clone(l)
}

// MissingScopes returns the scopes a call of tool by p needs that p lacks:
// none for a tool p does not see (it is unknown to it) or that needs none.
func (h *Host) MissingScopes(p *Principal, tool string) []string {
	e, ok := h.reg.Snapshot().Lookup(tool)
	if !ok {
		return nil
	}
	sight := h.policy.Load().Sight(p)
	if !sight.Sees(e.Plugin.Name(), tool) {
		return nil
	}
	return sight.Needs(p, e.Plugin.Name(), tool)
}

// checkSight returns the error of a call of tool in plugin by p: an unknown
// tool when p does not see it, a *ScopeError when it sees it without a
// scope its view requires.
func checkSight(sight *policy.Sight, p *Principal, plugin, tool string) error {
	if !sight.Sees(plugin, tool) {
		return fmt.Errorf("%w %q", ErrUnknownTool, tool)
	}
	if missing := sight.Needs(p, plugin, tool); len(missing) > 0 {
		return &ScopeError{Tool: tool, Scopes: missing}
	}
	return nil
}

// Scopes returns every scope the policy's views mention, sorted: what a
// server says it understands (RFC 9728).
func (h *Host) Scopes() []string { return h.policy.Load().Scopes() }
