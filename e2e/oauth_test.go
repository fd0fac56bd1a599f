package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// oauthPolicy is the policy of the OAuth tests (testdata/oauth-policy.json,
// which e2e/ts/oauth.test.mjs serves too): a tool surface that serves
// everything's tools but one, renames get-sum to sum and prefixes the others
// with ev_, and views by scope and by a claim. tools:read sees everything's
// tools but ev_get-error, and a call of sum needs tools:write too (a
// step-up); the group engineering (a claim of alice's tokens) also sees
// hello's tool.
func oauthPolicy(t *testing.T) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "e2e", "testdata", "oauth-policy.json")
}

// readerTools is what tools:read lists under oauthPolicy.
var readerTools = []string{"ev_echo", "ev_get-structured-content", "ev_get-tiny-image", "sum"}

// A call of sum, which needs tools:write.
var (
	sumArgs = map[string]any{"a": 2, "b": 3}
	sumText = "The sum of 2 and 3 is 5."
)

// appRedirect is the redirect URI of the authorization server's public
// client mcp-app; nothing listens there: the user agent stops at it.
const appRedirect = "http://127.0.0.1:1/callback"

// otherResource is another MCP server known to the authorization server:
// its tokens are not for wasmcp.
const otherResource = "http://127.0.0.1:9/mcp"

// oauthServer is a "wasmcp serve --http" that is an OAuth resource server.
type oauthServer struct {
	url string // the MCP endpoint, which is also its resource
	log *lockedBuffer
}

// startOAuthServer serves everything and hello under oauthPolicy with
// tokens from as, and registers the server's resource with as.
func startOAuthServer(t *testing.T, as *authServer, extra ...string) *oauthServer {
	t.Helper()
	dir := servedCopy(t, filepath.Join(pluginsDir, "everything.wasm"), wat("hello"))
	args := append([]string{"serve", "--dir", dir, "--cache-dir", cacheDir, "--wait-loaded", "--log-format", "json",
		"--config", oauthPolicy(t), "--oauth-issuer", as.issuer}, extra...)
	s := &oauthServer{log: &lockedBuffer{}}
	s.url, _, _ = launchHTTP(t, exec.Command(binPath, args...), s.log)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", s.log)
		}
	})
	as.addResource(t, s.url)
	return s
}

// writeTemp writes content to a new file named name and returns its path.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// ccSession connects go-sdk's client to endpoint with go-sdk's own
// client-credentials handler: it finds the authorization server from the
// 401 and gets a token for client.
func ccSession(t *testing.T, endpoint, client, protocol string) *mcp.ClientSession {
	t.Helper()
	h, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
		Credentials: &oauthex.ClientCredentials{ClientID: client, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: client + "-secret"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return oauthSession(t, &mcp.StreamableClientTransport{Endpoint: endpoint, OAuthHandler: h}, protocol)
}

// authCodeSession connects go-sdk's client to endpoint with go-sdk's own
// authorization code handler, configured by cfg.
func authCodeSession(t *testing.T, endpoint, protocol string, cfg *auth.AuthorizationCodeHandlerConfig) *mcp.ClientSession {
	t.Helper()
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return oauthSession(t, &mcp.StreamableClientTransport{Endpoint: endpoint, OAuthHandler: h}, protocol)
}

func oauthSession(t *testing.T, transport mcp.Transport, protocol string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "wasmcp-e2e-oauth", Version: "1"}, nil).Connect(testContext(t), transport,
		&mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connect (%s): %v", protocol, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// challenges is an HTTP client with a fixed bearer token that keeps the
// status and challenge of every refused request.
type challenges struct {
	token string
	mu    sync.Mutex
	seen  []string // "STATUS WWW-Authenticate"
}

func (c *challenges) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := bearerTransport{c.token}.RoundTrip(r)
	if err == nil && resp.StatusCode >= 400 {
		c.mu.Lock()
		c.seen = append(c.seen, fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate")))
		c.mu.Unlock()
	}
	return resp, err
}

func (c *challenges) last() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.seen) == 0 {
		return ""
	}
	return c.seen[len(c.seen)-1]
}

// bearerSession connects with a fixed token, which no authorization flow
// replaces, and returns what the server refused.
func bearerSession(t *testing.T, endpoint, token, protocol string) (*mcp.ClientSession, *challenges) {
	t.Helper()
	c := &challenges{token: token}
	return oauthSession(t, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: c}}, protocol), c
}

