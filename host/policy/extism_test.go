package policy_test

import (
	"testing"

	"github.com/wasmcp/wasmcp/host/policy"
)

// An Extism plugin's grant is all the policy offers it: granting Offer
// denies nothing and gives every capability listed.
func TestOfferGrantsEverything(t *testing.T) {
	dir := t.TempDir()
	p, err := policy.Parse([]byte(`{
		"defaults": {"clock": true, "config": {"k": "default"}},
		"plugins": {"x": {"net": ["https://api.example.com", "http://127.0.0.1:8080"], "env": ["A=1"],
			"fs": [{"host": ".", "guest": "/data"}], "config": {"k": "v"}}}
	}`), dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Offer("nobody") == nil || !p.Offer("nobody").Clock {
		t.Error("the defaults' clock is offered to every plugin")
	}
	g, denied := p.Grant("x", p.Offer("x"))
	if len(denied) > 0 {
		t.Errorf("denied %q", denied)
	}
	if len(g.Net.Origins) != 2 || len(g.Env) != 1 || len(g.Mounts) != 1 || !g.Clock || g.Random {
		t.Errorf("grant %+v", g)
	}
	if got := p.Config("x")["k"]; got != "v" {
		t.Errorf("config k = %q", got)
	}
	if got := p.Config("y")["k"]; got != "default" {
		t.Errorf("default config k = %q", got)
	}
	var none *policy.Policy
	if none.Offer("x") != nil || none.Config("x") != nil {
		t.Error("a nil policy offers something")
	}
	if empty, _ := policy.Parse([]byte(`{}`), dir); empty.Offer("x") != nil {
		t.Error("an empty policy offers something")
	}
}
