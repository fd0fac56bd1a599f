package main

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// issuerKeyID names the one key of the bench's authorization server.
const issuerKeyID = "bench-1"

// An issuer is an OAuth authorization server on loopback, as little of one
// as `wasmcp serve -oauth-issuer` needs: RFC 8414 metadata, a key set, and
// JWT access tokens (RFC 9068) it signs for the bench's clients, RS256 as
// most identity providers sign them. It runs no flow: a client gets its
// token from the bench, as one that already finished its flow holds it.
type issuer struct {
	url    string
	l      net.Listener
	signer jose.Signer
}

// startIssuer serves an authorization server on a free loopback port that
// advertises scopes.
func startIssuer(scopes ...string) (*issuer, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader(jose.HeaderKey("kid"), issuerKeyID))
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	is := &issuer{url: "http://" + l.Addr().String(), l: l, signer: signer}
	meta, err := json.Marshal(map[string]any{
		"issuer":                                is.url,
		"jwks_uri":                              is.url + "/jwks",
		"token_endpoint":                        is.url + "/token",
		"response_types_supported":              []string{"code"},
		"scopes_supported":                      scopes,
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic"},
	})
	if err != nil {
		return nil, err
	}
	jwks, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &key.PublicKey, KeyID: issuerKeyID, Algorithm: string(jose.RS256), Use: "sig"}}})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	serve := func(doc []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(doc)
		}
	}
	mux.Handle("GET /.well-known/oauth-authorization-server", serve(meta))
	mux.Handle("GET /jwks", serve(jwks))
	go http.Serve(l, mux)
	return is, nil
}

func (is *issuer) close() { is.l.Close() }

// token signs an access token for the resource at url, of client subject,
// granting scopes, valid for an hour.
func (is *issuer) token(url, subject string, scopes ...string) (string, error) {
	now := time.Now()
	return jwt.Signed(is.signer).Claims(jwt.Claims{
		Issuer:    is.url,
		Subject:   subject,
		Audience:  jwt.Audience{url},
		Expiry:    jwt.NewNumericDate(now.Add(time.Hour)),
		NotBefore: jwt.NewNumericDate(now),
		IssuedAt:  jwt.NewNumericDate(now),
		ID:        randomHex(8),
	}).Claims(map[string]any{
		"client_id": subject,
		"scope":     strings.Join(scopes, " "),
	}).Serialize()
}

// bearerFor returns a launch's bearer that presents a token of its own to
// each client session: the issuer's, for subject "client-I" with scopes.
func (is *issuer) bearerFor(scopes ...string) func(url string, i int) (string, error) {
	return func(url string, i int) (string, error) {
		return is.token(url, fmt.Sprintf("client-%d", i), scopes...)
	}
}

// staticToken writes a random shared token for -token-file into the work
// directory and returns the file and a launch's bearer presenting it.
func (e *env) staticToken(name string) (file string, bearer func(string, int) (string, error), err error) {
	token := randomHex(32)
	file = filepath.Join(e.work, name+".token")
	if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
		return "", nil, err
	}
	return file, func(string, int) (string, error) { return token, nil }, nil
}