// toolNames lists a session's tools, sorted.
func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(testContext(t), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

func wantTools(t *testing.T, cs *mcp.ClientSession, want ...string) {
	t.Helper()
	slices.Sort(want)
	if got := toolNames(t, cs); !slices.Equal(got, want) {
		t.Errorf("tools/list = %v, want %v", got, want)
	}
}

// wantCall calls a tool and wants a result whose text contains want.
func wantCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, want string) {
	t.Helper()
	out, isErr := callText(t, cs, &mcp.CallToolParams{Name: tool, Arguments: args})
	if isErr || !strings.Contains(out, want) {
		t.Errorf("%s: %q (error %v), want %q", tool, out, isErr, want)
	}
}

// wantUnknown wants a call of tool refused as a tool that does not exist.
func wantUnknown(t *testing.T, cs *mcp.ClientSession, tool string) {
	t.Helper()
	_, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
	wantInvalidParams(t, err)
}

// expiry reads the exp claim of a JWT, unverified.
func expiry(t *testing.T, token string) time.Time {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", token)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Exp int64 `json:"exp"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	return time.Unix(claims.Exp, 0)
}

// verifierLeeway is the verifier's default tolerance on exp (oauth.DefaultLeeway).
const verifierLeeway = 30 * time.Second

var challengeParam = regexp.MustCompile(`(\w+)="([^"]*)"`)

