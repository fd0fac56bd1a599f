package oauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/wasmcp/wasmcp/internal/oauth"
)

// A server trusts an authorization server and checks the bearer token of
// each request: a token for this resource names its caller; a token minted
// for another resource is refused, with a challenge to send back.
func Example() {
	// An authorization server on loopback, publishing one signing key.
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	jwk := jose.JSONWebKey{Key: key, KeyID: "2026-01", Algorithm: string(jose.ES256)}
	mux := http.NewServeMux()
	as := httptest.NewServer(mux)
	defer as.Close()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": as.URL, "jwks_uri": as.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{jwk.Public()}})
	})
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jwk}, (&jose.SignerOptions{}).WithType("at+jwt"))
	mint := func(audience string) string {
		claims, _ := json.Marshal(map[string]any{
			"iss": as.URL, "aud": audience, "sub": "alice", "client_id": "inspector",
			"scope": "tools:call", "exp": time.Now().Add(time.Hour).Unix(),
		})
		jws, _ := signer.Sign(claims)
		token, _ := jws.CompactSerialize()
		return token
	}

	// The MCP server.
	const resource = "https://mcp.example.com/mcp"
	v, err := oauth.New(context.Background(), oauth.Config{
		Issuers:  []oauth.Issuer{{URL: as.URL}},
		Resource: resource,
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	p, err := v.Verify(context.Background(), mint(resource))
	fmt.Println(p.Subject, p.ClientID, p.Scopes, err)

	_, err = v.Verify(context.Background(), mint("https://other.example.com/api"))
	var refused *oauth.Error
	if errors.As(err, &refused) {
		meta, _ := oauth.ResourceMetadataURL(resource)
		fmt.Println(errors.Is(err, oauth.ErrAudience))
		fmt.Println(oauth.WWWAuthenticate(meta, "", refused.Code, "token for another resource"))
	}
	// Output:
	// alice inspector [tools:call] <nil>
	// true
	// Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="token for another resource"
}
