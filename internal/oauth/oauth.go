// Package oauth verifies the access tokens that clients present to an MCP
// server over HTTP, with the server as an OAuth 2.1 resource server (the MCP
// authorization specification, 2025-11-25).
//
// A Verifier trusts one or more authorization servers, each named by its
// issuer URL. It learns their endpoints by discovery (RFC 8414, then OpenID
// Connect Discovery), verifies JWT access tokens (RFC 9068) against each
// issuer's published keys and asks an issuer about an opaque token by
// introspection (RFC 7662). A token is checked once: what it proved is kept
// until it expires, so a session's later requests cost a map lookup.
//
// The package knows nothing of MCP or of HTTP handlers: it turns a bearer
// token into a Principal or an Error, and gives the documents (RFC 9728
// Protected Resource Metadata) and the challenge (RFC 6750 WWW-Authenticate)
// an HTTP layer sends.
package oauth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

const (
	// MaxLeeway is the largest tolerance for clock skew on a token's exp,
	// nbf and iat that a Config may ask for.
	MaxLeeway = time.Minute
	// DefaultLeeway is the tolerance when Config.Leeway is zero.
	DefaultLeeway = 30 * time.Second
)

// Bounds on what an authorization server, or a stream of tokens, can make a
// Verifier do.
const (
	// fetchTimeout bounds one discovery, one key-set fetch or one
	// introspection call.
	fetchTimeout = 10 * time.Second
	// maxDocument caps every document read from an authorization server.
	maxDocument = 1 << 20
	// maxToken caps the length of a token; real access tokens, even with
	// many group claims, are a few kilobytes.
	maxToken = 16 << 10
	// retryEvery is the least time between two attempts at the discovery of
	// an issuer, and between two fetches of its keys prompted by tokens.
	retryEvery = 10 * time.Second
	// keysMaxAge is the age after which a key set is fetched again even if
	// no token asked for a new key, so that withdrawn keys stop verifying.
	keysMaxAge = time.Hour
	// cacheEntries caps the number of verified tokens remembered.
	cacheEntries = 10000
	// introspectionTTL caps how long an introspected token is believed
	// without asking again: the delay after which a revocation is seen.
	introspectionTTL = 2 * time.Minute
	// introspectionConcurrency caps the introspection calls in flight to one
	// issuer, so that a flood of made-up opaque tokens cannot open
	// unbounded connections to it.
	introspectionConcurrency = 8
)

// Config configures a Verifier. It is read once, by New.
type Config struct {
	// Issuers are the authorization servers whose tokens are accepted.
	Issuers []Issuer
	// Resource is this server's canonical URI (RFC 8707), such as
	// "https://mcp.example.com/mcp". A token is accepted only if its
	// audience contains it: a token minted for another resource is never
	// passed through.
	Resource string
	// Leeway is the tolerance for clock skew on exp, nbf and iat, at most
	// MaxLeeway. Zero means DefaultLeeway; a negative value means none.
	Leeway time.Duration
	// HTTPClient makes the calls to the authorization servers; nil means
	// a client of its own. Redirects are followed only to URLs an issuer
	// could have itself (https, or http on a loopback address).
	HTTPClient *http.Client
	// Logger receives what happens between the Verifier and the
	// authorization servers (discovery failures, key refreshes); nil
	// discards it.
	Logger *slog.Logger
}

// Issuer is a trusted authorization server.
type Issuer struct {
	// URL is the issuer identifier, exactly as the server's metadata and
	// its tokens' iss claim spell it. It must be https, except on a
	// loopback address (127.0.0.0/8, ::1, localhost).
	URL string
	// IntrospectionClientID and IntrospectionSecret are the credentials
	// this server presents (HTTP Basic) to the issuer's introspection
	// endpoint. Without them opaque tokens are not introspected at this
	// issuer.
	IntrospectionClientID string
	IntrospectionSecret   string
}

// Verifier turns bearer tokens into principals. It is safe for concurrent
// use.
type Verifier struct {
	resource string
	leeway   time.Duration
	issuers  []*issuer
	byURL    map[string]*issuer
	cache    *cache
	log      *slog.Logger
	// now is the clock, replaced by tests.
	now func() time.Time
}

