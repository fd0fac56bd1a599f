package oauth

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Principal is who a token speaks for, as its issuer said.
type Principal struct {
	// Issuer is the issuer that vouched for the token.
	Issuer string
	// Subject is the sub claim: the user, or the client acting for
	// itself. It may be empty.
	Subject string
	// ClientID is the client the token was issued to: client_id (RFC 9068,
	// RFC 7662), else azp.
	ClientID string
	// Scopes are the scopes granted: scope (space-separated), else scp (a
	// list or a space-separated string, as some identity providers send).
	Scopes []string
	// Claims are all the claims of the token (or of the introspection
	// answer), for policies that look at groups, roles and the like.
	// Numbers are float64, as encoding/json decodes them.
	Claims map[string]any
	// Expiry is when the token expires; zero if an introspection answer
	// did not say.
	Expiry time.Time
}

// HasScope tells whether the principal was granted scope.
func (p *Principal) HasScope(scope string) bool {
	return slices.Contains(p.Scopes, scope)
}

func newPrincipal(issuer string, claims map[string]any, exp time.Time) *Principal {
	p := &Principal{Issuer: issuer, Claims: claims, Expiry: exp}
	p.Subject, _ = claims["sub"].(string)
	if id, _ := claims["client_id"].(string); id != "" {
		p.ClientID = id
	} else {
		p.ClientID, _ = claims["azp"].(string)
	}
	p.Scopes = scopes(claims)
	return p
}

func scopes(claims map[string]any) []string {
	if s, ok := claims["scope"].(string); ok {
		return strings.Fields(s)
	}
	switch s := claims["scp"].(type) {
	case string:
		return strings.Fields(s)
	case []any:
		var out []string
		for _, v := range s {
			if v, ok := v.(string); ok && v != "" {
				out = append(out, v)
			}
		}
		return out
	}
	return nil
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p, the principal of a request's
// verified token, for the handlers behind the check.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal WithPrincipal put in ctx, nil if none.
func PrincipalFrom(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}
