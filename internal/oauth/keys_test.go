package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/time/rate"
)

// The issuer rotates its keys: a token naming the new key makes the Verifier
// fetch the set again; the withdrawn key stops verifying, even for a token
// it verified before.
func TestKeyRotation(t *testing.T) {
	k1, k2 := newKey(t, "k1", jose.ES256), newKey(t, "k2", jose.ES256)
	as := newFakeAS(t, "", k1)
	v := newVerifier(t, config(t, as))
	ctx := context.Background()
	old := as.token(k1)
	if _, err := v.Verify(ctx, old); err != nil {
		t.Fatal(err)
	}

	as.set(func(a *fakeAS) { a.published = []signingKey{k2} })
	if _, err := v.Verify(ctx, as.token(k2)); err != nil {
		t.Fatalf("token of the new key: %v", err)
	}
	if n := as.jwksFetches.Load(); n != 2 {
		t.Errorf("%d key-set fetches, want 2 (discovery, rotation)", n)
	}
	_, err := v.Verify(ctx, old)
	refused(t, err, old, ErrUnknownKey, `no key "k1"`)
	fresh := as.token(k1)
	_, err = v.Verify(ctx, fresh)
	refused(t, err, fresh, ErrUnknownKey, `no key "k1"`)
}

// With the key-set endpoint down, the keys fetched before keep verifying; a
// token naming an unknown key is refused, saying so.
func TestKeySetDown(t *testing.T) {
	k1 := newKey(t, "k1", jose.ES256)
	as := newFakeAS(t, "", k1)
	v := newVerifier(t, config(t, as))
	ctx := context.Background()
	as.set(func(a *fakeAS) { a.jwksDown = true })

	if _, err := v.Verify(ctx, as.token(k1)); err != nil {
		t.Fatalf("a cached key no longer verifies: %v", err)
	}
	tok := as.token(newKey(t, "k9", jose.ES256))
	_, err := v.Verify(ctx, tok)
	refused(t, err, tok, ErrUnknownKey, `no key "k9"`, as.issuer, "could not be fetched", "502")
	if _, err := v.Verify(ctx, as.token(k1)); err != nil {
		t.Fatalf("a failed fetch dropped the cached keys: %v", err)
	}
}

// Tokens naming made-up keys, many at once, make the Verifier ask the issuer
// for its keys at most once per retryEvery.
func TestKeyFlood(t *testing.T) {
	k1 := newKey(t, "k1", jose.ES256)
	as := newFakeAS(t, "", k1)
	v := newVerifier(t, config(t, as))
	signer := newKey(t, "", jose.ES256)
	before := as.jwksFetches.Load()
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			for j := range 16 {
				signer := signer
				signer.kid = fmt.Sprintf("flood-%d-%d", i, j)
				tok := as.token(signer)
				if _, err := v.Verify(context.Background(), tok); err == nil {
					t.Error("a token of a made-up key was accepted")
				}
			}
		})
	}
	wg.Wait()
	if n := as.jwksFetches.Load() - before; n > 1 {
		t.Errorf("512 tokens of unknown keys made %d key-set fetches, want at most 1", n)
	}
	if _, err := v.Verify(context.Background(), as.token(k1)); err != nil {
		t.Errorf("a good token after the flood: %v", err)
	}
}

// A key set is fetched again once it is old, even if no token names a new
// key, so that a withdrawn key stops verifying; until then the old set
// serves.
func TestKeySetRefreshedWhenOld(t *testing.T) {
	k1, k2 := newKey(t, "k1", jose.ES256), newKey(t, "k2", jose.ES256)
	as := newFakeAS(t, "", k1, k2)
	v := newVerifier(t, config(t, as))
	ctx := context.Background()
	tok := as.token(k1)
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatal(err)
	}
	as.set(func(a *fakeAS) { a.published = []signingKey{k2} })
	later := time.Now().Add(keysMaxAge + time.Minute)
	v.now = func() time.Time { return later }
	// The token that notices the set is old is still verified with it.
	if _, err := v.Verify(ctx, as.token(k1, "exp", later.Add(time.Hour).Unix())); err != nil {
		t.Fatalf("while the set is refreshed: %v", err)
	}
	eventually(t, "refreshed", func() bool { return as.jwksFetches.Load() == 2 && !v.issuers[0].refreshing.Load() })
	fresh := as.token(k1, "exp", later.Add(time.Hour).Unix())
	_, err := v.Verify(ctx, fresh)
	refused(t, err, fresh, ErrUnknownKey, `no key "k1"`)
}

// Keys a key set holds that cannot verify a signature are left out, and the
// others serve.
func TestKeySetUnusableKeys(t *testing.T) {
	k1 := newKey(t, "k1", jose.ES256)
	as := newFakeAS(t, "", k1)
	encKey := newKey(t, "enc", jose.ES256)
	encJWK, _ := json.Marshal(jose.JSONWebKey{Key: encKey.priv.Public(), KeyID: "enc", Use: "enc"})
	privJWK, _ := json.Marshal(jose.JSONWebKey{Key: encKey.priv, KeyID: "private", Algorithm: "ES256"})
	extra := []json.RawMessage{
		json.RawMessage(`{"kty":"oct","kid":"hmac","k":"c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"}`),
		json.RawMessage(`{"kty":"future","kid":"new"}`),
		json.RawMessage(`{"kty":"RSA","kid":"broken"}`),
		encJWK,
		privJWK,
	}
	as.set(func(a *fakeAS) { a.extraKeys = extra })
	v := newVerifier(t, config(t, as))
	if _, err := v.Verify(context.Background(), as.token(k1)); err != nil {
		t.Fatal(err)
	}
	if ks := v.issuers[0].keys.Load(); len(ks.all) != 1 {
		t.Errorf("%d keys kept, want only k1", len(ks.all))
	}
	for _, kid := range []string{"enc", "private"} {
		tok := as.token(signingKey{kid: kid, alg: jose.ES256, priv: encKey.priv})
		_, err := v.Verify(context.Background(), tok)
		refused(t, err, tok, ErrUnknownKey)
	}

	// A set with nothing usable is an error, not an empty set.
	as.set(func(a *fakeAS) { a.published = nil })
	v.issuers[0].fetchLimit.SetLimit(rate.Inf)
	tok := as.token(newKey(t, "k2", jose.ES256))
	_, err := v.Verify(context.Background(), tok)
	refused(t, err, tok, ErrUnknownKey, "no public signing key")
	if _, err := v.Verify(context.Background(), as.token(k1)); err != nil {
		t.Errorf("an unusable set replaced the keys: %v", err)
	}
}

// A key whose JWK names an algorithm verifies only tokens of that algorithm.
func TestKeyAlgorithmPinned(t *testing.T) {
	ks := &keySet{byID: map[string][]jose.JSONWebKey{}}
	for _, k := range []jose.JSONWebKey{{KeyID: "a", Algorithm: "ES256"}, {KeyID: "a"}, {KeyID: "b", Algorithm: "RS256"}} {
		ks.all = append(ks.all, k)
		ks.byID[k.KeyID] = append(ks.byID[k.KeyID], k)
	}
	for _, tc := range []struct {
		kid, alg string
		want     int
	}{
		{"a", "ES256", 2},
		{"a", "ES384", 1},
		{"b", "ES256", 0},
		{"", "RS256", 2},
		{"c", "ES256", 0},
	} {
		if got := len(ks.find(tc.kid, tc.alg)); got != tc.want {
			t.Errorf("find(%q, %q): %d keys, want %d", tc.kid, tc.alg, got, tc.want)
		}
	}
}
