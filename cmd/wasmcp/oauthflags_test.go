package main

import (
	"strings"
	"testing"
)

// This server's introspection credentials are one issuer's: with several
// issuers trusted, each would be sent them with every opaque token, and
// refusing the flags says so before anything is sent.
func TestOAuthClientOfOneIssuer(t *testing.T) {
	h := &httpFlags{addr: "127.0.0.1:0"}
	set := map[string]bool{"oauth-issuer": true, "oauth-client-id": true, "oauth-client-secret-file": true}
	for _, tc := range []struct {
		name       string
		flags      []string
		configured []string
		want       string
	}{
		{"one issuer", []string{"https://a.example"}, nil, ""},
		{"two issuers", []string{"https://a.example", "https://b.example"}, nil, "one issuer"},
		{"one here, one configured", []string{"https://a.example"}, []string{"https://b.example"}, "one issuer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &oauthFlags{issuers: tc.flags, clientID: "wasmcp", clientSecret: "secret.txt"}
			err := o.check(set, h, tc.configured)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
