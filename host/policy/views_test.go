package policy

import (
	"slices"
	"strings"
	"testing"
)

func mustParse(t *testing.T, doc string) *Policy {
	t.Helper()
	p, err := Parse([]byte(doc), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSight(t *testing.T) {
	p := mustParse(t, `{"views": [
		{"name": "admins", "match": {"scopes": ["mcp:admin"]}, "allow": ["*"]},
		{"name": "eng", "match": {"claims": {"groups": ["engineering"]}}, "allow": ["jq/*", "text/*", "fetch/*"],
		 "deny": ["text/unified_diff"], "require": {"fetch/*": ["tools:net"]}},
		{"name": "bot", "match": {"clients": ["ci-bot"], "subjects": ["robot"]}, "allow": ["hash"]}
	]}`)
	eng := &Principal{Subject: "ada", Claims: map[string]any{"groups": []any{"engineering", "ops"}}}
	for _, tc := range []struct {
		name       string
		who        *Principal
		plugin     string
		tool       string
		sees       bool
		needs      []string
		viewsNamed string
	}{
		{"admin sees all", &Principal{Scopes: []string{"mcp:admin"}}, "hash", "hash", true, nil, "admins"},
		{"eng sees jq", eng, "jq", "jq", true, nil, "eng"},
		{"a plugin glob names its tools", &Principal{Subject: "robot", ClientID: "ci-bot"}, "hash", "encode", true, nil, "bot"},
		{"eng denied diff", eng, "text", "unified_diff", false, nil, "eng"},
		{"eng needs a scope for fetch", eng, "fetch", "fetch", true, []string{"tools:net"}, "eng"},
		{"eng with the scope", &Principal{Scopes: []string{"tools:net"}, Claims: eng.Claims}, "fetch", "fetch", true, nil, "eng"},
		{"claim as a string", &Principal{Claims: map[string]any{"groups": "engineering"}}, "jq", "jq", true, nil, "eng"},
		{"bot by client", &Principal{ClientID: "ci-bot"}, "hash", "hmac", true, nil, "bot"},
		{"bot by subject", &Principal{Subject: "robot"}, "jq", "jq", false, nil, "bot"},
		{"nobody sees nothing", &Principal{Subject: "eve"}, "jq", "jq", false, nil, ""},
		{"nil principal", nil, "jq", "jq", false, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := p.Sight(tc.who)
			if got := s.Sees(tc.plugin, tc.tool); got != tc.sees {
				t.Errorf("Sees(%s/%s) = %v", tc.plugin, tc.tool, got)
			}
			if got := s.Needs(tc.who, tc.plugin, tc.tool); !slices.Equal(got, tc.needs) {
				t.Errorf("Needs = %q, want %q", got, tc.needs)
			}
			if got := s.Views(); got != tc.viewsNamed {
				t.Errorf("Views = %q, want %q", got, tc.viewsNamed)
			}
		})
	}
	if got := p.Scopes(); !slices.Equal(got, []string{"mcp:admin", "tools:net"}) {
		t.Errorf("Scopes = %q", got)
	}
	var none *Policy
	if s := none.Sight(eng); !s.Sees("any", "tool") || s != nil {
		t.Error("without views every tool is in sight")
	}
}

func TestLocal(t *testing.T) {
	if l := (*Policy)(nil).Local(); l.Subject != "local" {
		t.Errorf("default local principal %+v", l)
	}
	p := mustParse(t, `{"local": {"subject": "me", "scopes": ["a"], "claims": {"groups": ["eng"]}},
		"views": [{"name": "eng", "match": {"claims": {"groups": ["eng"]}}, "allow": ["jq/*"]}]}`)
	if !p.Sight(p.Local()).Sees("jq", "jq") || p.Local().Subject != "me" || !p.Local().HasScope("a") {
		t.Errorf("local principal %+v does not match its view", p.Local())
	}
}

func TestViewErrors(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"no name", `{"views": [{"match": {"any": true}, "allow": ["*"]}]}`, "needs a name"},
		{"no match", `{"views": [{"name": "v", "allow": ["*"]}]}`, "matches no principal"},
		{"bad glob", `{"views": [{"name": "v", "match": {"any": true}, "allow": ["["]}]}`, "not a glob"},
		{"too many parts", `{"views": [{"name": "v", "match": {"any": true}, "allow": ["a/b/c"]}]}`, "not a glob"},
		{"twice", `{"views": [{"name": "v", "match": {"any": true}}, {"name": "v", "match": {"any": true}}]}`, "a second view"},
		{"unknown field", `{"views": [{"name": "v", "match": {"anyone": true}}]}`, "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Parse([]byte(tc.doc), t.TempDir()); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSurface(t *testing.T) {
	p := mustParse(t, `{"plugins": {"ev": {"tools": {"allow": ["get-*", "echo"], "deny": ["get-error"],
		"rename": {"get-sum": "sum"}, "prefix": "ev_"}}}}`)
	s := p.Surface("ev")
	for _, tc := range []struct {
		name, served string
		ok           bool
	}{
		{"echo", "ev_echo", true}, {"get-sum", "sum", true}, {"get-tiny-image", "ev_get-tiny-image", true},
		{"get-error", "", false}, {"other", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if served, ok := s.Serve(tc.name); served != tc.served || ok != tc.ok {
				t.Errorf("Serve = %q, %v; want %q, %v", served, ok, tc.served, tc.ok)
			}
		})
	}
	if s := p.Surface("other"); s != nil {
		t.Errorf("a plugin without tools settings has surface %+v", s)
	}
	for _, tc := range []struct{ name, doc, want string }{
		{"bad rename", `{"plugins": {"x": {"tools": {"rename": {"a": "b c"}}}}}`, "not a tool name"},
		{"bad prefix", `{"plugins": {"x": {"tools": {"prefix": "a/"}}}}`, "prefix"},
		{"bad glob", `{"plugins": {"x": {"tools": {"deny": ["["]}}}}`, "glob"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Parse([]byte(tc.doc), t.TempDir()); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
