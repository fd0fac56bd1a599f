package oauth

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

func TestVerifyAlgorithms(t *testing.T) {
	for _, alg := range []jose.SignatureAlgorithm{jose.RS256, jose.PS256, jose.ES256, jose.ES384, jose.EdDSA} {
		t.Run(string(alg), func(t *testing.T) {
			k := newKey(t, "k-"+string(alg), alg)
			as := newFakeAS(t, "", k)
			v := newVerifier(t, config(t, as))
			p, err := v.Verify(context.Background(), as.token(k))
			if err != nil {
				t.Fatal(err)
			}
			if p.Issuer != as.issuer || p.Subject != "alice" || p.ClientID != "inspector" {
				t.Errorf("principal %+v", p)
			}
			if !p.HasScope("tools:call") || p.HasScope("admin") {
				t.Errorf("scopes %q", p.Scopes)
			}
			if p.Expiry.Before(time.Now()) {
				t.Errorf("expiry %v", p.Expiry)
			}
		})
	}
}

func TestVerifyClaims(t *testing.T) {
	k := newKey(t, "k1", jose.ES256)
	as := newFakeAS(t, "", k)
	v := newVerifier(t, config(t, as))
	for _, tc := range []struct {
		name     string
		kv       []any
		scopes   []string
		clientID string
	}{
		{"scope string", nil, []string{"tools:read", "tools:call"}, "inspector"},
		{"scp list", []any{"scope", nil, "scp", []string{"a", "b"}}, []string{"a", "b"}, "inspector"},
		{"scp string", []any{"scope", nil, "scp", "a b"}, []string{"a", "b"}, "inspector"},
		{"no scope", []any{"scope", nil}, nil, "inspector"},
		{"scope wins over scp", []any{"scp", []string{"x"}}, []string{"tools:read", "tools:call"}, "inspector"},
		{"azp", []any{"client_id", nil, "azp", "vscode"}, []string{"tools:read", "tools:call"}, "vscode"},
		{"client_id wins over azp", []any{"azp", "vscode"}, []string{"tools:read", "tools:call"}, "inspector"},
		{"aud list", []any{"aud", []string{"https://other.test", testResource}}, []string{"tools:read", "tools:call"}, "inspector"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kv := append([]any{"groups", []string{"eng", "ops"}}, tc.kv...)
			p, err := v.Verify(context.Background(), as.token(k, kv...))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(p.Scopes, " ") != strings.Join(tc.scopes, " ") {
				t.Errorf("scopes %q, want %q", p.Scopes, tc.scopes)
			}
			if p.ClientID != tc.clientID {
				t.Errorf("client id %q, want %q", p.ClientID, tc.clientID)
			}
			if g, _ := p.Claims["groups"].([]any); len(g) != 2 || g[0] != "eng" {
				t.Errorf("groups claim %v", p.Claims["groups"])
			}
		})
	}
}

