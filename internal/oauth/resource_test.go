package oauth

import (
	"encoding/json"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

func TestWWWAuthenticate(t *testing.T) {
	const meta = "https://mcp.test/.well-known/oauth-protected-resource/mcp"
	for _, tc := range []struct {
		name                         string
		metadata, scope, code, descr string
		want                         string
	}{
		{"bare", "", "", "", "", `Bearer`},
		{"no token", meta, "", "", "", `Bearer resource_metadata="` + meta + `"`},
		{"invalid token", meta, "", CodeInvalidToken, "token expired at 2026-01-01T00:00:00Z",
			`Bearer resource_metadata="` + meta + `", error="invalid_token", error_description="token expired at 2026-01-01T00:00:00Z"`},
		{"step up", meta, "tools:call files:write", CodeInsufficientScope, "",
			`Bearer resource_metadata="` + meta + `", scope="tools:call files:write", error="insufficient_scope"`},
		{"quotes and controls in the description", "", "", CodeInvalidToken, "issuer \"x\\y\"\r\nSet-Cookie: a=b é",
			`Bearer error="invalid_token", error_description="issuer 'x?y'??Set-Cookie: a=b ?"`},
		{"quote in the metadata URL", `https://mcp.test/a"b\c`, "", "", "", `Bearer resource_metadata="https://mcp.test/a\"b\\c"`},
		{"newline in the metadata URL", "https://mcp.test/a\r\nb", "", "", "", `Bearer resource_metadata="https://mcp.test/ab"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := WWWAuthenticate(tc.metadata, tc.scope, tc.code, tc.descr); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestResourceMetadataURL(t *testing.T) {
	for resource, want := range map[string]string{
		"https://mcp.test/mcp":        "https://mcp.test/.well-known/oauth-protected-resource/mcp",
		"https://mcp.test/":           "https://mcp.test/.well-known/oauth-protected-resource",
		"https://mcp.test":            "https://mcp.test/.well-known/oauth-protected-resource",
		"http://127.0.0.1:8080/a/mcp": "http://127.0.0.1:8080/.well-known/oauth-protected-resource/a/mcp",
		"https://mcp.test/mcp?t=1":    "https://mcp.test/.well-known/oauth-protected-resource/mcp?t=1",
		"https://mcp.test/a%2Fb":      "https://mcp.test/.well-known/oauth-protected-resource/a%2Fb",
	} {
		got, err := ResourceMetadataURL(resource)
		if err != nil || got != want {
			t.Errorf("ResourceMetadataURL(%q) = %q, %v; want %q", resource, got, err, want)
		}
	}
}

func TestMetadata(t *testing.T) {
	a := newFakeAS(t, "/a", newKey(t, "k1", jose.ES256))
	b := newFakeAS(t, "/b", newKey(t, "k1", jose.ES256))
	v := newVerifier(t, config(t, a, b))
	doc, err := json.Marshal(v.Metadata("", []string{"tools:call"}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"resource":"` + testResource + `","authorization_servers":["` + a.issuer + `","` + b.issuer + `"],` +
		`"scopes_supported":["tools:call"],"bearer_methods_supported":["header"]}`
	if string(doc) != want {
		t.Errorf("got  %s\nwant %s", doc, want)
	}
	if m := v.Metadata("https://other.test/mcp", nil); m.Resource != "https://other.test/mcp" || m.ScopesSupported != nil {
		t.Errorf("metadata %+v", m)
	}
}
