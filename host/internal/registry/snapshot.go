package registry

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"sync"

	"github.com/wasmcp/wasmcp/abi"
)

// Snapshot is one immutable state of the registry: the loaded plugins, the
// tool each serves and the tools refused because another plugin owns them.
type Snapshot[P Plugin] struct {
	plugins map[string]*loaded[P] // by plugin name, including plugins with every tool refused
	tools   map[string]Entry[P]   // by tool name: the served tools
	sorted  []Entry[P]            // tools sorted by name
	refused []Refusal             // sorted by tool, then plugin
	closed  bool                  // the registry was closed
}

// Entry is one served tool and the plugin that serves it.
type Entry[P Plugin] struct {
	Tool   abi.Tool
	Plugin P
	// def holds Tool's canonical JSON, compared to tell an updated
	// definition from an identical one. Copies of an entry share it.
	def *definition
}

// definition is the canonical JSON of a tool definition, computed when a
// swap first compares the definition with another: most never are (every
// tool of the first load is new), and computing it for each of 10,000 tools
// took a fifth of a second of the one serial step of a start-up.
type definition struct {
	once sync.Once
	json []byte // nil if it could not be encoded: different from everything
}

// sameDefinition reports whether a and b define the same tool.
func sameDefinition[P Plugin](a, b Entry[P]) bool {
	if a.def == b.def {
		return true // one entry of one plugin version
	}
	ja, jb := a.canonical(), b.canonical()
	return ja != nil && jb != nil && bytes.Equal(ja, jb)
}

func (e Entry[P]) canonical() []byte {
	e.def.once.Do(func() { e.def.json = canonicalJSON(e.Tool) })
	return e.def.json
}

// Refusal records a tool a plugin defines but does not serve because Owner
// serves a tool of that name. Plugin and Owner are plugin names.
type Refusal struct {
	Tool   string
	Plugin string
	Owner  string
}

// Change is the difference between two snapshots as a client sees it: tools
// that appeared, tools whose definition changed, and names that disappeared.
// A tool that moves to another plugin with a byte-identical definition is
// not a change. Added and Updated are sorted by name, Removed too.
type Change[P Plugin] struct {
	Added   []Entry[P]
	Updated []Entry[P]
	Removed []string
}

// Empty reports whether c changes nothing.
func (c Change[P]) Empty() bool {
	return len(c.Added) == 0 && len(c.Updated) == 0 && len(c.Removed) == 0
}

func emptySnapshot[P Plugin]() *Snapshot[P] {
	return &Snapshot[P]{plugins: map[string]*loaded[P]{}, tools: map[string]Entry[P]{}}
}

// Lookup returns the entry serving tool.
func (s *Snapshot[P]) Lookup(tool string) (Entry[P], bool) {
	e, ok := s.tools[tool]
	return e, ok
}

// Entries returns the served tools sorted by name. The slice is shared:
// callers must not modify it.
func (s *Snapshot[P]) Entries() []Entry[P] { return s.sorted }

// Refused returns the refused tools sorted by tool then plugin name. The
// slice is shared: callers must not modify it.
func (s *Snapshot[P]) Refused() []Refusal { return s.refused }

// Plugin returns the loaded plugin of that name, whether or not it serves
// any tool.
func (s *Snapshot[P]) Plugin(name string) (P, bool) {
	l, ok := s.plugins[name]
	if !ok {
		var none P
		return none, false
	}
	return l.p, true
}

// Plugins returns every loaded plugin sorted by name.
func (s *Snapshot[P]) Plugins() []P {
	out := make([]P, 0, len(s.plugins))
	for _, name := range slices.Sorted(maps.Keys(s.plugins)) {
		out = append(out, s.plugins[name].p)
	}
	return out
}

// loaded is a plugin with its entries, made once when the plugin enters the
// registry rather than at every swap.
type loaded[P Plugin] struct {
	p     P
	tools []Entry[P]
}

func newLoaded[P Plugin](p P) *loaded[P] {
	tools := p.Tools()
	l := &loaded[P]{p: p, tools: make([]Entry[P], len(tools))}
	defs := make([]definition, len(tools))
	for i, t := range tools {
		l.tools[i] = Entry[P]{Tool: t, Plugin: p, def: &defs[i]}
	}
	return l
}

// canonicalJSON encodes t with object keys sorted at every depth and
// numbers kept as written, so two definitions compare equal exactly when
// they mean the same JSON regardless of the key order a guest used.
func canonicalJSON(t abi.Tool) []byte {
	raw, err := json.Marshal(t)
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	out, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return nil
	}
	return out
}

// diff computes what clients must be told to go from old to next.
func diff[P Plugin](old, next *Snapshot[P]) Change[P] {
	var c Change[P]
	for _, e := range next.sorted {
		prev, ok := old.tools[e.Tool.Name]
		switch {
		case !ok:
			c.Added = append(c.Added, e)
		case !sameDefinition(prev, e):
			c.Updated = append(c.Updated, e)
		}
	}
	for _, e := range old.sorted {
		if _, ok := next.tools[e.Tool.Name]; !ok {
			c.Removed = append(c.Removed, e.Tool.Name)
		}
	}
	return c
}