// params are the parameters of a WWW-Authenticate challenge.
func params(challenge string) map[string]string {
	out := map[string]string{}
	for _, m := range challengeParam.FindAllStringSubmatch(challenge, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// TestOAuthWithTheGoClient serves tools behind a real authorization server
// (oidc-provider) and drives them with go-sdk's client and its OAuth
// handlers, in both protocol eras: discovery from the 401, client
// credentials, authorization code with PKCE and a step-up, views with the
// renamed and prefixed names, and every refusal a client of a real
// authorization server can provoke.
func TestOAuthWithTheGoClient(t *testing.T) {
	t.Parallel() // with the other OAuth tests, which also wait
	start := time.Now()
	as := startAuthServer(t, 0)
	srv := startOAuthServer(t, as, "--oauth-client-id", "wasmcp", "--oauth-client-secret-file", writeTemp(t, "secret", "wasmcp-secret\n"))
	as.addResource(t, otherResource)
	meta := strings.Replace(srv.url, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1)
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }

	// A token that lives a second is accepted past its exp until the
	// verifier's leeway is over (go-sdk's own check behind the verifier
	// refused it at once), then refused; the wait overlaps the subtests
	// below.
	t.Run("expired token", func(t *testing.T) {
		tok := as.token(t, "svc-short", "tools:read", "")
		exp := expiry(t, tok)
		time.Sleep(time.Until(exp.Add(time.Second)))
		if resp, body := rawPost(t, srv.url, initialize, bearer(tok)); resp.StatusCode != http.StatusOK {
			t.Fatalf("a token past its exp, within the leeway: %d %s", resp.StatusCode, body)
		}
		refusedFrom := exp.Add(verifierLeeway + time.Second)
		t.Parallel()
		time.Sleep(time.Until(refusedFrom))
		resp, body := rawPost(t, srv.url, initialize, bearer(tok))
		if ch := params(resp.Header.Get("WWW-Authenticate")); resp.StatusCode != http.StatusUnauthorized ||
			ch["error"] != "invalid_token" || !strings.Contains(ch["error_description"], "token expired") {
			t.Errorf("an expired token: %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
	})

	t.Run("discovery from the 401", func(t *testing.T) {
		resp, _ := rawPost(t, srv.url, initialize, nil)
		if got, want := resp.Header.Get("WWW-Authenticate"), `Bearer resource_metadata="`+meta+`"`; resp.StatusCode != 401 || got != want {
			t.Fatalf("no token: %d %q, want 401 %q", resp.StatusCode, got, want)
		}
		for _, u := range []string{meta, strings.TrimSuffix(meta, "/mcp")} {
			prm, err := oauthex.GetProtectedResourceMetadata(testContext(t), u, srv.url, http.DefaultClient)
			if err != nil {
				t.Fatalf("%s: %v", u, err)
			}
			if !slices.Equal(prm.AuthorizationServers, []string{as.issuer}) || !slices.Equal(prm.ScopesSupported, []string{"tools:read", "tools:write"}) {
				t.Errorf("%s: %+v", u, prm)
			}
		}
		asm, err := auth.GetAuthServerMetadata(testContext(t), as.issuer, http.DefaultClient)
		if err != nil || asm == nil || asm.Issuer != as.issuer {
			t.Fatalf("authorization server metadata of %s: %+v, %v", as.issuer, asm, err)
		}
	})

	t.Run("client credentials", func(t *testing.T) {
		cs := ccSession(t, srv.url, "svc-reader", legacyProtocol)
		wantTools(t, cs, readerTools...)
		wantCall(t, cs, "ev_echo", map[string]any{"message": "with a token"}, "Echo: with a token")
		// Names the surface renamed away or denies, a tool the view denies
		// and one of a plugin it does not show are unknown.
		for _, tool := range []string{"echo", "get-sum", "ev_get-sum", "get-resource-links", "ev_get-resource-links", "ev_get-error", "hello"} {
			wantUnknown(t, cs, tool)
		}
		var audited bool
		for _, rec := range auditLines(srv.log.String()) {
			if rec["tool"] == "ev_echo" {
				audited = rec["subject"] == "svc-reader" && rec["client_id"] == "svc-reader"
			}
		}
		if !audited {
			t.Errorf("no audit line of ev_echo naming svc-reader")
		}
		// svc-reader may not get tools:write: the step-up the handler
		// tries gets it no further.
		_, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: "sum", Arguments: sumArgs})
		if err == nil || !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("sum without tools:write: %v, want Forbidden", err)
		}
	})

	t.Run("step-up challenge", func(t *testing.T) {
		for _, protocol := range []string{legacyProtocol, statelessProtocol} {
			cs, seen := bearerSession(t, srv.url, as.token(t, "svc-reader", "tools:read", srv.url), protocol)
			if _, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: "sum", Arguments: sumArgs}); err == nil {
				t.Fatalf("%s: sum without tools:write succeeded", protocol)
			}
			want := `403 Bearer resource_metadata="` + meta + `", scope="tools:read tools:write", error="insufficient_scope", ` +
				`error_description="tool sum needs the scope tools:write"`
			if got := seen.last(); got != want {
				t.Errorf("%s: refused with %q, want %q", protocol, got, want)
			}
			writer, _ := bearerSession(t, srv.url, as.token(t, "svc-writer", "tools:read tools:write", srv.url), protocol)
			wantCall(t, writer, "sum", sumArgs, sumText)
		}
	})

	// go-sdk's authorization code handler with a pre-registered public
	// client, in a 2025-11-25 session: alice grants tools:read only, her
	// group shows her hello; sum needs tools:write, so the client asks her
	// again, she grants it, and the call goes through in the same session.
	t.Run("authorization code with PKCE and a step-up", func(t *testing.T) {
		alice := newUser(t, "alice", appRedirect, grantFirstRound("tools:read"))
		cs := authCodeSession(t, srv.url, legacyProtocol, &auth.AuthorizationCodeHandlerConfig{
			PreregisteredClient:      &oauthex.ClientCredentials{ClientID: "mcp-app", Issuer: as.issuer},
			RedirectURL:              appRedirect,
			AuthorizationCodeFetcher: alice.authorize,
		})
		wantTools(t, cs, append([]string{"hello"}, readerTools...)...)
		wantCall(t, cs, "hello", map[string]any{}, "hello")
		id := cs.ID()
		wantCall(t, cs, "sum", sumArgs, sumText)
		if len(alice.asked) != 2 || !slices.Contains(alice.asked[1], "tools:write") {
			t.Errorf("alice was asked for %v, want two authorizations, the second with tools:write", alice.asked)
		}
		if cs.ID() != id {
			t.Errorf("the session changed from %s to %s", id, cs.ID())
		}
	})

	// The same with dynamic client registration, statelessly: go-sdk
	// registers a new client at every authorization, so the step-up's
	// token names another client, which a 2025-11-25 session (bound to
	// its principal: issuer, subject and client) would refuse as another
	// user's; each stateless request stands alone.
	t.Run("authorization code with dynamic registration, stateless", func(t *testing.T) {
		bob := newUser(t, "bob", appRedirect, grantFirstRound("tools:read"))
		cs := authCodeSession(t, srv.url, statelessProtocol, &auth.AuthorizationCodeHandlerConfig{
			DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
				RedirectURIs: []string{appRedirect}, TokenEndpointAuthMethod: "none", ClientName: "wasmcp e2e",
			}},
			AuthorizationCodeFetcher: bob.authorize,
		})
		wantTools(t, cs, readerTools...) // bob is in no group
		wantCall(t, cs, "sum", sumArgs, sumText)
		if len(bob.asked) != 2 {
			t.Errorf("bob was asked for %v, want two authorizations", bob.asked)
		}
	})

	t.Run("stateless 2026-07-28", func(t *testing.T) {
		cs := ccSession(t, srv.url, "svc-reader", statelessProtocol)
		wantTools(t, cs, readerTools...)
		wantCall(t, cs, "ev_echo", map[string]any{"message": "stateless"}, "Echo: stateless")
		wantUnknown(t, cs, "hello")
	})

	t.Run("refusals", func(t *testing.T) {
		opaque := as.token(t, "svc-opaque", "tools:read", "")
		revoked := as.token(t, "svc-opaque", "tools:read", "")
		as.revoke(t, "svc-opaque", revoked)
		for _, tc := range []struct {
			name   string
			url    string
			header map[string]string
			status int
			// error and description are the challenge's; "" for none.
			error, description string
		}{
			{"no token", srv.url, nil, 401, "", ""},
			{"garbage", srv.url, bearer("garbage"), 401, "invalid_token", "not active"},
			{"garbage with dots", srv.url, bearer("a.b.c"), 401, "invalid_token", "not a well-formed JWT"},
			{"another audience", srv.url, bearer(as.token(t, "svc-reader", "tools:read", otherResource)), 401, "invalid_token",
				"not for this resource"},
			{"token in the query", srv.url + "?access_token=" + as.token(t, "svc-reader", "tools:read", ""), nil, 400,
				"invalid_request", "never in the URL"},
			{"revoked opaque token", srv.url, bearer(revoked), 401, "invalid_token", "not active"},
			{"opaque token", srv.url, bearer(opaque), 200, "", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				resp, body := rawPost(t, tc.url, initialize, tc.header)
				ch := params(resp.Header.Get("WWW-Authenticate"))
				if resp.StatusCode != tc.status || ch["error"] != tc.error || !strings.Contains(ch["error_description"], tc.description) {
					t.Errorf("%d %q %s, want %d error=%q with %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body,
						tc.status, tc.error, tc.description)
				}
				if tc.status != 200 && ch["resource_metadata"] != meta {
					t.Errorf("challenge %q does not name %s", resp.Header.Get("WWW-Authenticate"), meta)
				}
			})
		}
		// An introspected token is believed for at most two minutes
		// (README, "Authorization"): revoked after its first use, it is
		// still served within them.
		as.revoke(t, "svc-opaque", opaque)
		if resp, body := rawPost(t, srv.url, initialize, bearer(opaque)); resp.StatusCode != 200 {
			t.Errorf("an introspected token revoked after its first use: %d %s, want 200 until the cache forgets it", resp.StatusCode, body)
		}
		if log := srv.log.String(); strings.Contains(log, opaque) || strings.Contains(log, revoked) {
			t.Error("the server logged a token")
		}
	})
	t.Logf("OAuth with go-sdk against oidc-provider, sequential part: %v", time.Since(start).Round(time.Millisecond))
}

