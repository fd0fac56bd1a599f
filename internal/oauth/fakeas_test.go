package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// testResource is the canonical URI of the resource the tests protect.
const testResource = "https://mcp.test/mcp"

// Where a fake authorization server serves its metadata.
const (
	atRFC8414    = "rfc8414"     // /.well-known/oauth-authorization-server{path}
	atOIDCInsert = "oidc-insert" // /.well-known/openid-configuration{path}
	atOIDCAppend = "oidc-append" // {path}/.well-known/openid-configuration
)

// fakeAS is an authorization server on loopback: metadata, a key set and an
// introspection endpoint, each of which a test can change or break.
type fakeAS struct {
	t      testing.TB
	srv    *httptest.Server
	issuer string
	path   string

	mu sync.Mutex
	// metaAt is where the metadata is served; metaIssuer, when set, is the
	// issuer the metadata names instead of the real one.
	metaAt     string
	metaIssuer string
	metaDown   bool
	published  []signingKey
	extraKeys  []json.RawMessage
	jwksDown   bool
	introspect bool
	answers    map[string]map[string]any // opaque token → introspection answer

	metaFetches       atomic.Int32
	jwksFetches       atomic.Int32
	introspectFetches atomic.Int32
}

const (
	introspectID     = "wasmcp rs"
	introspectSecret = "s3cret:&="
)

type signingKey struct {
	kid  string
	alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

// newFakeAS starts an authorization server whose issuer is its URL followed
// by path ("" or "/tenant"), publishing key.
func newFakeAS(t testing.TB, path string, keys ...signingKey) *fakeAS {
	t.Helper()
	a := &fakeAS{t: t, path: path, metaAt: atRFC8414, published: keys, answers: map[string]map[string]any{}}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.srv.Close)
	a.issuer = a.srv.URL + path
	return a
}

