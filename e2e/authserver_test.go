package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/wasmcp/wasmcp/internal/testenv"
)

// authServer is e2e/ts/authorization-server.mjs: oidc-provider on a
// loopback port, issuing tokens for the resources registered with it.
type authServer struct {
	issuer string
	stdin  io.WriteCloser
	// lines receives what it prints after the issuer.
	lines chan string
	log   *lockedBuffer
}

// startAuthServer runs the authorization server on 127.0.0.1:port (0 for
// any port) until the test ends. It needs node and the npm packages of
// e2e/ts (make deps installs them).
func startAuthServer(t *testing.T, port int) *authServer {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "e2e", "ts")
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Missing(t, "node not found: the OAuth tests run oidc-provider; install Node.js 20 or later, then make deps")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "oidc-provider", "package.json")); err != nil {
		testenv.Missing(t, "oidc-provider is not installed in e2e/ts: run make deps (npm ci in e2e/ts)")
	}
	a := &authServer{lines: make(chan string, 16), log: &lockedBuffer{}}
	cmd := exec.Command(node, "authorization-server.mjs", "--port", fmt.Sprint(port))
	cmd.Dir = dir
	cmd.Stderr = a.log
	if a.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("authorization server log:\n%s", a.log)
		}
	})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			a.lines <- sc.Text()
		}
		close(a.lines)
	}()
	a.issuer = a.next(t, "its issuer URL", exited)
	return a
}

// next returns the next line the server prints.
func (a *authServer) next(t *testing.T, what string, exited <-chan error) string {
	t.Helper()
	select {
	case line, ok := <-a.lines:
		if !ok {
			t.Fatalf("authorization server closed its output before printing %s:\n%s", what, a.log)
		}
		return line
	case err := <-exited:
		t.Fatalf("authorization server exited (%v) before printing %s:\n%s", err, what, a.log)
	case <-testContext(t).Done():
		t.Fatalf("authorization server never printed %s:\n%s", what, a.log)
	}
	return ""
}

// addResource registers an MCP server's resource URL with the authorization
// server; the first one registered is the resource of token requests that
// name none.
func (a *authServer) addResource(t *testing.T, resource string) {
	t.Helper()
	if _, err := fmt.Fprintf(a.stdin, "resource %s\n", resource); err != nil {
		t.Fatal(err)
	}
	if got := a.next(t, "the resource", nil); got != "resource "+resource {
		t.Fatalf("authorization server answered %q to resource %s", got, resource)
	}
}

// token gets an access token by the client credentials grant for client,
// with scope and resource ("" to name none).
func (a *authServer) token(t *testing.T, client, scope, resource string) string {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {scope}}
	if resource != "" {
		form.Set("resource", resource)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	a.post(t, "/token", client, form, &tok)
	if tok.AccessToken == "" {
		t.Fatalf("no access token for %s", client)
	}
	return tok.AccessToken
}

// revoke revokes token (RFC 7009) as client, the client it was issued to.
func (a *authServer) revoke(t *testing.T, client, token string) {
	t.Helper()
	a.post(t, "/token/revocation", client, url.Values{"token": {token}, "token_type_hint": {"access_token"}}, nil)
}

// post sends form to the server's path with the client's credentials and
// decodes a 200's JSON answer into v.
func (a *authServer) post(t *testing.T, path, client string, form url.Values, v any) {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodPost, a.issuer+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(client, client+"-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s as %s: %s: %s", path, client, resp.Status, body)
	}
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("POST %s: %v: %s", path, err, body)
		}
	}
}

// user is a person at the authorization server's pages, played by the
// test: it follows an authorization URL, logs in as name, grants the scopes
// grant returns for each authorization (given the round, from 0, and the
// scopes asked for), and hands back the code the server redirects to
// redirectURL with.
type user struct {
	name        string
	redirectURL string
	grant       func(round int, requested []string) []string
	ua          *http.Client
	// asked are the scopes of each authorization, in order.
	asked [][]string
}

func newUser(t *testing.T, name, redirectURL string, grant func(int, []string) []string) *user {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &user{name: name, redirectURL: redirectURL, grant: grant, ua: &http.Client{
		Jar: jar,
		// The user agent stops at every redirect, to see where it goes.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       30 * time.Second,
	}}
}

// authorize is go-sdk's auth.AuthorizationCodeFetcher: the user at the
// authorization URL.
func (u *user) authorize(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	code, err := u.follow(ctx, args.URL)
	if err != nil {
		return nil, err
	}
	q := code.Query()
	return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}

// follow goes through the pages from an authorization URL to the redirect
// back to the client, and returns that redirect's URL, which carries the
// code.
func (u *user) follow(ctx context.Context, authorizationURL string) (*url.URL, error) {
	au, err := url.Parse(authorizationURL)
	if err != nil {
		return nil, err
	}
	requested := strings.Fields(au.Query().Get("scope"))
	round := len(u.asked)
	u.asked = append(u.asked, requested)
	next, err := http.NewRequestWithContext(ctx, http.MethodGet, authorizationURL, nil)
	if err != nil {
		return nil, err
	}
	for range 12 {
		resp, err := u.ua.Do(next)
		if err != nil {
			return nil, err
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		switch {
		case resp.StatusCode >= 300 && resp.StatusCode < 400:
			to, err := resp.Location()
			if err != nil {
				return nil, err
			}
			if strings.HasPrefix(to.String(), u.redirectURL) {
				if e := to.Query().Get("error"); e != "" {
					return nil, fmt.Errorf("authorization refused: %s: %s", e, to.Query().Get("error_description"))
				}
				return to, nil
			}
			if next, err = http.NewRequestWithContext(ctx, http.MethodGet, to.String(), nil); err != nil {
				return nil, err
			}
		case resp.StatusCode == http.StatusOK && strings.Contains(next.URL.Path, "/interaction/"):
			var page struct {
				UID    string `json:"uid"`
				Prompt string `json:"prompt"`
			}
			if err := json.Unmarshal(body, &page); err != nil {
				return nil, fmt.Errorf("interaction page %s: %v: %s", next.URL, err, body)
			}
			form := url.Values{"login": {u.name}}
			if page.Prompt == "consent" {
				form = url.Values{"scope": {strings.Join(u.grant(round, requested), " ")}}
			}
			target := next.URL.ResolveReference(&url.URL{Path: "/interaction/" + page.UID + "/" + page.Prompt})
			if next, err = http.NewRequestWithContext(ctx, http.MethodPost, target.String(), strings.NewReader(form.Encode())); err != nil {
				return nil, err
			}
			next.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		default:
			return nil, fmt.Errorf("%s %s: %s: %s", next.Method, next.URL, resp.Status, body)
		}
	}
	return nil, errors.New("the authorization server never redirected back to the client")
}

// grantAll grants every scope asked for.
func grantAll(_ int, requested []string) []string { return requested }

// grantFirstRound grants only these scopes at the first authorization, and
// everything asked for afterwards.
func grantFirstRound(scopes ...string) func(int, []string) []string {
	return func(round int, requested []string) []string {
		if round == 0 {
			return slices.DeleteFunc(slices.Clone(requested), func(s string) bool { return !slices.Contains(scopes, s) })
		}
		return requested
	}
}