// TestOAuthIssuerDownAtStart starts wasmcp while its authorization server is
// down: it serves, logs why, refuses tokens saying the issuer is not
// discovered, and accepts them once the issuer is up (discovery is tried
// again at most every 10 s).
func TestOAuthIssuerDownAtStart(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	issuer := "http://" + addr
	dir := servedCopy(t, filepath.Join(pluginsDir, "everything.wasm"))
	log := &lockedBuffer{}
	url, _, _ := launchHTTP(t, exec.Command(binPath, "serve", "--dir", dir, "--cache-dir", cacheDir, "--wait-loaded",
		"--oauth-issuer", issuer), log)
	if !strings.Contains(log.String(), "issuer not discovered") {
		t.Errorf("no warning that the issuer is not discovered:\n%s", log)
	}
	// A token naming the issuer, whatever its signature: the server cannot
	// check it yet, and says why.
	claims := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, `{"iss":%q,"aud":%q,"exp":%d}`, issuer, url, time.Now().Add(time.Hour).Unix()))
	forged := "eyJhbGciOiJSUzI1NiIsImtpZCI6IngifQ." + claims + ".c2ln"
	resp, body := rawPost(t, url, initialize, map[string]string{"Authorization": "Bearer " + forged})
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "not discovered") {
		t.Fatalf("a token of an issuer that is down: %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}

	var port int
	fmt.Sscanf(addr[strings.LastIndex(addr, ":")+1:], "%d", &port)
	as := startAuthServer(t, port)
	if as.issuer != issuer {
		t.Fatalf("the authorization server's issuer is %s, want %s", as.issuer, issuer)
	}
	as.addResource(t, url)
	tok := as.token(t, "svc-reader", "tools:read", "")
	up := time.Now()
	ctx := testContext(t)
	for {
		resp, body := rawPost(t, url, initialize, map[string]string{"Authorization": "Bearer " + tok})
		if resp.StatusCode == http.StatusOK {
			break
		}
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "not discovered") {
			t.Fatalf("while the issuer is rediscovered: %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("tokens still refused after the issuer came up:\n%s", log)
		case <-time.After(250 * time.Millisecond):
		}
	}
	t.Logf("tokens accepted %v after the issuer came up", time.Since(up).Round(time.Millisecond))
	for !strings.Contains(log.String(), "issuer discovered") {
		select {
		case <-ctx.Done():
			t.Fatalf("no log line of the discovery:\n%s", log)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
