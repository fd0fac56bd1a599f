package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// introspect asks the issuers that offer introspection, and for which this
// server has credentials, about an opaque token (RFC 7662), in the order of
// Config.Issuers, until one says it is active. The token is thus shown to
// each trusted issuer before the one that issued it.
func (v *Verifier) introspect(ctx context.Context, token string, now time.Time) (result, error) {
	var errs []error
	asked := 0
	for _, is := range v.issuers {
		if is.id == "" {
			continue
		}
		meta, err := is.ensure(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if meta.IntrospectionEndpoint == "" {
			continue
		}
		asked++
		r, err := v.introspectAt(ctx, is, meta.IntrospectionEndpoint, token, now)
		if err == nil {
			return r, nil
		}
		var e *Error
		if !errors.As(err, &e) || (e.Err != ErrInactive && e.Err != ErrUnavailable) {
			// The issuer knows the token and says it is not for us.
			return result{}, err
		}
		if e.Err == ErrUnavailable {
			errs = append(errs, errors.New(e.Description))
		}
	}
	switch {
	case len(errs) > 0:
		return result{}, refuse(ErrUnavailable, "token could not be introspected: %v", joinErrors(errs))
	case asked == 0:
		return result{}, refuse(ErrMalformed, "not a JWT, and no trusted issuer introspects tokens for this server")
	}
	return result{}, refuse(ErrInactive, "token is not active at any trusted issuer")
}

// introspectAt asks one issuer about token.
func (v *Verifier) introspectAt(ctx context.Context, is *issuer, endpoint, token string, now time.Time) (result, error) {
	select {
	case is.introspecting <- struct{}{}:
		defer func() { <-is.introspecting }()
	case <-ctx.Done():
		return result{}, refuse(ErrUnavailable, "issuer %s: waiting to introspect: %v", is.url, ctx.Err())
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return result{}, refuse(ErrUnavailable, "issuer %s: %v", is.url, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	// RFC 6749 §2.3.1: the client id and secret are form-encoded first.
	req.SetBasicAuth(url.QueryEscape(is.id), url.QueryEscape(is.secret))
	var answer map[string]any
	if err := is.do(req, &answer); err != nil {
		return result{}, refuse(ErrUnavailable, "issuer %s: introspection: %v", is.url, err)
	}

	if active, _ := answer["active"].(bool); !active {
		return result{}, refuse(ErrInactive, "issuer %s says the token is not active", is.url)
	}
	if iss, ok := answer["iss"]; ok && iss != is.url {
		return result{}, refuse(ErrIssuer, "introspection at %s answered for issuer %v, not %s", endpoint, iss, is.url)
	}
	if aud, ok := answer["aud"]; ok && !audienceHas(aud, v.resource) {
		return result{}, refuse(ErrAudience, "token is for %v, not for this resource %q", aud, v.resource)
	}
	exp := unixClaim(answer, "exp")
	if !exp.IsZero() && now.Add(-v.leeway).After(exp) {
		return result{}, refuse(ErrExpired, "token expired at %s", exp.UTC().Format(time.RFC3339))
	}
	if nbf := unixClaim(answer, "nbf"); !nbf.IsZero() && now.Add(v.leeway).Before(nbf) {
		return result{}, refuse(ErrNotYetValid, "token not valid before %s", nbf.UTC().Format(time.RFC3339))
	}
	until := now.Add(introspectionTTL)
	if !exp.IsZero() && exp.Add(v.leeway).Before(until) {
		until = exp.Add(v.leeway)
	}
	return result{principal: newPrincipal(is.url, answer, exp), until: until}, nil
}

// audienceHas tells whether an aud value (a string or a list of them)
// contains resource.
func audienceHas(aud any, resource string) bool {
	switch aud := aud.(type) {
	case string:
		return aud == resource
	case []any:
		return slices.Contains(aud, any(resource))
	}
	return false
}

// unixClaim returns a NumericDate claim as a time, zero if absent.
func unixClaim(claims map[string]any, name string) time.Time {
	f, ok := claims[name].(float64)
	if !ok {
		return time.Time{}
	}
	return time.Unix(int64(f), 0)
}
