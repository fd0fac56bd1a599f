package httpserve

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/internal/oauth"
)

// A token whose issuer cannot be reached gets 503 and Retry-After, not a
// 401 that would send the client to authorize again; a token in the query
// gets 400; none gets a challenge naming the metadata.
func TestRequireOAuth(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + l.Addr().String()
	l.Close() // nothing answers there
	v, err := oauth.New(t.Context(), oauth.Config{Issuers: []oauth.Issuer{{URL: issuer}}, Resource: "http://127.0.0.1:1/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	h := RequireOAuth(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(299) }), v, "http://x/.well-known/oauth-protected-resource/mcp", nil)
	claims := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, `{"iss":%q,"aud":"http://127.0.0.1:1/mcp","exp":%d}`, issuer, time.Now().Add(time.Hour).Unix()))
	for _, tc := range []struct {
		name, target, auth string
		status             int
		header, want       string
	}{
		{"none", "/mcp", "", 401, "WWW-Authenticate", `resource_metadata="http://x/.well-known/oauth-protected-resource/mcp"`},
		{"query", "/mcp?access_token=x", "", 400, "WWW-Authenticate", "invalid_request"},
		{"garbage", "/mcp", "Bearer garbage", 401, "WWW-Authenticate", `error="invalid_token"`},
		{"issuer down", "/mcp", "Bearer eyJhbGciOiJSUzI1NiIsImtpZCI6IngifQ." + claims + ".c2ln", 503, "Retry-After", "5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, tc.target, strings.NewReader("{}"))
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != tc.status || !strings.Contains(w.Header().Get(tc.header), tc.want) {
				t.Errorf("%d %s: %q; want %d with %q", w.Code, tc.header, w.Header().Get(tc.header), tc.status, tc.want)
			}
		})
	}
}
