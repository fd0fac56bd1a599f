package oci

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wasmcp/wasmcp/host/netguard"
)

// maxRedirects is how many redirects one registry request may follow: a
// blob sent on to a CDN takes one or two.
const maxRedirects = 5

// guard keeps a registry client to the hosts a registry may send it to:
// the registry the reference names may be at any address, loopback or
// private, as the operator chose; every other host — where a manifest or
// blob is redirected, a token realm — must be globally reachable
// (netguard.Classify), checked where its socket connects. A proxy the
// environment names is dialed without checks: the operator named it too.
type guard struct {
	// host and port are those the client dials for the registry: its
	// lower-case host and its port, or the scheme's.
	host string
	port uint16
	// registry is the registry as the reference names it.
	registry string
	classify func(netip.Addr) string
	// envProxy is http.ProxyFromEnvironment.
	envProxy func(*http.Request) (*url.URL, error)
	// proxies are the host:port of the proxies envProxy named.
	proxies sync.Map
}

// httpClient returns the HTTP client of registry, spoken to in plain HTTP
// if plain: its connections are its own, so that no connection made for
// one registry serves a request another registry sent elsewhere.
func (c *Client) httpClient(registry string, plain bool) *http.Client {
	g := &guard{registry: registry, classify: c.classify, envProxy: c.envProxy}
	host, port, err := net.SplitHostPort(registry)
	if err != nil {
		host, port = registry, "443"
		if plain {
			port = "80"
		}
	}
	g.host = strings.ToLower(host)
	if p, err := strconv.ParseUint(port, 10, 16); err == nil {
		g.port = uint16(p)
	}
	d := &netguard.Dialer{Resolver: c.opts.Resolver, Check: g.check,
		Dialer: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = g.proxy
	t.DialContext = func(ctx context.Context, network, address string) (net.Conn, error) {
		if _, ok := g.proxies.Load(address); ok {
			return d.Dialer.DialContext(ctx, network, address)
		}
		return d.DialContext(ctx, network, address)
	}
	return &http.Client{Transport: t, CheckRedirect: g.checkRedirect}
}

// check allows addr, about to be connected to for host, if host is the
// registry or addr is globally reachable.
func (g *guard) check(host string, addr netip.AddrPort) error {
	if strings.EqualFold(host, g.host) && addr.Port() == g.port {
		return nil
	}
	why := g.classify(addr.Addr())
	if why == "" {
		return nil
	}
	what := host + " resolves to " + addr.Addr().String() + ", which is"
	if a, err := netip.ParseAddr(host); err == nil && a.Unmap() == addr.Addr() {
		what = addr.Addr().String() + " is"
	}
	return fmt.Errorf("%s not a public address (%s): the client goes to no address but public ones and registry %s, which the reference names",
		what, why, g.registry)
}

// checkRedirect caps the redirects and refuses one to an address that
// the URL names and check refuses. A name is checked where it is
// connected to. oras-go has already dropped the Authorization header if
// the redirect leaves the request's origin.
func (g *guard) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if err := g.checkURL(req.URL); err != nil {
		return fmt.Errorf("refused the redirect: %w", err)
	}
	return nil
}

// checkURL checks the address u names, if it names one.
func (g *guard) checkURL(u *url.URL) error {
	addr, err := netip.ParseAddr(u.Hostname())
	if err != nil {
		return nil
	}
	port := map[string]uint64{"http": 80, "https": 443}[u.Scheme]
	if p := u.Port(); p != "" {
		port, err = strconv.ParseUint(p, 10, 16)
		if err != nil {
			return nil // the transport refuses it
		}
	}
	return g.check(u.Hostname(), netip.AddrPortFrom(addr.Unmap(), uint16(port)))
}

// proxy is the transport's Proxy: the proxy the environment names for
// req, as http.DefaultTransport's. Through it, the proxy resolves names and
// connects, so an address the URL names itself is checked here.
func (g *guard) proxy(req *http.Request) (*url.URL, error) {
	u, err := g.envProxy(req)
	if err != nil || u == nil {
		return u, err
	}
	if err := g.checkURL(req.URL); err != nil {
		return nil, err
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[u.Scheme]
	}
	g.proxies.Store(net.JoinHostPort(u.Hostname(), port), true)
	return u, nil
}
