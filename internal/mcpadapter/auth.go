package mcpadapter

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/oauth"
)

// OAuth says that the HTTP handler serves an OAuth 2.1 resource server (MCP
// authorization, 2025-11-25): a check in front of it (httpserve.RequireOAuth)
// has verified each request's access token and put its principal in the
// request's context, and each principal lists and calls as the policy's
// views say.
type OAuth struct {
	// ResourceMetadataURL is where the server's Protected Resource
	// Metadata (RFC 9728) is served; a step-up challenge names it.
	ResourceMetadataURL string
}

// withTokenInfo hands each request's verified principal to go-sdk, in the
// auth.TokenInfo its handler gives every message: the principal rides in
// it to the adapter (principal.go), and its key is the TokenInfo's user, to
// which go-sdk binds a session, so that another principal cannot take it
// over.
func withTokenInfo(next http.Handler) http.Handler {
	return auth.RequireBearerToken(func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		p := oauth.PrincipalFrom(r.Context())
		if p == nil {
			return nil, auth.ErrInvalidToken
		}
		hp := hostPrincipal(p)
		return &auth.TokenInfo{Scopes: p.Scopes, Expiration: p.Expiry, UserID: hp.Key(), Extra: map[string]any{principalKey: hp}}, nil
	}, verifiedInFront)(next)
}

// verifiedInFront keeps go-sdk's own check of a token's expiry from
// refusing, with a bare 401, what the verifier in front accepted: a token
// within the verifier's leeway after its exp, or an introspected one whose
// answer named no exp. The verifier's decision is the one that counts.
var verifiedInFront = &auth.RequireBearerTokenOptions{AllowMissingExpiration: true, ClockSkew: oauth.MaxLeeway}

// hostPrincipal is the engine's view of a verified token's principal.
func hostPrincipal(p *oauth.Principal) *host.Principal {
	return &host.Principal{Issuer: p.Issuer, Subject: p.Subject, ClientID: p.ClientID, Scopes: p.Scopes, Claims: p.Claims}
}

// stepUp refuses, with 403 and insufficient_scope, a tools/call of a tool
// the request's principal sees without a scope its view requires, naming
// the scopes to ask for (its own and the missing), so that the client can
// get a token that carries them and try again.
func (a *Adapter) stepUp(o *OAuth) func(r *http.Request, method string, params json.RawMessage) (challenge string, refused bool) {
	return func(r *http.Request, method string, params json.RawMessage) (string, bool) {
		p := oauth.PrincipalFrom(r.Context())
		if method != "tools/call" || p == nil {
			return "", false
		}
		tool := calledTool(params)
		missing := a.host.MissingScopes(hostPrincipal(p), tool)
		if len(missing) == 0 {
			return "", false
		}
		want := slices.Concat(p.Scopes, missing)
		slices.Sort(want)
		return oauth.WWWAuthenticate(o.ResourceMetadataURL, strings.Join(slices.Compact(want), " "), oauth.CodeInsufficientScope,
			fmt.Sprintf("tool %s needs the scope %s", tool, strings.Join(missing, " "))), true
	}
}

// calledTool is the tool a tools/call's params name; for wasmcp_call_tool,
// the tool it calls, which needs the same scopes called that way.
func calledTool(params json.RawMessage) string {
	var p struct {
		Name      string `json:"name"`
		Arguments struct {
			Name string `json:"name"`
		} `json:"arguments"`
	}
	_ = json.Unmarshal(params, &p) // go-sdk refuses a malformed one
	if p.Name == callToolName {
		return p.Arguments.Name
	}
	return p.Name
}
