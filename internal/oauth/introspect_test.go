package oauth

import (
	"context"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// newIntrospectingAS returns an authorization server that introspects the
// opaque tokens of answers.
func newIntrospectingAS(t *testing.T, path string, answers map[string]map[string]any) *fakeAS {
	as := newFakeAS(t, path, newKey(t, "k1", jose.ES256))
	as.set(func(a *fakeAS) {
		a.introspect = true
		a.answers = answers
	})
	return as
}

func TestIntrospection(t *testing.T) {
	now := time.Now()
	exp := now.Add(time.Hour).Unix()
	as := newIntrospectingAS(t, "", nil)
	as.set(func(a *fakeAS) {
		a.answers = map[string]map[string]any{
			"good":       {"active": true, "sub": "bob", "client_id": "cli", "scope": "tools:call", "exp": exp, "groups": []string{"ops"}},
			"no-aud":     {"active": true, "sub": "bob", "exp": exp},
			"aud-list":   {"active": true, "aud": []string{"x", testResource}, "exp": exp},
			"revoked":    {"active": false},
			"other-aud":  {"active": true, "aud": "https://other.test", "exp": exp},
			"expired":    {"active": true, "exp": now.Add(-time.Hour).Unix()},
			"not-yet":    {"active": true, "nbf": now.Add(time.Hour).Unix(), "exp": exp},
			"other-iss":  {"active": true, "iss": "https://evil.test", "exp": exp},
			"active-str": {"active": "true"},
			"no-exp":     {"active": true, "sub": "carol"},
			"right-iss":  {"active": true, "iss": a.issuer, "exp": exp},
			"a.b.c.d.e":  {"active": true, "sub": "jwe", "exp": exp},
		}
	})
	v := newVerifier(t, config(t, as))
	ctx := context.Background()

	p, err := v.Verify(ctx, "good")
	if err != nil {
		t.Fatal(err)
	}
	if p.Issuer != as.issuer || p.Subject != "bob" || p.ClientID != "cli" || !p.HasScope("tools:call") || p.Expiry.Unix() != exp {
		t.Errorf("principal %+v", p)
	}
	if g, _ := p.Claims["groups"].([]any); len(g) != 1 {
		t.Errorf("claims %v", p.Claims)
	}

	for _, tc := range []struct {
		token string
		want  error // nil: accepted
		parts []string
	}{
		{"no-aud", nil, nil},
		{"aud-list", nil, nil},
		{"no-exp", nil, nil},
		{"right-iss", nil, nil},
		{"a.b.c.d.e", nil, nil}, // an encrypted JWT is the issuer's to read
		{"revoked", ErrInactive, []string{"not active"}},
		{"never-known", ErrInactive, nil},
		{"active-str", ErrInactive, nil},
		{"other-aud", ErrAudience, []string{"https://other.test"}},
		{"expired", ErrExpired, nil},
		{"not-yet", ErrNotYetValid, nil},
		{"other-iss", ErrIssuer, []string{"https://evil.test"}},
	} {
		t.Run(tc.token, func(t *testing.T) {
			_, err := v.Verify(ctx, tc.token)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			refused(t, err, "", tc.want, tc.parts...)
		})
	}
}

// An introspected token is believed until it expires, and at most
// introspectionTTL, after which a revocation is seen.
func TestIntrospectionCached(t *testing.T) {
	now := time.Now()
	as := newIntrospectingAS(t, "", map[string]map[string]any{
		"long":  {"active": true, "exp": now.Add(24 * time.Hour).Unix()},
		"short": {"active": true, "exp": now.Add(10 * time.Second).Unix()},
	})
	v := newVerifier(t, config(t, as))
	v.now = func() time.Time { return now }
	ctx := context.Background()
	for range 3 {
		if _, err := v.Verify(ctx, "long"); err != nil {
			t.Fatal(err)
		}
	}
	if n := as.introspectFetches.Load(); n != 1 {
		t.Errorf("%d introspection calls for one token, want 1", n)
	}

	as.set(func(a *fakeAS) { a.answers["long"] = map[string]any{"active": false} })
	v.now = func() time.Time { return now.Add(introspectionTTL + time.Second) }
	_, err := v.Verify(ctx, "long")
	refused(t, err, "long", ErrInactive)

	v.now = func() time.Time { return now }
	if _, err := v.Verify(ctx, "short"); err != nil {
		t.Fatal(err)
	}
	calls := as.introspectFetches.Load()
	v.now = func() time.Time { return now.Add(10*time.Second + DefaultLeeway + time.Second) }
	_, err = v.Verify(ctx, "short")
	refused(t, err, "short", ErrExpired)
	if as.introspectFetches.Load() != calls+1 {
		t.Error("an expired token was answered from memory")
	}
}

// Several issuers introspect: each is asked in turn until one knows the
// token.
func TestIntrospectionSeveralIssuers(t *testing.T) {
	a := newIntrospectingAS(t, "/a", map[string]map[string]any{})
	b := newIntrospectingAS(t, "/b", map[string]map[string]any{"opaque-tok": {"active": true, "sub": "dave"}})
	v := newVerifier(t, config(t, a, b))
	p, err := v.Verify(context.Background(), "opaque-tok")
	if err != nil {
		t.Fatal(err)
	}
	if p.Issuer != b.issuer || p.Subject != "dave" {
		t.Errorf("principal %+v", p)
	}
	if a.introspectFetches.Load() != 1 || b.introspectFetches.Load() != 1 {
		t.Errorf("introspection calls: %d at a, %d at b", a.introspectFetches.Load(), b.introspectFetches.Load())
	}
}

func TestIntrospectionRefused(t *testing.T) {
	ctx := context.Background()

	// No credentials: nothing introspects, and a non-JWT is malformed.
	as := newIntrospectingAS(t, "", map[string]map[string]any{"opaque-tok": {"active": true}})
	cfg := config(t, as)
	cfg.Issuers[0].IntrospectionClientID, cfg.Issuers[0].IntrospectionSecret = "", ""
	_, err := newVerifier(t, cfg).Verify(ctx, "opaque-tok")
	refused(t, err, "opaque-tok", ErrMalformed, "no trusted issuer introspects")
	if as.introspectFetches.Load() != 0 {
		t.Error("introspected without credentials")
	}

	// Wrong credentials: the issuer answers 401.
	cfg = config(t, as)
	cfg.Issuers[0].IntrospectionSecret = "wrong"
	_, err = newVerifier(t, cfg).Verify(ctx, "opaque-tok")
	refused(t, err, "opaque-tok", ErrUnavailable, "401")

	// The endpoint is down.
	v := newVerifier(t, config(t, as))
	as.srv.Close()
	_, err = v.Verify(ctx, "opaque-tok")
	refused(t, err, "opaque-tok", ErrUnavailable, "introspection")
}
