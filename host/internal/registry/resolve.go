package registry

import (
	"cmp"
	"maps"
	"slices"

	"github.com/wasmcp/wasmcp/host/internal/plugin"
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
	// Every definition, sorted by tool name, then plugin name: each tool's
	// candidates are then one run, in plugin name order, and the runs come
	// in the order of the snapshot's sorted lists, which need no sort of
	// their own. Pointers, because an entry is 16 times their size and
	// sorting moves them about.
	n := 0
	for _, l := range plugins {
		n += len(l.tools)
	}
	all := make([]*Entry[P], 0, n)
	var count [kinds]int // of each kind, to size the lists
	for _, l := range plugins {
		for i := range l.tools {
			all = append(all, &l.tools[i])
			count[l.tools[i].Kind]++
		}
	}
	slices.SortFunc(all, func(a, b *Entry[P]) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Key(), b.Key()), cmp.Compare(a.Plugin.Name(), b.Plugin.Name()))
	})
	s := &Snapshot[P]{
		plugins: plugins,
		tools:   make(map[string]Entry[P], n),
		sorted:  make([]Entry[P], 0, count[KindTool]),
	}
	for k := KindPrompt; k < kinds; k++ {
		s.others[k-1] = make([]Entry[P], 0, count[k])
	}
	next := make(map[string]string, n)
	for len(all) > 0 {
		tool := all[0].Key()
		end := 1
		for end < len(all) && all[end].Key() == tool {
			end++
		}
		es := all[:end]
		all = all[end:]
		owner := 0
		if claimant, ok := claims[tool]; ok {
			if i := slices.IndexFunc(es, func(e *Entry[P]) bool { return e.Plugin.Name() == claimant }); i >= 0 {
				owner = i
			}
		}
		winner := *es[owner]
		s.tools[tool] = winner
		if winner.Kind == KindTool {
			s.sorted = append(s.sorted, winner)
		} else {
			s.others[winner.Kind-1] = append(s.others[winner.Kind-1], winner)
		}
		next[tool] = winner.Plugin.Name()
		for i, e := range es {
			if i != owner {
				s.refused = append(s.refused, Refusal{Tool: tool, Plugin: e.Plugin.Name(), Owner: winner.Plugin.Name()})
			}
		}
	}
	s.unviewed = unview(s)
	return s, next
}

// unview serves without its view a tool whose MCP Apps view (ABI.md,
// "Views") another plugin serves, because that plugin owns the view's URI:
// a client would show one plugin's view for the other's tool, and let the
// other drive that view. It returns the tools it changed. Should the
// owner go, the tool gets its view back, as an updated definition.
func unview[P Plugin](s *Snapshot[P]) []unviewed[P] {
	var out []unviewed[P]
	for i, e := range s.sorted {
		uri, ok := plugin.ViewOf(e.Tool.Meta)
		if !ok {
			continue
		}
		v, ok := s.tools[Key(KindResource, uri)]
		if !ok || v.Plugin == e.Plugin {
			continue // the view is the tool's plugin's, as its load checked
		}
		e.Tool.Meta = withoutView(e.Tool.Meta)
		e.def = &definition{}
		s.sorted[i], s.tools[e.Tool.Name] = e, e
		out = append(out, unviewed[P]{tool: e.Tool.Name, view: uri, plugin: e.Plugin, owner: v.Plugin})
	}
	return out
}

// withoutView returns meta without the members that name a view; meta is
// not modified.
func withoutView(meta map[string]any) map[string]any {
	meta = maps.Clone(meta)
	delete(meta, "ui/resourceUri")
	if ui, ok := meta["ui"].(map[string]any); ok {
		ui = maps.Clone(ui)
		delete(ui, "resourceUri")
		meta["ui"] = ui
		if len(ui) == 0 {
			delete(meta, "ui")
		}
	}
	return meta
}