// unsigned returns a JWT with the given header and claims and signature,
// for tokens no library would make.
func unsigned(header, claims map[string]any, sig []byte) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(header) + "." + enc(claims) + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func TestVerifyRefusals(t *testing.T) {
	k := newKey(t, "k1", jose.ES256)
	rk := newKey(t, "r1", jose.RS256)
	as := newFakeAS(t, "", k, rk)
	other := newFakeAS(t, "/other", newKey(t, "o1", jose.ES256))
	v := newVerifier(t, config(t, as, other))
	now := time.Now()

	// The issuer's RSA public key, as an attacker would find it, used as
	// an HMAC secret.
	der, err := x509.MarshalPKIXPublicKey(rk.priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	pub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	hmacSigner, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: jose.JSONWebKey{Key: pub, KeyID: "r1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(as.claims())
	hmacJWS, err := hmacSigner.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	hmacToken, _ := hmacJWS.CompactSerialize()

	impostor := newKey(t, "k1", jose.ES256) // same kid, another key

	for _, tc := range []struct {
		name  string
		token string
		want  error
		parts []string
	}{
		{"no token", "", ErrNoToken, []string{"no access token"}},
		{"garbage", "garbage", ErrMalformed, []string{"not a JWT"}},
		{"garbage with dots", "a.b.c", ErrMalformed, []string{"not a well-formed JWT"}},
		{"too long", strings.Repeat("a", maxToken+1), ErrMalformed, []string{"longer than"}},
		{"expired", as.token(k, "exp", now.Add(-2*time.Minute).Unix()), ErrExpired, []string{"expired at"}},
		{"not yet valid", as.token(k, "nbf", now.Add(2*time.Minute).Unix()), ErrNotYetValid, []string{"not valid before"}},
		{"issued in the future", as.token(k, "iat", now.Add(2*time.Minute).Unix()), ErrNotYetValid, []string{"issued in the future"}},
		{"no exp", as.token(k, "exp", nil), ErrMalformed, []string{"no exp"}},
		{"untrusted issuer", as.token(k, "iss", "https://evil.test"), ErrIssuer, []string{`"https://evil.test" is not trusted`}},
		{"no issuer", as.token(k, "iss", nil), ErrIssuer, []string{"not trusted"}},
		{"another trusted issuer's name on this issuer's key", as.token(k, "iss", other.issuer), ErrUnknownKey, []string{`no key "k1"`, other.issuer}},
		{"wrong audience", as.token(k, "aud", "https://other.test/mcp"), ErrAudience, []string{"https://other.test/mcp", testResource}},
		{"audience with a trailing slash", as.token(k, "aud", testResource+"/"), ErrAudience, nil},
		{"no audience", as.token(k, "aud", nil), ErrAudience, nil},
		{"alg none", unsigned(map[string]any{"alg": "none", "kid": "k1"}, as.claims(), nil), ErrAlgorithm, []string{`"none" is not allowed`}},
		{"HMAC signed with the public key", hmacToken, ErrAlgorithm, []string{`"HS256" is not allowed`}},
		{"unknown kid", as.token(newKey(t, "nope", jose.ES256)), ErrUnknownKey, []string{`no key "nope"`, as.issuer}},
		{"signed by another key with a known kid", as.token(impostor), ErrSignature, []string{"does not verify", `"k1"`}},
		{"signature of another token", func() string {
			a, b := as.token(k), as.token(k, "sub", "mallory")
			return b[:strings.LastIndex(b, ".")] + a[strings.LastIndex(a, "."):]
		}(), ErrSignature, nil},
		{"claims not an object", signPayload(t, k, "", []byte(`[1]`)), ErrMalformed, []string{"not a JSON object"}},
		{"typ of a DPoP proof", sign(t, k, "dpop+jwt", as.claims()), ErrMalformed, []string{"not an access token"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := v.Verify(context.Background(), tc.token)
			if err == nil {
				t.Fatalf("accepted: %+v", p)
			}
			refused(t, err, tc.token, tc.want, tc.parts...)
		})
	}
}

func TestVerifyAccepts(t *testing.T) {
	k := newKey(t, "k1", jose.ES256)
	as := newFakeAS(t, "", k)
	v := newVerifier(t, config(t, as))
	now := time.Now()
	for _, tc := range []struct {
		name  string
		token string
	}{
		{"typ JWT", sign(t, k, "JWT", as.claims())},
		{"no typ", sign(t, k, "", as.claims())},
		{"typ application/at+jwt", sign(t, k, "application/at+jwt", as.claims())},
		{"expired within the leeway", as.token(k, "exp", now.Add(-10*time.Second).Unix())},
		{"nbf within the leeway", as.token(k, "nbf", now.Add(10*time.Second).Unix())},
		{"no kid", as.token(signingKey{alg: k.alg, priv: k.priv})},
		{"no sub", as.token(k, "sub", nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := v.Verify(context.Background(), tc.token); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestLeeway(t *testing.T) {
	k := newKey(t, "k1", jose.ES256)
	as := newFakeAS(t, "", k)
	late := as.token(k, "exp", time.Now().Add(-10*time.Second).Unix())
	for _, tc := range []struct {
		leeway time.Duration
		ok     bool
	}{
		{0, true},   // DefaultLeeway
		{-1, false}, // none
		{5 * time.Second, false},
		{MaxLeeway, true},
	} {
		cfg := config(t, as)
		cfg.Leeway = tc.leeway
		_, err := newVerifier(t, cfg).Verify(context.Background(), late)
		if (err == nil) != tc.ok {
			t.Errorf("leeway %v: error %v, want accepted %v", tc.leeway, err, tc.ok)
		}
	}
}

// A token is verified once; later requests are answered from memory until
// it expires.
func TestVerifyOnce(t *testing.T) {
	k := newKey(t, "k1", jose.ES256)
	as := newFakeAS(t, "", k)
	v := newVerifier(t, config(t, as))
	exp := time.Now().Add(time.Minute).Truncate(time.Second)
	tok := as.token(k, "exp", exp.Unix())
	first, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	// Without its keys the Verifier could not verify the token again.
	as.set(func(a *fakeAS) { a.published = nil })
	fetches := as.jwksFetches.Load()
	second, err := v.Verify(context.Background(), tok)
	if err != nil || second != first {
		t.Fatalf("second Verify: %p, %v; want the first principal %p", second, err, first)
	}
	if as.jwksFetches.Load() != fetches {
		t.Error("a remembered token made the Verifier fetch keys")
	}
	v.now = func() time.Time { return exp.Add(DefaultLeeway + time.Second) }
	_, err = v.Verify(context.Background(), tok)
	refused(t, err, tok, ErrExpired)
}

func TestCacheBounded(t *testing.T) {
	c := newCache(10)
	now := time.Now()
	put := func(i int, until time.Time) {
		c.put([32]byte{byte(i), byte(i >> 8)}, result{principal: &Principal{}, until: until}, now)
	}
	for i := range 5 {
		put(i, now.Add(time.Second)) // soon expired
	}
	for i := 5; i < 10; i++ {
		put(i, now.Add(time.Hour))
	}
	now = now.Add(2 * time.Second)
	put(10, now.Add(time.Hour))
	if len(c.m) != 6 {
		t.Errorf("%d entries after a sweep of 5 expired ones, want 6", len(c.m))
	}
	for i := 11; i < 1000; i++ {
		put(i, now.Add(time.Hour))
		if len(c.m) > 10 {
			t.Fatalf("%d entries, cap 10", len(c.m))
		}
	}
	if _, ok := c.get([32]byte{byte(999 & 0xff), byte(999 >> 8)}, now); !ok {
		t.Error("the last token put is not remembered")
	}
	put(2000, now) // already expired: not kept
	if _, ok := c.get([32]byte{byte(2000 & 0xff), byte(2000 >> 8)}, now); ok {
		t.Error("an expired result is remembered")
	}
}

// Many requests at once, good and bad tokens, while the issuer rotates its
// keys: run with -race.
func TestVerifyConcurrent(t *testing.T) {
	k1, k2 := newKey(t, "k1", jose.ES256), newKey(t, "k2", jose.ES256)
	as := newFakeAS(t, "", k1)
	v := newVerifier(t, config(t, as))
	good := as.token(k1)
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			for j := range 20 {
				switch (i + j) % 4 {
				case 0:
					if _, err := v.Verify(context.Background(), good); err != nil {
						t.Error(err)
					}
				case 1:
					_, _ = v.Verify(context.Background(), as.token(k2))
				case 2:
					_, _ = v.Verify(context.Background(), as.token(newKey(t, kidOf(i, j), jose.ES256)))
				case 3:
					if _, err := v.Verify(context.Background(), as.token(k1, "aud", "x")); err == nil {
						t.Error("wrong audience accepted")
					}
				}
			}
		})
		if i == 32 {
			as.set(func(a *fakeAS) { a.published = []signingKey{k1, k2} })
		}
	}
	wg.Wait()
}

func kidOf(i, j int) string { return string(rune('a'+i%26)) + string(rune('a'+j%26)) }
