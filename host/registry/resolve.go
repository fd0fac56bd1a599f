package registry

import (
	"cmp"
	"maps"
	"slices"
)

// resolve builds the snapshot for a set of plugins and returns it with the
// claims it implies. The rules, which make the outcome a function of the
// plugin set and the claims alone (never of load or completion order):
//
//   - A tool defined by one plugin is served by it.
//   - A tool defined by several plugins is served by the plugin that claims
//     it, if that plugin still defines it; otherwise by the first of them in
//     plugin name order, which then claims it. The others are refused.
//   - Every served tool is claimed by its server, so a plugin that arrives
//     later never takes a name over, and a restart with the claims restores
//     the same owners whatever order the files load in.
//   - A claim whose plugin is gone or no longer defines the tool lapses.
func resolve[P Plugin](plugins map[string]*loaded[P], claims map[string]string) (*Snapshot[P], map[string]string) {
	candidates := map[string][]Entry[P]{}
	for _, name := range slices.Sorted(maps.Keys(plugins)) {
		for _, e := range plugins[name].tools {
			candidates[e.Tool.Name] = append(candidates[e.Tool.Name], e)
		}
	}
	s := &Snapshot[P]{
		plugins: plugins,
		tools:   make(map[string]Entry[P], len(candidates)),
		sorted:  make([]Entry[P], 0, len(candidates)),
	}
	next := make(map[string]string, len(candidates))
	for tool, es := range candidates {
		owner := 0
		if claimant, ok := claims[tool]; ok {
			if i := slices.IndexFunc(es, func(e Entry[P]) bool { return e.Plugin.Name() == claimant }); i >= 0 {
				owner = i
			}
		}
		winner := es[owner]
		s.tools[tool] = winner
		s.sorted = append(s.sorted, winner)
		next[tool] = winner.Plugin.Name()
		for i, e := range es {
			if i != owner {
				s.refused = append(s.refused, Refusal{Tool: tool, Plugin: e.Plugin.Name(), Owner: winner.Plugin.Name()})
			}
		}
	}
	slices.SortFunc(s.sorted, func(a, b Entry[P]) int { return cmp.Compare(a.Tool.Name, b.Tool.Name) })
	slices.SortFunc(s.refused, func(a, b Refusal) int {
		return cmp.Or(cmp.Compare(a.Tool, b.Tool), cmp.Compare(a.Plugin, b.Plugin))
	})
	return s, next
}
