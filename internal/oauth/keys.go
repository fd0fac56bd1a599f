package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// keySet is an issuer's published signing keys as one fetch returned them.
// It is never changed: a fetch replaces it whole, so a key the issuer
// withdrew is gone with the set that held it.
type keySet struct {
	byID    map[string][]jose.JSONWebKey
	all     []jose.JSONWebKey
	fetched time.Time
}

// fetchKeys fetches and parses the key set at uri.
func (is *issuer) fetchKeys(ctx context.Context, uri string) (*keySet, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := is.do(req, &doc); err != nil {
		return nil, fmt.Errorf("key set: %w", err)
	}
	ks := &keySet{byID: make(map[string][]jose.JSONWebKey), fetched: is.now()}
	skipped := 0
	for _, raw := range doc.Keys {
		var k jose.JSONWebKey
		// Keys for encryption, symmetric keys and keys go-jose cannot read
		// (a type newer than it) are left out, not fatal: the others
		// still verify.
		if err := k.UnmarshalJSON(raw); err != nil || k.Use == "enc" || !k.IsPublic() || !k.Valid() {
			skipped++
			continue
		}
		ks.all = append(ks.all, k)
		ks.byID[k.KeyID] = append(ks.byID[k.KeyID], k)
	}
	if len(ks.all) == 0 {
		return nil, fmt.Errorf("key set at %s has no public signing key (%d left out)", uri, skipped)
	}
	if skipped > 0 {
		is.log.Debug("keys left out of a key set", "issuer", is.url, "jwks_uri", uri, "count", skipped)
	}
	return ks, nil
}

// find returns the keys that may have signed a token with header kid and
// alg. A token without kid may have been signed by any key of the set.
func (ks *keySet) find(kid, alg string) []jose.JSONWebKey {
	if ks == nil {
		return nil
	}
	keys := ks.all
	if kid != "" {
		keys = ks.byID[kid]
	}
	var found []jose.JSONWebKey
	for _, k := range keys {
		if k.Algorithm == "" || k.Algorithm == alg {
			found = append(found, k)
		}
	}
	return found
}

// candidates returns the keys that may have signed a token with header kid
// and alg, and the set they are from. When the set has none, the issuer is
// asked for its keys again, unless it was asked less than retryEvery ago:
// keys rotate, but a token naming a key is no reason to ask every time.
func (is *issuer) candidates(ctx context.Context, jwksURI, kid, alg string) ([]jose.JSONWebKey, *keySet, error) {
	ks := is.keys.Load()
	is.refreshIfOld(ks, jwksURI)
	if found := ks.find(kid, alg); len(found) > 0 {
		return found, ks, nil
	}
	unknown := func(why string, args ...any) *Error {
		e := refuse(ErrUnknownKey, "no key %q for %s at issuer %s", kid, alg, is.url)
		if why != "" {
			e.Description += ": " + fmt.Sprintf(why, args...)
		}
		return e
	}
	select {
	case is.fetching <- struct{}{}:
		defer func() { <-is.fetching }()
	case <-ctx.Done():
		return nil, nil, unknown("%v", ctx.Err())
	}
	// Another request may have fetched the set while this one waited.
	if cur := is.keys.Load(); cur != ks {
		ks = cur
		if found := ks.find(kid, alg); len(found) > 0 {
			return found, ks, nil
		}
	}
	if !is.fetchLimit.Allow() {
		return nil, nil, unknown("")
	}
	fctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	fresh, err := is.fetchKeys(fctx, jwksURI)
	if err != nil {
		is.log.Warn("key set not fetched; the keys known before still verify", "issuer", is.url, "err", err)
		return nil, nil, unknown("its key set could not be fetched again: %v", err)
	}
	is.keys.Store(fresh)
	if found := fresh.find(kid, alg); len(found) > 0 {
		return found, fresh, nil
	}
	return nil, nil, unknown("")
}

// refreshIfOld fetches the key set again in the background once it is older
// than keysMaxAge, so that a key the issuer withdrew stops verifying even if
// no token names a new one. A failure keeps the set there is.
func (is *issuer) refreshIfOld(ks *keySet, jwksURI string) {
	if ks == nil || is.now().Sub(ks.fetched) < keysMaxAge || !is.refreshing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer is.refreshing.Store(false)
		if !is.fetchLimit.Allow() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		fresh, err := is.fetchKeys(ctx, jwksURI)
		if err != nil {
			is.log.Warn("key set not refreshed; the keys known before still verify", "issuer", is.url, "err", err)
			return
		}
		is.keys.CompareAndSwap(ks, fresh)
	}()
}
