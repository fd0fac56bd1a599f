package oauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

func TestWellKnown(t *testing.T) {
	for _, tc := range []struct {
		issuer string
		want   []string
	}{
		{"https://as.example", []string{
			"https://as.example/.well-known/oauth-authorization-server",
			"https://as.example/.well-known/openid-configuration",
		}},
		{"https://as.example/", []string{
			"https://as.example/.well-known/oauth-authorization-server",
			"https://as.example/.well-known/openid-configuration",
		}},
		{"https://as.example/tenant", []string{
			"https://as.example/.well-known/oauth-authorization-server/tenant",
			"https://as.example/.well-known/openid-configuration/tenant",
			"https://as.example/tenant/.well-known/openid-configuration",
		}},
		{"https://as.example:8443/realms/a%2Fb/", []string{
			"https://as.example:8443/.well-known/oauth-authorization-server/realms/a%2Fb",
			"https://as.example:8443/.well-known/openid-configuration/realms/a%2Fb",
			"https://as.example:8443/realms/a%2Fb/.well-known/openid-configuration",
		}},
	} {
		t.Run(tc.issuer, func(t *testing.T) {
			u, err := url.Parse(tc.issuer)
			if err != nil {
				t.Fatal(err)
			}
			if got := wellKnown(u); !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// Metadata is found wherever one of the forms puts it, for an issuer with a
// path or without.
func TestDiscoveryForms(t *testing.T) {
	for _, at := range []string{atRFC8414, atOIDCInsert, atOIDCAppend} {
		for _, path := range []string{"", "/tenant"} {
			if at == atOIDCAppend && path == "" {
				continue // the same URL as atOIDCInsert
			}
			t.Run(at+path, func(t *testing.T) {
				k := newKey(t, "k1", jose.ES256)
				as := newFakeAS(t, path, k)
				as.set(func(a *fakeAS) { a.metaAt = at })
				v := newVerifier(t, config(t, as))
				if err := v.Discover(context.Background()); err != nil {
					t.Fatal(err)
				}
				if _, err := v.Verify(context.Background(), as.token(k)); err != nil {
					t.Fatal(err)
				}
				if got := v.ScopesSupported(); !slices.Equal(got, []string{"tools:call", "tools:read"}) {
					t.Errorf("scopes supported %q", got)
				}
			})
		}
	}
}

// Metadata naming another issuer is not used (RFC 8414 §3.3).
func TestDiscoveryIssuerMismatch(t *testing.T) {
	k := newKey(t, "k1", jose.ES256)
	as := newFakeAS(t, "", k)
	as.set(func(a *fakeAS) { a.metaIssuer = a.issuer + "/" })
	v := newVerifier(t, config(t, as))
	err := v.Discover(context.Background())
	if err == nil || !strings.Contains(err.Error(), `names issuer "`+as.issuer+`/"`) || !strings.Contains(err.Error(), "issuer "+as.issuer) {
		t.Fatalf("Discover: %v", err)
	}
	tok := as.token(k)
	_, err = v.Verify(context.Background(), tok)
	refused(t, err, tok, ErrUnavailable, "issuer "+as.issuer+" not discovered")
	if n := as.jwksFetches.Load(); n != 0 {
		t.Errorf("keys fetched %d times from an issuer whose metadata was refused", n)
	}
}

// An issuer must be https, except on loopback; the configuration is refused
// before any connection.
func TestConfigRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(*Config)
		want string
	}{
		{"http off loopback", func(c *Config) { c.Issuers = []Issuer{{URL: "http://as.example"}} }, "plain http is allowed only on a loopback address"},
		{"http on a name that looks local", func(c *Config) { c.Issuers = []Issuer{{URL: "http://127.0.0.1.nip.io"}} }, "use https"},
		{"another scheme", func(c *Config) { c.Issuers = []Issuer{{URL: "ftp://as.example"}} }, `scheme "ftp"`},
		{"relative", func(c *Config) { c.Issuers = []Issuer{{URL: "/as"}} }, "not an absolute URL"},
		{"query", func(c *Config) { c.Issuers = []Issuer{{URL: "https://as.example?tenant=a"}} }, "has a query"},
		{"fragment", func(c *Config) { c.Issuers = []Issuer{{URL: "https://as.example#a"}} }, "fragment"},
		{"user", func(c *Config) { c.Issuers = []Issuer{{URL: "https://u:p@as.example"}} }, "no user"},
		{"no issuer", func(c *Config) { c.Issuers = nil }, "no issuer"},
		{"twice", func(c *Config) { c.Issuers = []Issuer{{URL: "https://as.example"}, {URL: "https://as.example"}} }, "listed twice"},
		{"secret without id", func(c *Config) { c.Issuers = []Issuer{{URL: "https://as.example", IntrospectionSecret: "s"}} }, "without a client id"},
		{"no resource", func(c *Config) { c.Resource = "" }, "no resource"},
		{"relative resource", func(c *Config) { c.Resource = "/mcp" }, "not an absolute URI"},
		{"resource with a fragment", func(c *Config) { c.Resource = "https://mcp.test/mcp#x" }, "fragment"},
		{"leeway above a minute", func(c *Config) { c.Leeway = 2 * time.Minute }, "above the maximum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dials := &loopbackOnly{t: t}
			cfg := Config{
				Issuers:    []Issuer{{URL: "https://as.example"}},
				Resource:   testResource,
				HTTPClient: &http.Client{Transport: dials},
			}
			tc.cfg(&cfg)
			v, err := New(context.Background(), cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || v != nil {
				t.Fatalf("New: %v, %v; want an error saying %q", v, err, tc.want)
			}
			if dials.dials.Load() != 0 {
				t.Error("a connection was attempted before the configuration was refused")
			}
		})
	}
}

func TestLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost": true, "127.0.0.1": true, "127.9.8.7": true, "::1": true,
		"localhost.example": false, "128.0.0.1": false, "10.0.0.1": false, "::": false, "as.example": false, "": false,
	} {
		if loopback(host) != want {
			t.Errorf("loopback(%q) = %v", host, !want)
		}
	}
	for _, s := range []string{"http://localhost:9000", "http://127.0.0.1", "http://[::1]:8080/tenant", "https://as.example"} {
		if _, err := checkURL("issuer", s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

// An issuer that cannot be discovered at start is tried again when a token
// names it, at most once per retryEvery, and its tokens are refused until
// then, with the reason.
func TestDiscoveryRetried(t *testing.T) {
	k := newKey(t, "k1", jose.ES256)
	as := newFakeAS(t, "/tenant", k)
	as.set(func(a *fakeAS) { a.metaDown = true })
	v := newVerifier(t, config(t, as))
	err := v.Discover(context.Background())
	if err == nil || !strings.Contains(err.Error(), "issuer "+as.issuer) || !strings.Contains(err.Error(), as.srv.URL+"/.well-known/oauth-authorization-server/tenant: 503") {
		t.Fatalf("Discover: %v; want the issuer and the URL that failed", err)
	}
	attempts := as.metaFetches.Load()
	as.set(func(a *fakeAS) { a.metaDown = false })

	tok := as.token(k)
	_, err = v.Verify(context.Background(), tok)
	refused(t, err, tok, ErrUnavailable, "503")
	if n := as.metaFetches.Load(); n != attempts {
		t.Errorf("discovery tried again at once: %d fetches, then %d", attempts, n)
	}

	v.issuers[0].lastTry = time.Time{} // as if retryEvery had passed
	// A caller that hangs up does not use the attempt.
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = v.Verify(cancelled, tok)
	refused(t, err, tok, ErrUnavailable, "canceled")
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	if err := v.Discover(context.Background()); err != nil {
		t.Errorf("Discover once discovered: %v", err)
	}
}

// Discovery at start ends with New's context.
func TestDiscoveryBounded(t *testing.T) {
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-hang }))
	defer srv.Close()
	defer close(hang)
	cfg := Config{Issuers: []Issuer{{URL: srv.URL}}, Resource: testResource, HTTPClient: &http.Client{Transport: &loopbackOnly{t: t}}}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	v, err := New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("New took %v", d)
	}
	if err := v.Discover(context.Background()); err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Errorf("Discover: %v", err)
	}
}

