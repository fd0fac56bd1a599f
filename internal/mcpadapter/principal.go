package mcpadapter

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/host"
)

// principalKey is where a verified token's principal rides in go-sdk's
// auth.TokenInfo (HTTPOptions.Verify), from the HTTP request to the
// handler of each of its messages.
const principalKey = "wasmcp.principal"

// principal is who made req, and whether a token said so: the principal of
// its verified access token, or else the host's local principal (stdio, or
// HTTP with a shared bearer token or none).
func (a *Adapter) principal(req mcp.Request) (p *host.Principal, fromToken bool) {
	if p := tokenPrincipal(req.GetExtra()); p != nil {
		return p, true
	}
	return a.host.Local(), false
}

func tokenPrincipal(extra *mcp.RequestExtra) *host.Principal {
	if extra == nil || extra.TokenInfo == nil {
		return nil
	}
	p, _ := extra.TokenInfo.Extra[principalKey].(*host.Principal)
	return p
}

// limitKey is the key of a verified principal's limits (its sessions, its
// rate and its calls in flight): its issuer and subject, so that a user's
// clients share them and a client registered anew gets no more. The client
// id stands in for a subject the token lacks.
func limitKey(issuer, subject, clientID string) string {
	if subject == "" {
		return issuer + "\x00client\x00" + clientID
	}
	return issuer + "\x00subject\x00" + subject
}
