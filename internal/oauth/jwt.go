package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// algorithms are the signature algorithms a JWT access token may use: the
// asymmetric ones of RFC 7518 and RFC 8037. Never none, and never HMAC: an
// issuer's keys are public, and a token "signed" with a public key as an
// HMAC secret proves nothing.
var algorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.EdDSA,
}

// verifyJWT verifies a JWT access token (RFC 9068): signed by a key of the
// issuer its iss names, for this resource, and within its lifetime.
func (v *Verifier) verifyJWT(ctx context.Context, token string, now time.Time) (result, error) {
	jws, err := jose.ParseSignedCompact(token, algorithms)
	if err != nil {
		var alg *jose.ErrUnexpectedSignatureAlgorithm
		if errors.As(err, &alg) {
			return result{}, refuse(ErrAlgorithm, "signature algorithm %q is not allowed", alg.Got)
		}
		return result{}, refuse(ErrMalformed, "not a well-formed JWT: %v", err)
	}
	head := jws.Signatures[0].Header
	if typ, ok := head.ExtraHeaders[jose.HeaderType]; ok && !accessTokenType(typ) {
		return result{}, refuse(ErrMalformed, "a JWT of type %v is not an access token", typ)
	}

	// The issuer is read before the signature is checked, only to know
	// whose keys to check it with; the claims are read again, verified.
	var claimed struct {
		Issuer string `json:"iss"`
	}
	if err := json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &claimed); err != nil {
		return result{}, refuse(ErrMalformed, "JWT claims are not a JSON object: %v", err)
	}
	is := v.byURL[claimed.Issuer]
	if is == nil {
		return result{}, refuse(ErrIssuer, "issuer %q is not trusted", claimed.Issuer)
	}
	meta, err := is.ensure(ctx)
	if err != nil {
		return result{}, refuse(ErrUnavailable, "%v", err)
	}
	if meta.JWKSURI == "" {
		return result{}, refuse(ErrUnknownKey, "issuer %s publishes no keys (no jwks_uri) to verify a JWT with", is.url)
	}
	keys, set, err := is.candidates(ctx, meta.JWKSURI, head.KeyID, head.Algorithm)
	if err != nil {
		return result{}, err
	}
	var payload []byte
	for _, k := range keys {
		if payload, err = jws.Verify(k.Key); err == nil {
			break
		}
	}
	if payload == nil {
		return result{}, refuse(ErrSignature, "signature does not verify with key %q of issuer %s", head.KeyID, is.url)
	}

	var std jwt.Claims
	var all map[string]any
	if err := json.Unmarshal(payload, &std); err != nil {
		return result{}, refuse(ErrMalformed, "JWT claims: %v", err)
	}
	if err := json.Unmarshal(payload, &all); err != nil {
		return result{}, refuse(ErrMalformed, "JWT claims: %v", err)
	}
	if std.Expiry == nil {
		return result{}, refuse(ErrMalformed, "JWT has no exp claim")
	}
	exp := std.Expiry.Time()
	err = std.ValidateWithLeeway(jwt.Expected{Issuer: is.url, AnyAudience: jwt.Audience{v.resource}, Time: now}, v.leeway)
	switch {
	case err == nil:
	case errors.Is(err, jwt.ErrExpired):
		return result{}, refuse(ErrExpired, "token expired at %s", exp.UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrNotValidYet):
		return result{}, refuse(ErrNotYetValid, "token not valid before %s", std.NotBefore.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return result{}, refuse(ErrNotYetValid, "token issued in the future, at %s", std.IssuedAt.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrInvalidAudience):
		return result{}, refuse(ErrAudience, "token is for %q, not for this resource %q", []string(std.Audience), v.resource)
	default:
		return result{}, refuse(ErrMalformed, "JWT claims: %v", err)
	}
	return result{
		principal: newPrincipal(is.url, all, exp),
		until:     exp.Add(v.leeway),
		keys:      set,
		issuer:    is,
	}, nil
}

// accessTokenType tells whether a JWT's typ header allows it to be an
// access token: at+jwt (RFC 9068 §2.1), or the plain JWT or no typ that
// many identity providers still send. Other types (ID tokens marked as such,
// logout tokens, DPoP proofs) are refused.
func accessTokenType(typ any) bool {
	s, ok := typ.(string)
	if !ok {
		return false
	}
	s = strings.TrimPrefix(strings.ToLower(s), "application/")
	return s == "at+jwt" || s == "jwt"
}
