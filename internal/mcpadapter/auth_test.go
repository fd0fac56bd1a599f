package mcpadapter

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/internal/oauth"
)

// The verifier in front of the handler (httpserve.RequireOAuth) decides
// whether a token is good, and the handler serves every principal it lets
// through: a token past its exp but within the verifier's leeway, and an
// opaque token whose introspection answer named no exp (RFC 7662 makes it
// optional), were refused behind the verifier's back by go-sdk's own
// expiry check, with a bare 401 that named no resource metadata.
func TestOAuthServesWhatTheVerifierAccepted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		expiry time.Time
	}{
		{"before exp", time.Now().Add(time.Hour)},
		{"after exp, within the leeway", time.Now().Add(-oauth.DefaultLeeway / 2)},
		{"introspected without exp", time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New(echoHost("echo"), Options{})
			defer a.Close()
			h := a.HTTPHandler(HTTPOptions{OAuth: &OAuth{ResourceMetadataURL: "http://127.0.0.1/.well-known/oauth-protected-resource/mcp"}})
			p := &oauth.Principal{Issuer: "http://127.0.0.1:1", Subject: "alice", ClientID: "app", Expiry: tc.expiry}
			req := httptest.NewRequestWithContext(oauth.WithPrincipal(testContext(t), p), http.MethodPost, "http://127.0.0.1/mcp",
				strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
			req.Header.Set("Authorization", "Bearer verified-in-front")
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Errorf("initialize of a verified principal: %d %q", rec.Code, rec.Body.String())
			}
		})
	}
}