// Metadata that sends the Verifier to plain http off loopback, or that
// offers nothing to verify tokens with, is refused.
func TestDiscoveryBadMetadata(t *testing.T) {
	for _, tc := range []struct {
		name string
		meta string
		want string
	}{
		{"jwks_uri over http", `{"issuer":%q,"jwks_uri":"http://keys.example/jwks"}`, "jwks_uri http://keys.example/jwks: plain http"},
		{"introspection over http", `{"issuer":%q,"introspection_endpoint":"http://as.example/i"}`, "introspection_endpoint"},
		{"nothing to verify with", `{"issuer":%q}`, "neither jwks_uri nor introspection_endpoint"},
		{"not JSON", `<html>%s`, "invalid character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/.well-known/oauth-authorization-server" {
					w.Write([]byte(strings.Replace(tc.meta, "%q", `"http://`+r.Host+`"`, 1)))
					return
				}
				http.NotFound(w, r)
			}))
			defer srv.Close()
			cfg := Config{Issuers: []Issuer{{URL: srv.URL}}, Resource: testResource, HTTPClient: &http.Client{Transport: &loopbackOnly{t: t}}}
			err := newVerifier(t, cfg).Discover(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Discover: %v; want %q", err, tc.want)
			}
		})
	}
}

// A redirect off loopback to plain http, or from https to http, is not
// followed.
func TestRedirectGuard(t *testing.T) {
	srv := httptest.NewServer(http.RedirectHandler("http://as.example/metadata", http.StatusFound))
	defer srv.Close()
	cfg := Config{Issuers: []Issuer{{URL: srv.URL}}, Resource: testResource, HTTPClient: &http.Client{Transport: &loopbackOnly{t: t}}}
	err := newVerifier(t, cfg).Discover(context.Background())
	if err == nil || !strings.Contains(err.Error(), "redirect to http://as.example/metadata refused") {
		t.Errorf("Discover: %v", err)
	}

	c := guardRedirects(nil)
	via := []*http.Request{{URL: &url.URL{Scheme: "https", Host: "as.example"}}}
	for target, ok := range map[string]bool{
		"https://as.example/b":  true,
		"http://127.0.0.1/b":    false, // a downgrade, even to loopback
		"http://keys.example/b": false,
	} {
		u, _ := url.Parse(target)
		if err := c.CheckRedirect(&http.Request{URL: u}, via); (err == nil) != ok {
			t.Errorf("redirect from https to %s: %v", target, err)
		}
	}
}
