package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"

	"github.com/wasmcp/wasmcp/internal/oauth"
	"github.com/wasmcp/wasmcp/internal/server"
)

// oauthFlags make serve an OAuth 2.1 resource server (README,
// "Authorization").
type oauthFlags struct {
	issuers      []string
	resource     string
	clientID     string
	clientSecret string // a file
}

func (o *oauthFlags) register(fs *flag.FlagSet) {
	fs.Func("oauth-issuer", "require OAuth access tokens from the authorization server whose issuer is\n"+
		"`URL` (repeatable; the config's oauth.issuers add to it); needs -http", func(v string) error {
		o.issuers = append(o.issuers, v)
		return nil
	})
	fs.StringVar(&o.resource, "oauth-resource", "", "this server's canonical `URL`, the audience its tokens must name (default:\n"+
		"the loopback URL it serves MCP at; required on any other address)")
	fs.StringVar(&o.clientID, "oauth-client-id", "", "client `ID` of this server at the issuer, to introspect opaque tokens (RFC 7662); with one\n"+
		"issuer only")
	fs.StringVar(&o.clientSecret, "oauth-client-secret-file", "", "`FILE` holding that client's secret")
}

// oauthOnly are the flags that mean nothing without -oauth-issuer or the
// config's issuers.
var oauthOnly = []string{"oauth-resource", "oauth-client-id", "oauth-client-secret-file"}

// check validates the flags given the set named on the command line and
// the issuers of the config.
func (o *oauthFlags) check(set map[string]bool, h *httpFlags, configured []string) error {
	if !o.enabled(configured) {
		for _, name := range oauthOnly {
			if set[name] {
				return fmt.Errorf("-%s needs -oauth-issuer", name)
			}
		}
		return nil
	}
	switch {
	case h.addr == "":
		return errors.New("OAuth (-oauth-issuer or the config's oauth.issuers) needs -http: stdio has no tokens")
	case h.tokenFile != "" || h.tokenEnv != "":
		return errors.New("-oauth-issuer and -token-file/-token-env are alternatives; give one")
	case h.insecureNoAuth:
		return errors.New("-insecure-no-auth contradicts -oauth-issuer; give one or the other")
	case o.clientID != "" && len(o.issuers)+len(configured) > 1:
		// Introspection sends them to each issuer in turn: the others
		// would learn this server's secret at the first.
		return fmt.Errorf("-oauth-client-id and -oauth-client-secret-file are this server's credentials at one issuer, "+
			"and %d are trusted: each would be sent them; trust one issuer, or have them issue JWT access tokens",
			len(o.issuers)+len(configured))
	}
	return nil
}

// enabled reports whether tokens are required: an issuer is named here or
// in the config.
func (o *oauthFlags) enabled(configured []string) bool { return len(o.issuers)+len(configured) > 0 }

// server returns the OAuth side of the server listening at l, trusting the
// issuers named here and configured: its resource is -oauth-resource, or
// the URL served when that is on loopback.
func (o *oauthFlags) server(ctx context.Context, l net.Listener, configured []string, log *slog.Logger) (*server.OAuth, error) {
	resource := o.resource
	if resource == "" {
		addr := l.Addr().(*net.TCPAddr)
		if !addr.IP.IsLoopback() {
			return nil, usageErrorf("-oauth-resource is required on %s: name the URL clients reach this server at, "+
				"such as https://mcp.example.com/mcp", addr)
		}
		resource = "http://" + addr.String() + server.Endpoint
	}
	if _, err := oauth.ResourceMetadataURL(resource); err != nil {
		return nil, usageErrorf("-oauth-resource %q: %v", resource, err)
	}
	var secret string
	if o.clientSecret != "" {
		b, err := os.ReadFile(o.clientSecret)
		if err != nil {
			return nil, fmt.Errorf("-oauth-client-secret-file: %w", err)
		}
		if secret = strings.TrimSpace(string(b)); secret == "" {
			return nil, fmt.Errorf("-oauth-client-secret-file %s is empty", o.clientSecret)
		}
	}
	if (o.clientID == "") != (secret == "") {
		return nil, usageErrorf("-oauth-client-id and -oauth-client-secret-file go together")
	}
	cfg := oauth.Config{Resource: resource, Logger: log}
	for _, u := range append(o.issuers, configured...) {
		cfg.Issuers = append(cfg.Issuers, oauth.Issuer{URL: u, IntrospectionClientID: o.clientID, IntrospectionSecret: secret})
	}
	v, err := oauth.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &server.OAuth{Verifier: v, Resource: resource}, nil
}
