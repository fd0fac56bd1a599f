package host_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
)

// names are the names of tools.
func names(tools []host.Tool) []string {
	out := []string{}
	for _, t := range tools {
		out = append(out, t.Plugin+"/"+t.Name)
	}
	return out
}

// A principal lists and calls only the tools its views show it; a tool it
// does not see is unknown to it, and one its view requires a scope for is a
// step-up. The policy's surface renames and filters each plugin's tools.
func TestViewsAndSurface(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	place(t, dir, "a.wasm", guest(t, guestSpec{Tools: []string{"x", "y", "hidden"}, Answer: "a"}))
	place(t, dir, "b.wasm", guest(t, guestSpec{Tools: []string{"x", "z"}, Answer: "b"}))
	doc := []byte(`{
		"plugins": {"a": {"tools": {"deny": ["hidden"], "rename": {"x": "ax"}}}, "b": {"tools": {"prefix": "b_"}}},
		"local": {"subject": "me"},
		"views": [
			{"name": "alice", "match": {"subjects": ["alice", "me"]}, "allow": ["a"], "deny": ["a/y"]},
			{"name": "ops", "match": {"scopes": ["ops"]}, "allow": ["b/*"], "require": {"b/b_z": ["ops:write"]}}
		]}`)
	pol, err := policy.Parse(doc, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := newHost(t, dir, nil, testConfig(t).WithPolicy(pol))
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := names(h.Tools()), []string{"a/ax", "b/b_x", "b/b_z", "a/y"}; !slices.Equal(got, want) {
		t.Fatalf("served %q, want %q (renamed, prefixed, hidden left out, sorted by name)", got, want)
	}
	alice := &host.Principal{Subject: "alice"}
	ops := &host.Principal{Subject: "bob", Scopes: []string{"ops"}}
	opsWrite := &host.Principal{Subject: "bob", Scopes: []string{"ops", "ops:write"}}
	for _, tc := range []struct {
		name string
		who  *host.Principal
		want []string
	}{
		{"alice", alice, []string{"a/ax"}},
		{"ops", ops, []string{"b/b_x", "b/b_z"}},
		{"local", h.Local(), []string{"a/ax"}},
		{"nobody", &host.Principal{Subject: "eve"}, []string{}},
	} {
		t.Run("list/"+tc.name, func(t *testing.T) {
			for range 2 { // the second from the cache
				if got := names(h.ToolsFor(tc.who)); !slices.Equal(got, tc.want) {
					t.Errorf("ToolsFor = %q, want %q", got, tc.want)
				}
			}
		})
	}
	for _, tc := range []struct {
		name, tool string
		who        *host.Principal
		want       error
		scopes     []string
		views      string // the result's, of a call that ran
	}{
		{"visible", "ax", alice, nil, nil, "alice"},
		{"denied is unknown", "y", alice, host.ErrUnknownTool, nil, ""},
		{"another view's is unknown", "b_x", alice, host.ErrUnknownTool, nil, ""},
		{"the guest's own name is unknown", "x", alice, host.ErrUnknownTool, nil, ""},
		{"step-up", "b_z", ops, host.ErrInsufficientScope, []string{"ops:write"}, ""},
		{"with the scope", "b_z", opsWrite, nil, nil, "ops"},
		{"in two views", "b_x", &host.Principal{Subject: "me", Scopes: []string{"ops"}}, nil, nil, "alice,ops"},
	} {
		t.Run("call/"+tc.name, func(t *testing.T) {
			res, err := h.Call(ctx, host.CallRequest{Tool: tc.tool, Principal: tc.who})
			if !errors.Is(err, tc.want) || (err == nil && res.IsError) {
				t.Fatalf("Call = %+v, %v; want %v", res, err, tc.want)
			}
			if err == nil && res.Views != tc.views {
				t.Errorf("Views = %q, want %q", res.Views, tc.views)
			}
			if se, ok := errors.AsType[*host.ScopeError](err); ok && !slices.Equal(se.Scopes, tc.scopes) {
				t.Errorf("scopes %q, want %q", se.Scopes, tc.scopes)
			}
		})
	}

	// A reconfigured policy shows its views at once, and subscribers hear
	// that the views changed; a reload that keeps them says nothing of
	// views.
	var viewChanges int
	cancel := h.Subscribe(func(c host.Change) {
		if c.Views {
			viewChanges++
		}
	})
	defer cancel()
	same, err := policy.Parse(doc, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Reconfigure(ctx, same, nil); err != nil {
		t.Fatal(err)
	}
	if viewChanges != 0 {
		t.Errorf("the same views reported as changed %d times", viewChanges)
	}
	pol2, err := policy.Parse([]byte(`{"views": [{"name": "all", "match": {"any": true}, "allow": ["*"]}]}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Reconfigure(ctx, pol2, nil); err != nil {
		t.Fatal(err)
	}
	// Without the surface, a and b both define x: the collision rules give
	// it to one of them.
	if got := names(h.ToolsFor(alice)); !slices.Equal(got, []string{"a/hidden", "a/x", "a/y", "b/z"}) {
		t.Errorf("after the reconfiguration: %q", got)
	}
	if viewChanges != 1 {
		t.Errorf("views reported as changed %d times, want 1", viewChanges)
	}
}
