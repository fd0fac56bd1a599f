package oci

import (
	"net/http"
	"net/netip"
	"net/url"
	"slices"

	"github.com/wasmcp/wasmcp/host/netguard"
)

// TreatAsPublic makes c count addrs as globally reachable, so that a test
// can serve a redirect target or a token realm on loopback. Tests only,
// before c's first request.
func TreatAsPublic(c *Client, addrs ...netip.Addr) {
	c.classify = func(a netip.Addr) string {
		if slices.Contains(addrs, a) {
			return ""
		}
		return netguard.Classify(a)
	}
}

// UseProxy makes c send every request through proxy, as if the
// environment named it. Tests only, before c's first request.
func UseProxy(c *Client, proxy *url.URL) {
	c.envProxy = func(*http.Request) (*url.URL, error) { return proxy, nil }
}