func (a *fakeAS) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	metaPaths := map[string]string{
		atRFC8414:    "/.well-known/oauth-authorization-server" + a.path,
		atOIDCInsert: "/.well-known/openid-configuration" + a.path,
		atOIDCAppend: a.path + "/.well-known/openid-configuration",
	}
	switch r.URL.Path {
	case metaPaths[a.metaAt]:
		a.metaFetches.Add(1)
		if a.metaDown {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		issuer := a.issuer
		if a.metaIssuer != "" {
			issuer = a.metaIssuer
		}
		m := map[string]any{
			"issuer":           issuer,
			"jwks_uri":         a.srv.URL + "/jwks",
			"scopes_supported": []string{"tools:read", "tools:call"},
		}
		if a.introspect {
			m["introspection_endpoint"] = a.srv.URL + "/introspect"
		}
		writeJSON(w, m)
	case "/jwks":
		a.jwksFetches.Add(1)
		if a.jwksDown {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		keys := append([]json.RawMessage(nil), a.extraKeys...)
		for _, k := range a.published {
			b, err := json.Marshal(jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"})
			if err != nil {
				a.t.Error(err)
			}
			keys = append(keys, b)
		}
		writeJSON(w, map[string]any{"keys": keys})
	case "/introspect":
		a.introspectFetches.Add(1)
		id, secret, ok := r.BasicAuth()
		if !ok || id != "wasmcp+rs" || secret != "s3cret%3A%26%3D" || r.Method != http.MethodPost {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		answer, ok := a.answers[r.PostFormValue("token")]
		if !ok {
			answer = map[string]any{"active": false}
		}
		writeJSON(w, answer)
	default:
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// set changes the server under its lock.
func (a *fakeAS) set(f func(a *fakeAS)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f(a)
}

// claims returns the claims of a good access token for testResource.
func (a *fakeAS) claims() map[string]any {
	now := time.Now()
	return map[string]any{
		"iss":       a.issuer,
		"sub":       "alice",
		"aud":       testResource,
		"exp":       now.Add(time.Hour).Unix(),
		"iat":       now.Unix(),
		"jti":       rand.Text(),
		"scope":     "tools:read tools:call",
		"client_id": "inspector",
	}
}

// with returns the good claims changed by the pairs given; a nil value
// removes a claim.
func (a *fakeAS) with(kv ...any) map[string]any {
	c := a.claims()
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(c, kv[i].(string))
		} else {
			c[kv[i].(string)] = kv[i+1]
		}
	}
	return c
}

// sign returns claims as a JWT signed by k, of type typ ("" for none).
func sign(t testing.TB, k signingKey, typ string, claims map[string]any) string {
	t.Helper()
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	return signPayload(t, k, typ, payload)
}

// signPayload returns payload signed by k, of type typ ("" for none).
func signPayload(t testing.TB, k signingKey, typ string, payload []byte) string {
	t.Helper()
	opts := &jose.SignerOptions{}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	var key any = jose.JSONWebKey{Key: k.priv, KeyID: k.kid}
	if k.kid == "" {
		key = k.priv
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// token returns a good access token signed by k with claims changed by kv.
func (a *fakeAS) token(k signingKey, kv ...any) string {
	a.t.Helper()
	return sign(a.t, k, "at+jwt", a.with(kv...))
}

var rsaKey = sync.OnceValues(func() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 2048) })

// newKey generates a key for alg.
func newKey(t testing.TB, kid string, alg jose.SignatureAlgorithm) signingKey {
	t.Helper()
	var (
		priv crypto.Signer
		err  error
	)
	switch alg {
	case jose.ES256:
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case jose.ES384:
		priv, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case jose.EdDSA:
		_, priv, err = ed25519.GenerateKey(rand.Reader)
	case jose.RS256, jose.PS256:
		// RSA keys are slow to generate; the tests share one.
		priv, err = rsaKey()
	default:
		t.Fatalf("no key for %s", alg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return signingKey{kid: kid, alg: alg, priv: priv}
}

// loopbackOnly is a transport that refuses, and reports, any request to a
// host that is not a loopback address: the tests never dial anything else.
type loopbackOnly struct {
	t     testing.TB
	dials atomic.Int32
}

func (l *loopbackOnly) RoundTrip(r *http.Request) (*http.Response, error) {
	l.dials.Add(1)
	if !loopback(r.URL.Hostname()) {
		l.t.Errorf("a request to %s, which is not on loopback", r.URL.Redacted())
		return nil, errors.New("not loopback")
	}
	return http.DefaultTransport.RoundTrip(r)
}

// config returns a Config trusting the issuers of as, with introspection
// credentials for those that introspect.
func config(t testing.TB, as ...*fakeAS) Config {
	cfg := Config{
		Resource:   testResource,
		HTTPClient: &http.Client{Transport: &loopbackOnly{t: t}},
	}
	for _, a := range as {
		is := Issuer{URL: a.issuer}
		if a.introspect {
			is.IntrospectionClientID, is.IntrospectionSecret = introspectID, introspectSecret
		}
		cfg.Issuers = append(cfg.Issuers, is)
	}
	return cfg
}

// newVerifier returns a Verifier of cfg, failing the test on an error.
func newVerifier(t testing.TB, cfg Config) *Verifier {
	t.Helper()
	v, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// refused checks that err is an *Error of kind want whose description holds
// each of parts and never the token.
func refused(t testing.TB, err error, token string, want error, parts ...string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want an *Error", err, err)
	}
	if !errors.Is(err, want) {
		t.Errorf("error %q is not %q", err, want)
	}
	if token != "" && strings.Contains(err.Error(), token) {
		t.Errorf("error %q holds the token", err)
	}
	wantCode := CodeInvalidToken
	if want == ErrNoToken {
		wantCode = ""
	}
	if e.Code != wantCode {
		t.Errorf("code %q, want %q", e.Code, wantCode)
	}
	for _, p := range parts {
		if !strings.Contains(e.Description, p) {
			t.Errorf("description %q does not say %q", e.Description, p)
		}
	}
}

// eventually waits, a bounded time, for cond.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("still not %s after 5s", what)
}