// New checks cfg and discovers every issuer, each within a bounded time. A
// configuration error (an issuer that is not https off loopback, a resource
// that is not an absolute URI, a leeway above MaxLeeway) is returned before
// any connection is made. An issuer whose discovery fails does not fail New:
// the failure is logged, Discover reports it, and it is tried again when a
// token names that issuer, at most once every few seconds.
func New(ctx context.Context, cfg Config) (*Verifier, error) {
	if len(cfg.Issuers) == 0 {
		return nil, errors.New("oauth: no issuer to trust")
	}
	if err := checkResource(cfg.Resource); err != nil {
		return nil, err
	}
	leeway := cfg.Leeway
	switch {
	case leeway > MaxLeeway:
		return nil, fmt.Errorf("oauth: leeway %v is above the maximum of %v", leeway, MaxLeeway)
	case leeway == 0:
		leeway = DefaultLeeway
	case leeway < 0:
		leeway = 0
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	v := &Verifier{
		resource: cfg.Resource,
		leeway:   leeway,
		byURL:    make(map[string]*issuer, len(cfg.Issuers)),
		cache:    newCache(cacheEntries),
		log:      log,
		now:      time.Now,
	}
	client := guardRedirects(cfg.HTTPClient)
	for _, c := range cfg.Issuers {
		is, err := newIssuer(c, client, log, v.clock)
		if err != nil {
			return nil, err
		}
		if v.byURL[c.URL] != nil {
			return nil, fmt.Errorf("oauth: issuer %s is listed twice", c.URL)
		}
		v.byURL[c.URL] = is
		v.issuers = append(v.issuers, is)
	}

	var wg sync.WaitGroup
	for _, is := range v.issuers {
		wg.Go(func() {
			if _, err := is.ensure(ctx); err != nil {
				log.Warn("issuer not discovered; tokens it issued are refused until it is", "issuer", is.url, "err", err)
			}
		})
	}
	wg.Wait()
	return v, nil
}

func (v *Verifier) clock() time.Time { return v.now() }

// Discover tries again the discovery of the issuers not discovered yet (each
// at most once every few seconds) and returns why each of those still
// missing failed, or nil when every issuer is known.
func (v *Verifier) Discover(ctx context.Context) error {
	errs := make([]error, len(v.issuers))
	var wg sync.WaitGroup
	for i, is := range v.issuers {
		wg.Go(func() { _, errs[i] = is.ensure(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// ScopesSupported returns the union of the scopes the discovered issuers
// advertise (scopes_supported), sorted, so that a server can check the
// scopes its policy names against them.
func (v *Verifier) ScopesSupported() []string {
	var all []string
	for _, is := range v.issuers {
		if m := is.meta.Load(); m != nil {
			all = append(all, m.ScopesSupported...)
		}
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// Verify returns the principal that token proves, or an *Error that says why
// it proves nothing. A token with two dots is a JWT, verified against the
// keys of the issuer its iss claim names; any other is introspected at the
// issuers that offer it, in the order of Config.Issuers. A token verified
// before is answered from memory until it expires; the Principal returned is
// then shared and must not be modified.
func (v *Verifier) Verify(ctx context.Context, token string) (*Principal, error) {
	if token == "" {
		return nil, &Error{Description: "no access token", Err: ErrNoToken}
	}
	if len(token) > maxToken {
		return nil, refuse(ErrMalformed, "token is longer than %d bytes", maxToken)
	}
	now := v.now()
	sum := sha256.Sum256([]byte(token))
	if p, ok := v.cache.get(sum, now); ok {
		return p, nil
	}
	var (
		r   result
		err error
	)
	if strings.Count(token, ".") == 2 {
		r, err = v.verifyJWT(ctx, token, now)
	} else {
		r, err = v.introspect(ctx, token, now)
	}
	if err != nil {
		return nil, err
	}
	v.cache.put(sum, r, now)
	return r.principal, nil
}

// result is what a verification proved and how long it may be believed.
type result struct {
	principal *Principal
	until     time.Time
	// keys is the key set that verified a JWT, and issuer its owner: a
	// remembered JWT is verified again once the issuer's keys change, so a
	// withdrawn key stops vouching for the tokens it signed. Nil for an
	// introspected token.
	keys   *keySet
	issuer *issuer
}

// checkResource checks that a resource is an absolute URI without a
// fragment (RFC 8707 §2).
func checkResource(s string) error {
	if s == "" {
		return errors.New("oauth: no resource: tokens could not be checked for this server's audience")
	}
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("oauth: resource %q: %w", s, err)
	}
	if !u.IsAbs() || u.Host == "" || strings.Contains(s, "#") {
		return fmt.Errorf("oauth: resource %q is not an absolute URI without a fragment", s)
	}
	return nil
}
