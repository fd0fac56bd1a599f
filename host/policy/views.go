package policy

import (
	"errors"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"
)

// A Principal is who makes a call: the subject and client of a verified
// access token with its scopes and claims, or the one local principal of
// stdio (the file's "local"). Views decide which tools it may list and call.
type Principal struct {
	Issuer   string
	Subject  string
	ClientID string
	Scopes   []string
	// Claims are the token's claims, for views that match one (groups,
	// roles, ...). Values are as JSON decodes them.
	Claims map[string]any
}

// Key identifies the principal, for sealed state and the sessions bound to
// it: issuer, subject and client.
func (p *Principal) Key() string {
	if p == nil {
		return ""
	}
	return p.Issuer + "\x00" + p.Subject + "\x00" + p.ClientID
}

// HasScope reports whether p was granted scope.
func (p *Principal) HasScope(scope string) bool { return p != nil && slices.Contains(p.Scopes, scope) }

// View is one entry of the file's "views": the principals it applies to,
// the tools it shows them and the scopes a call of some of them needs.
//
//	"views": [
//	  {"name": "admins", "match": {"scopes": ["mcp:admin"]}, "allow": ["*"]},
//	  {"name": "eng", "match": {"claims": {"groups": ["engineering"]}},
//	   "allow": ["jq/*", "text/*", "fetch/*"], "deny": ["text/unified_diff"],
//	   "require": {"fetch/*": ["tools:net"]}}
//	]
//
// Tools are named "plugin/tool", by the name they are served under, and
// matched with path.Match globs on each part ("jq/*", "*/echo",
// "text/regex_*"); a glob without "/" names whole plugins ("jq", "*" for
// every tool). A principal sees
// what the views it matches allow, less what any of them denies; without
// "views" in the file every principal sees every tool, and with them a
// principal no view matches sees none.
type View struct {
	// Name names the view in audit lines and metrics, where a principal's
	// own identifiers would be unbounded.
	Name  string   `json:"name"`
	Match Match    `json:"match"`
	Allow []string `json:"allow"`
	Deny  []string `json:"deny,omitempty"`
	// Require maps globs of tools to the scopes a call of them needs: a
	// principal that sees such a tool but lacks a scope is told which to
	// ask for (a step-up), rather than that the tool does not exist.
	Require map[string][]string `json:"require,omitempty"`
}

// Match says which principals a view applies to: those with any of the
// listed scopes, subjects or clients, or a claim holding any of the listed
// values. "any": true matches every principal.
type Match struct {
	Any      bool                `json:"any,omitempty"`
	Scopes   []string            `json:"scopes,omitempty"`
	Subjects []string            `json:"subjects,omitempty"`
	Clients  []string            `json:"clients,omitempty"`
	Claims   map[string][]string `json:"claims,omitempty"`
}

func (m *Match) matches(p *Principal) bool {
	if m.Any {
		return true
	}
	if p == nil {
		return false
	}
	if slices.ContainsFunc(m.Scopes, p.HasScope) || slices.Contains(m.Subjects, p.Subject) ||
		slices.Contains(m.Clients, p.ClientID) {
		return true
	}
	for claim, want := range m.Claims {
		for _, v := range claimValues(p.Claims[claim]) {
			if slices.Contains(want, v) {
				return true
			}
		}
	}
	return false
}

// claimValues are the strings of a claim: a string, or the strings of an
// array (groups and roles come as either); a space-separated string counts
// as its words, as scope claims are written.
func claimValues(v any) []string {
	switch v := v.(type) {
	case string:
		return strings.Fields(v)
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	case []string:
		return v
	}
	return nil
}

