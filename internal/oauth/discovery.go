package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// issuer is a trusted authorization server and what is known of it.
type issuer struct {
	url    string
	base   *url.URL
	id     string // introspection client id
	secret string
	client *http.Client
	log    *slog.Logger
	now    func() time.Time

	// meta is nil until discovery succeeds; then it and keys are set.
	meta    atomic.Pointer[metadata]
	lastErr atomic.Pointer[error]
	// discovering serialises discovery and guards lastTry, the time of the
	// last attempt, which spaces attempts by retryEvery.
	discovering chan struct{}
	lastTry     time.Time

	keys atomic.Pointer[keySet]
	// fetching serialises key fetches prompted by tokens; fetchLimit spaces
	// them, so that tokens naming made-up keys cannot make the Verifier
	// hammer the issuer.
	fetching   chan struct{}
	fetchLimit *rate.Limiter
	refreshing atomic.Bool

	introspecting chan struct{}
}

// metadata is what a Verifier uses of an authorization server's metadata
// (RFC 8414 §2; OpenID Connect Discovery names the same fields).
type metadata struct {
	Issuer                string   `json:"issuer"`
	JWKSURI               string   `json:"jwks_uri"`
	IntrospectionEndpoint string   `json:"introspection_endpoint"`
	ScopesSupported       []string `json:"scopes_supported"`
}

func newIssuer(c Issuer, client *http.Client, log *slog.Logger, now func() time.Time) (*issuer, error) {
	u, err := checkURL("issuer", c.URL)
	if err != nil {
		return nil, err
	}
	if u.RawQuery != "" || u.ForceQuery {
		return nil, fmt.Errorf("oauth: issuer %s has a query; an issuer identifier has none (RFC 8414 §2)", c.URL)
	}
	if c.IntrospectionSecret != "" && c.IntrospectionClientID == "" {
		return nil, fmt.Errorf("oauth: issuer %s: an introspection secret without a client id", c.URL)
	}
	return &issuer{
		url:           c.URL,
		base:          u,
		id:            c.IntrospectionClientID,
		secret:        c.IntrospectionSecret,
		client:        client,
		log:           log,
		now:           now,
		discovering:   make(chan struct{}, 1),
		fetching:      make(chan struct{}, 1),
		fetchLimit:    rate.NewLimiter(rate.Every(retryEvery), 1),
		introspecting: make(chan struct{}, introspectionConcurrency),
	}, nil
}

// checkURL parses an absolute URL an authorization server is reached at:
// https, or plain http on a loopback address only, where no one on the way
// can read or change what is said.
func checkURL(what, s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("oauth: %s %q: %w", what, s, err)
	}
	if u.Host == "" || u.User != nil || u.Fragment != "" {
		return nil, fmt.Errorf("oauth: %s %q is not an absolute URL with a host and no user or fragment", what, s)
	}
	if err := checkScheme(u); err != nil {
		return nil, fmt.Errorf("oauth: %s %s: %w", what, s, err)
	}
	return u, nil
}

func checkScheme(u *url.URL) error {
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if loopback(u.Hostname()) {
			return nil
		}
		return errors.New("plain http is allowed only on a loopback address (127.0.0.0/8, ::1, localhost); use https")
	}
	return fmt.Errorf("scheme %q is not https", u.Scheme)
}

// loopback tells whether host is a loopback address or the name localhost,
// without resolving anything.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// guardRedirects returns a copy of c (or a new client) that follows a
// redirect only to a URL checkURL accepts and never from https to http.
func guardRedirects(c *http.Client) *http.Client {
	var g http.Client
	if c != nil {
		g = *c
	}
	next := g.CheckRedirect
	g.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := checkScheme(req.URL); err != nil {
			return fmt.Errorf("redirect to %s refused: %w", req.URL.Redacted(), err)
		}
		if via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("redirect from https to %s refused", req.URL.Redacted())
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &g
}

