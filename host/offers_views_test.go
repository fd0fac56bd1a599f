package host_test

import (
	"context"
	"errors"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
)

// A view's require holds for what a plugin offers besides tools, as for its
// tools: a principal that sees a prompt, a resource or a template without
// the scope its view requires gets a *ScopeError, and the guest does not
// run; with the scope, it is served.
func TestOffersViewRequire(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	place(t, dir, "notes.wasm", notesModule(t))
	pol, err := policy.Parse([]byte(`{"views":[{"name":"all","match":{"any":true},"allow":["notes"],
		"require":{"notes/*":["notes:admin"]}}]}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := newHost(t, dir, nil, testConfig(t).WithPolicy(pol))
	if err := h.LoadDir(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		scopes []string
		want   bool // served
	}{
		{"without the scope", nil, false},
		{"with it", []string{"notes:admin"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := host.Request{Principal: &host.Principal{Subject: "ada", Scopes: tc.scopes}}
			check := func(what string, err error) {
				t.Helper()
				_, refused := errors.AsType[*host.ScopeError](err)
				if tc.want && err != nil || !tc.want && !refused {
					t.Errorf("%s: %v, want served %v", what, err, tc.want)
				}
			}
			_, _, err := h.GetPrompt(ctx, "review", []byte(`{"diff":"+x"}`), req)
			check("prompt", err)
			_, _, err = h.ReadResource(ctx, "notes://readme", req)
			check("resource", err)
			_, _, err = h.ReadResource(ctx, "notes://42", req)
			check("template", err)
			_, err = h.Complete(ctx, abi.CompleteRequest{Ref: abi.CompleteReference{Type: abi.RefPrompt, Name: "review"},
				Argument: abi.CompleteArgument{Name: "style"}}, req)
			check("completion", err)
		})
	}
}
