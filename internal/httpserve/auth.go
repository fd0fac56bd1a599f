package httpserve

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/wasmcp/wasmcp/internal/oauth"
)

// Realm is the realm of the WWW-Authenticate challenge.
const Realm = "wasmcp"

// RequireToken wraps next so that only requests bearing token pass:
// "Authorization: Bearer <token>". Anything else gets 401 with a
// WWW-Authenticate challenge (RFC 6750), error="invalid_token" when a wrong
// token was presented. The comparison takes the same time whatever the
// presented token is: both sides are hashed first, so neither the content
// nor the length of the secret leaks through timing.
//
// The MCP SDK's auth.RequireBearerToken is built for OAuth (it sends a
// challenge only with resource metadata or scopes, and wants an expiry for
// every token); one static shared secret needs none of that.
func RequireToken(next http.Handler, token string, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := bearer(r.Header.Get("Authorization"))
		if ok {
			sum := sha256.Sum256([]byte(got))
			if subtle.ConstantTimeCompare(sum[:], want[:]) == 1 {
				next.ServeHTTP(w, r)
				return
			}
		}
		challenge := `Bearer realm="` + Realm + `"`
		msg := "Unauthorized: missing bearer token (send Authorization: Bearer <token>)"
		if ok {
			challenge += `, error="invalid_token"`
			msg = "Unauthorized: invalid bearer token"
		}
		log.Warn("request refused: "+strings.TrimPrefix(msg, "Unauthorized: "), "remote", r.RemoteAddr, "method", r.Method)
		w.Header().Set("WWW-Authenticate", challenge)
		http.Error(w, msg, http.StatusUnauthorized)
	})
}

// bearer returns the token of an Authorization header value of the Bearer
// scheme (case-insensitive, RFC 7235).
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// RequireOAuth wraps next so that only requests bearing an access token v
// verifies pass, with its principal in their context (oauth.PrincipalFrom).
// A request without one gets 401 and a challenge naming the resource
// metadata at metadataURL (RFC 9728), with error="invalid_token" and why
// for a token refused; one that carries a token in its query string gets
// 400 (MCP: tokens only in the Authorization header), and one whose
// token's issuer cannot be reached 503 with Retry-After.
func RequireOAuth(next http.Handler, v *oauth.Verifier, metadataURL string, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("access_token") {
			w.Header().Set("WWW-Authenticate", oauth.WWWAuthenticate(metadataURL, "", "invalid_request",
				"access tokens go in the Authorization header, never in the URL"))
			http.Error(w, "Bad Request: access token in the query string", http.StatusBadRequest)
			return
		}
		token, ok := bearer(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", oauth.WWWAuthenticate(metadataURL, "", "", ""))
			http.Error(w, "Unauthorized: an access token is required (Authorization: Bearer <token>)", http.StatusUnauthorized)
			return
		}
		p, err := v.Verify(r.Context(), token)
		if errors.Is(err, oauth.ErrUnavailable) {
			// The token is not known to be bad: a 401 would send the client
			// to authorize again, for nothing.
			log.Warn("request refused: the token's issuer cannot be reached", "error", err, "remote", r.RemoteAddr)
			w.Header().Set("Retry-After", "5")
			http.Error(w, "Service Unavailable: "+err.Error()+"; retry later", http.StatusServiceUnavailable)
			return
		}
		if err != nil {
			code, desc := oauth.CodeInvalidToken, err.Error()
			if oe, ok := errors.AsType[*oauth.Error](err); ok {
				code, desc = oe.Code, oe.Description
			}
			log.Warn("request refused: access token", "error", desc, "remote", r.RemoteAddr, "method", r.Method)
			w.Header().Set("WWW-Authenticate", oauth.WWWAuthenticate(metadataURL, "", code, desc))
			http.Error(w, "Unauthorized: "+desc, http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(oauth.WithPrincipal(r.Context(), p)))
	})
}