func (v *View) check() error {
	if v.Name == "" {
		return errors.New("a view needs a name")
	}
	m := v.Match
	if !m.Any && len(m.Scopes) == 0 && len(m.Subjects) == 0 && len(m.Clients) == 0 && len(m.Claims) == 0 {
		return fmt.Errorf("view %s matches no principal: give match.scopes, subjects, clients, claims or any", v.Name)
	}
	globs := slices.Concat(v.Allow, v.Deny)
	for g := range v.Require {
		globs = append(globs, g)
	}
	for _, g := range globs {
		pg, tg, _ := strings.Cut(g, "/")
		_, err1 := path.Match(pg, "")
		_, err2 := path.Match(tg, "")
		if err := errors.Join(err1, err2); err != nil || strings.Count(g, "/") > 1 {
			return fmt.Errorf("view %s: %q is not a glob of plugin/tool", v.Name, g)
		}
	}
	return nil
}

// Sight is what one principal may see and call under the policy's views.
// A nil *Sight sees every tool and needs no scope.
type Sight struct {
	names   []string // the views that matched, for audit lines
	allow   []string
	deny    []string
	require map[string][]string
}

// Sight returns what p sees: nil (everything) when the file has no views.
func (pol *Policy) Sight(p *Principal) *Sight {
	if pol == nil || len(pol.views) == 0 {
		return nil
	}
	s := &Sight{require: map[string][]string{}}
	for i := range pol.views {
		v := &pol.views[i]
		if !v.Match.matches(p) {
			continue
		}
		s.names = append(s.names, v.Name)
		s.allow = append(s.allow, v.Allow...)
		s.deny = append(s.deny, v.Deny...)
		for g, scopes := range v.Require {
			s.require[g] = append(s.require[g], scopes...)
		}
	}
	return s
}

// Local is the principal of a client that authenticates nowhere, over
// stdio: the file's "local", or a principal of subject "local".
func (pol *Policy) Local() *Principal {
	if pol != nil && pol.local != nil {
		return pol.local
	}
	return &Principal{Subject: "local"}
}

// Sees reports whether the tool served as tool by plugin is in sight.
func (s *Sight) Sees(plugin, tool string) bool {
	if s == nil {
		return true
	}
	return matchTool(s.allow, plugin, tool) && !matchTool(s.deny, plugin, tool)
}

// matchTool reports whether one of globs names the tool of plugin: a glob
// "p/t" matches plugin with p and tool with t, a glob "p" every tool of a
// plugin it matches.
func matchTool(globs []string, plugin, tool string) bool {
	for _, g := range globs {
		pg, tg, hasTool := strings.Cut(g, "/")
		if ok, _ := path.Match(pg, plugin); !ok {
			continue
		}
		if !hasTool {
			return true
		}
		if ok, _ := path.Match(tg, tool); ok {
			return true
		}
	}
	return false
}

// Needs returns the scopes a call of the tool needs that p lacks, sorted.
func (s *Sight) Needs(p *Principal, plugin, tool string) []string {
	if s == nil {
		return nil
	}
	var missing []string
	for g, scopes := range s.require {
		if !matchTool([]string{g}, plugin, tool) {
			continue
		}
		for _, sc := range scopes {
			if !p.HasScope(sc) && !slices.Contains(missing, sc) {
				missing = append(missing, sc)
			}
		}
	}
	slices.Sort(missing)
	return missing
}

// Views names the views that matched, sorted as the file lists them; "" for
// everything in sight (no views).
func (s *Sight) Views() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.names, ",")
}

// SameViews reports whether pol and other show every principal the same
// tools: their views and local principal are equal.
func (pol *Policy) SameViews(other *Policy) bool {
	var a, b *Policy
	if pol != nil {
		a = &Policy{views: pol.views, local: pol.local}
	}
	if other != nil {
		b = &Policy{views: other.views, local: other.local}
	}
	if a == nil || b == nil {
		return (a == nil || len(a.views) == 0 && a.local == nil) && (b == nil || len(b.views) == 0 && b.local == nil)
	}
	return reflect.DeepEqual(a, b)
}

// Scopes returns every scope the file's views mention in "match" and
// "require", sorted: what a server says it understands (RFC 9728).
func (pol *Policy) Scopes() []string {
	if pol == nil {
		return nil
	}
	var out []string
	for _, v := range pol.views {
		out = append(out, v.Match.Scopes...)
		for _, scopes := range v.Require {
			out = append(out, scopes...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