// ensure returns the issuer's metadata, discovering it first if no attempt
// has succeeded yet and none was made in the last retryEvery.
func (is *issuer) ensure(ctx context.Context) (*metadata, error) {
	if m := is.meta.Load(); m != nil {
		return m, nil
	}
	select {
	case is.discovering <- struct{}{}:
		defer func() { <-is.discovering }()
	case <-ctx.Done():
		return nil, fmt.Errorf("issuer %s: waiting for discovery: %w", is.url, ctx.Err())
	}
	if m := is.meta.Load(); m != nil {
		return m, nil
	}
	if is.now().Sub(is.lastTry) < retryEvery {
		if err := is.lastErr.Load(); err != nil {
			return nil, *err
		}
		return nil, fmt.Errorf("issuer %s not discovered yet", is.url)
	}
	m, keys, err := is.discover(ctx)
	if err != nil {
		err = fmt.Errorf("issuer %s not discovered: %w", is.url, err)
		// A caller that went away (a client that hung up) proves nothing
		// about the issuer: the next one tries at once. A deadline does.
		if !errors.Is(ctx.Err(), context.Canceled) {
			is.lastTry = is.now()
			is.lastErr.Store(&err)
		}
		return nil, err
	}
	if keys != nil {
		is.keys.Store(keys)
	}
	is.meta.Store(m)
	is.log.Info("issuer discovered", "issuer", is.url, "jwks_uri", m.JWKSURI, "introspection_endpoint", m.IntrospectionEndpoint)
	return m, nil
}

// discover fetches the issuer's metadata from the first well-known URL that
// has metadata naming exactly this issuer, then its key set.
func (is *issuer) discover(ctx context.Context) (*metadata, *keySet, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	var errs []error
	for _, u := range wellKnown(is.base) {
		var m metadata
		if err := is.getJSON(ctx, u, &m); err != nil {
			errs = append(errs, err)
			continue
		}
		if m.Issuer != is.url {
			errs = append(errs, fmt.Errorf("%s names issuer %q, not %q: its metadata is not used (RFC 8414 §3.3)", u, m.Issuer, is.url))
			continue
		}
		if err := m.check(); err != nil {
			return nil, nil, fmt.Errorf("metadata at %s: %w", u, err)
		}
		var keys *keySet
		if m.JWKSURI != "" {
			var err error
			if keys, err = is.fetchKeys(ctx, m.JWKSURI); err != nil {
				return nil, nil, err
			}
		}
		return &m, keys, nil
	}
	return nil, nil, joinErrors(errs)
}

// joinErrors joins errs on one line, to fit in a log line or a header.
func joinErrors(errs []error) error {
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return errors.New(strings.Join(msgs, "; "))
}

func (m *metadata) check() error {
	if m.JWKSURI == "" && m.IntrospectionEndpoint == "" {
		return errors.New("neither jwks_uri nor introspection_endpoint: no token could be verified")
	}
	if m.JWKSURI != "" {
		if _, err := checkURL("jwks_uri", m.JWKSURI); err != nil {
			return err
		}
	}
	if m.IntrospectionEndpoint != "" {
		if _, err := checkURL("introspection_endpoint", m.IntrospectionEndpoint); err != nil {
			return err
		}
	}
	return nil
}

// wellKnown returns the URLs an issuer's metadata may be at, in the order
// the MCP specification tries them: RFC 8414 with the well-known segment
// inserted before the issuer's path, then OpenID Connect Discovery inserted
// the same way and appended to the path (its own form).
func wellKnown(issuer *url.URL) []string {
	origin := issuer.Scheme + "://" + issuer.Host
	path := strings.TrimSuffix(issuer.EscapedPath(), "/")
	urls := []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path,
	}
	if path != "" {
		urls = append(urls, origin+path+"/.well-known/openid-configuration")
	}
	return urls
}

// getJSON decodes the JSON document at u into v.
func (is *issuer) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	return is.do(req, v)
}

// do sends req and decodes its JSON answer into v: a 200, at most
// maxDocument bytes.
func (is *issuer) do(req *http.Request, v any) error {
	what := req.Method + " " + req.URL.Redacted()
	resp, err := is.client.Do(req)
	if err != nil {
		return err // a *url.Error, which names the method and the URL
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", what, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if len(body) > maxDocument {
		return fmt.Errorf("%s: answer larger than %d bytes", what, maxDocument)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
