package oauth

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// ProtectedResourceMetadata is the document of RFC 9728 §2 that tells a
// client which authorization servers issue tokens for this server, and with
// which scopes. Fields this server has no use for are left out.
type ProtectedResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	ResourceDocumentation  string   `json:"resource_documentation,omitempty"`
}

// Metadata returns the Protected Resource Metadata of resourceURL (the
// Config's Resource if empty): the trusted issuers in their order, the
// scopes given, and bearer tokens in the Authorization header only.
func (v *Verifier) Metadata(resourceURL string, scopes []string) ProtectedResourceMetadata {
	if resourceURL == "" {
		resourceURL = v.resource
	}
	m := ProtectedResourceMetadata{
		Resource:               resourceURL,
		ScopesSupported:        scopes,
		BearerMethodsSupported: []string{"header"},
	}
	for _, is := range v.issuers {
		m.AuthorizationServers = append(m.AuthorizationServers, is.url)
	}
	return m
}

// ResourceMetadataURL returns where the Protected Resource Metadata of a
// resource is served (RFC 9728 §3.1): the well-known segment inserted
// between the host and the resource's path, so that
// "https://mcp.example/mcp" has its metadata at
// "https://mcp.example/.well-known/oauth-protected-resource/mcp".
func ResourceMetadataURL(resource string) (string, error) {
	u, err := url.Parse(resource)
	if err != nil {
		return "", err
	}
	m := url.URL{Scheme: u.Scheme, Host: u.Host, RawQuery: u.RawQuery}
	m.Path = "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.Path, "/")
	if u.RawPath != "" {
		m.RawPath = "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.RawPath, "/")
	}
	return m.String(), nil
}

// WWWAuthenticate returns the value of a WWW-Authenticate header challenging
// for a bearer token (RFC 6750 §3, RFC 9728 §5.1), with the parameters that
// are not empty: resource_metadata, scope, error, error_description. RFC
// 6750 allows no quote, backslash or character outside printable ASCII in
// the last three; such characters are replaced, so that a description built
// from what a client sent cannot break the header.
func WWWAuthenticate(resourceMetadataURL, scope, errorCode, description string) string {
	var b strings.Builder
	b.WriteString("Bearer")
	sep := " "
	param := func(name, value string) {
		if value == "" {
			return
		}
		b.WriteString(sep)
		b.WriteString(name)
		b.WriteString(`="`)
		b.WriteString(value)
		b.WriteString(`"`)
		sep = ", "
	}
	param("resource_metadata", quote(resourceMetadataURL))
	param("scope", plain(scope))
	param("error", plain(errorCode))
	param("error_description", plain(description))
	return b.String()
}

// quote escapes s for a quoted-string (RFC 9110 §5.6.4), dropping the
// characters no quoted-string may hold.
func quote(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return -1
		}
		return r
	}, strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s))
}

// plain keeps the characters RFC 6750 §3 allows in scope, error and
// error_description (%x20-21 / %x23-5B / %x5D-7E), replacing a double quote
// by a single one and anything else by '?'.
func plain(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '"':
			return '\''
		case r == '\\' || r < 0x20 || r > 0x7e:
			return '?'
		}
		return r
	}, s)
}

// MetadataHandler serves the Protected Resource Metadata of resource, with
// the scopes that scopes returns at the time of each request (a policy
// reload may change them). The document is public, as RFC 9728 means it to
// be: any origin may read it, so that a browser client can discover where
// to get a token.
func (v *Verifier) MetadataHandler(resource string, scopes func() []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodOptions:
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "*")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		default:
			h.Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
		body, err := json.Marshal(v.Metadata(resource, scopes()))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "max-age=60")
		w.Write(body)
	})
}
