package registry

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/wasmcp/wasmcp/abi"
)

// Snapshot is one immutable state of the registry: the loaded plugins, the
// tool (prompt, resource, template) each serves and those refused because
// another plugin owns them.
type Snapshot[P Plugin] struct {
	plugins map[string]*loaded[P] // by plugin name, including plugins with every tool refused
	tools   map[string]Entry[P]   // by key (Entry.Key): what is served
	sorted  []Entry[P]            // tools sorted by name
	others  [kinds - 1][]Entry[P] // the other kinds, each sorted by name
	refused []Refusal             // sorted by key, then plugin
	// unviewed are the tools served without their view (unview).
	unviewed []unviewed[P]
	closed   bool // the registry was closed
}

// Kind is what an entry offers clients.
type Kind uint8

const (
	KindTool Kind = iota
	KindPrompt
	KindResource
	KindTemplate
	kinds
)

// keyPrefixes make the keys of kinds other than tools, which no tool name
// can take (tool names hold no ':'), so that the claims of tools read as
// they always did.
var keyPrefixes = [kinds]string{"", "prompt:", "resource:", "template:"}

// Key is the key of an entry of kind k named name: in the snapshot, in
// claims and in refusals.
func Key(k Kind, name string) string { return keyPrefixes[k] + name }

// ParseKey splits a key made by Key.
func ParseKey(key string) (Kind, string) {
	for k := KindPrompt; k < kinds; k++ {
		if name, ok := strings.CutPrefix(key, keyPrefixes[k]); ok {
			return k, name
		}
	}
	return KindTool, key
}

// Entry is one served tool, prompt, resource or resource template, and the
// plugin that serves it.
type Entry[P Plugin] struct {
	// Tool is the definition of a KindTool entry.
	Tool abi.Tool
	Kind Kind
	// Name is the name of an entry of another kind: the prompt's name, the
	// resource's URI, the template's URI template. Def is its definition,
	// an *abi.Prompt, *abi.Resource or *abi.ResourceTemplate.
	Name   string
	Def    any
	Plugin P
	// def holds the definition's canonical JSON, compared to tell an
	// updated definition from an identical one. Copies of an entry share
	// it.
	def *definition
	// key is Key's, made once when the plugin enters the registry: every
	// swap sorts and looks up every entry by it.
	key string
}

// Key is e's key: its tool name, or its name with its kind's prefix.
func (e *Entry[P]) Key() string {
	switch {
	case e.key != "":
		return e.key
	case e.Kind == KindTool:
		return e.Tool.Name
	}
	return Key(e.Kind, e.Name)
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
	e.def.once.Do(func() {
		if e.Kind == KindTool {
			e.def.json = canonicalJSON(e.Tool)
		} else {
			e.def.json = canonicalJSON(e.Def)
		}
	})
	return e.def.json
}

// Refusal records a tool a plugin defines but does not serve because Owner
// serves a tool of that name. Plugin and Owner are plugin names; Tool is
// the key of what is refused (a tool's name, or Key's of another kind).
type Refusal struct {
	Tool   string
	Plugin string
	Owner  string
}

// unviewed is a tool served without its view, which owner serves.
type unviewed[P Plugin] struct {
	tool, view    string
	plugin, owner P
}

// Change is the difference between two snapshots as a client sees it: tools
// (prompts, ...) that appeared, those whose definition changed, and the
// keys that disappeared. A tool that moves to another plugin with a
// byte-identical definition is not a change. Added and Updated are sorted
// by kind, then name; Removed by key.
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

// Lookup returns the entry serving tool, or, given a Key, the entry of
// another kind.
func (s *Snapshot[P]) Lookup(tool string) (Entry[P], bool) {
	e, ok := s.tools[tool]
	return e, ok
}

// Entries returns the served tools sorted by name. The slice is shared:
// callers must not modify it.
func (s *Snapshot[P]) Entries() []Entry[P] { return s.sorted }

// Offered returns the served entries of kind k sorted by name. The slice is
// shared: callers must not modify it.
func (s *Snapshot[P]) Offered(k Kind) []Entry[P] {
	if k == KindTool {
		return s.sorted
	}
	return s.others[k-1]
}

// all returns every served entry, tools first, then each other kind.
func (s *Snapshot[P]) all() []Entry[P] {
	out := slices.Clone(s.sorted)
	for _, es := range s.others {
		out = append(out, es...)
	}
	return out
}

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

// Offerer is a Plugin that offers prompts, resources and resource
// templates besides its tools; *plugin.Plugin is one.
type Offerer interface {
	Prompts() []abi.Prompt
	Resources() []abi.Resource
	ResourceTemplates() []abi.ResourceTemplate
}

// loaded is a plugin with its entries, made once when the plugin enters the
// registry rather than at every swap.
type loaded[P Plugin] struct {
	p     P
	tools []Entry[P] // every kind, tools first
}

func newLoaded[P Plugin](p P) *loaded[P] {
	tools := p.Tools()
	var o Offerer
	n := len(tools)
	if off, ok := any(p).(Offerer); ok {
		o = off
		n += len(o.Prompts()) + len(o.Resources()) + len(o.ResourceTemplates())
	}
	l := &loaded[P]{p: p, tools: make([]Entry[P], 0, n)}
	defs := make([]definition, n)
	for i, t := range tools {
		l.tools = append(l.tools, Entry[P]{Tool: t, Plugin: p, def: &defs[i]})
	}
	if o == nil {
		return l
	}
	add := func(k Kind, name string, def any) {
		l.tools = append(l.tools, Entry[P]{Kind: k, Name: name, Def: def, Plugin: p, def: &defs[len(l.tools)], key: Key(k, name)})
	}
	for _, d := range o.Prompts() {
		add(KindPrompt, d.Name, &d)
	}
	for _, d := range o.Resources() {
		add(KindResource, d.URI, &d)
	}
	for _, d := range o.ResourceTemplates() {
		add(KindTemplate, d.URITemplate, &d)
	}
	return l
}

// canonicalJSON encodes t with object keys sorted at every depth and
// numbers kept as written, so two definitions compare equal exactly when
// they mean the same JSON regardless of the key order a guest used.
func canonicalJSON(t any) []byte {
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
	for k := KindTool; k < kinds; k++ {
		for _, e := range next.Offered(k) {
			prev, ok := old.tools[e.Key()]
			switch {
			case !ok:
				c.Added = append(c.Added, e)
			case !sameDefinition(prev, e):
				c.Updated = append(c.Updated, e)
			}
		}
		for _, e := range old.Offered(k) {
			if _, ok := next.tools[e.Key()]; !ok {
				c.Removed = append(c.Removed, e.Key())
			}
		}
	}
	slices.Sort(c.Removed)
	return c
}
