package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"syscall"
)

// Resolver looks up the addresses of a host name. *net.Resolver is one;
// tests give their own, so that no test depends on real DNS.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Refusal is the error of a request the net policy refused: its origin, or
// an address its host resolved to. Nothing was sent to that server.
type Refusal struct{ reason string }

func (r *Refusal) Error() string { return r.reason }

// special are the address ranges a host name may not resolve to unless the
// policy allows it: every range that is not the public internet, where a
// request would reach the host's own machine or network, or the cloud
// metadata service (169.254.169.254).
var special = []struct {
	prefix netip.Prefix
	kind   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "\"this network\""},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (CGNAT)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignment"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved or broadcast"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible"},
	{netip.MustParsePrefix("100::/64"), "discard"},
	{netip.MustParsePrefix("fc00::/7"), "private (unique local)"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// embedded are IPv6 ranges that carry an IPv4 address a gateway may
// translate to: the embedded address must be public too.
var embedded = []struct {
	prefix netip.Prefix
	offset int // byte offset of the IPv4 address in the IPv6 address
}{
	{netip.MustParsePrefix("64:ff9b::/96"), 12},   // NAT64
	{netip.MustParsePrefix("64:ff9b:1::/48"), 12}, // local-use NAT64
	{netip.MustParsePrefix("2002::/16"), 2},       // 6to4
}

// Classify returns what kind of non-public address addr is ("loopback",
// "private", "link-local", ...), or "" for a public one. IPv4-mapped IPv6
// addresses are classified as their IPv4 address.
func Classify(addr netip.Addr) string {
	if !addr.IsValid() {
		return "invalid"
	}
	addr = addr.Unmap()
	for _, s := range special {
		if s.prefix.Contains(addr) {
			return s.kind
		}
	}
	for _, e := range embedded {
		if e.prefix.Contains(addr) {
			b := addr.As16()
			v4 := netip.AddrFrom4([4]byte(b[e.offset : e.offset+4]))
			if kind := Classify(v4); kind != "" {
				return kind + " (embedded in " + addr.String() + ")"
			}
		}
	}
	return ""
}

// dialer connects to the addresses the policy allows. It resolves a host
// name itself and checks every address it then connects to in the
// dialer's Control function, which runs between creating the socket and
// connecting it: what is checked is what is connected to, so a name that
// resolves to another address the second time (DNS rebinding) cannot slip
// past.
type dialer struct {
	plugin   string
	resolver Resolver
	// private allows every address (the policy's privateNetwork).
	private bool
	// allowed are the non-public addresses the policy names as origins.
	allowed []netip.AddrPort
	// proxy is the proxy's host:port, dialed without checks: the operator
	// named it.
	proxy string
	net   net.Dialer
}

func (d *dialer) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if d.proxy != "" && address == d.proxy {
		return d.net.DialContext(ctx, network, address)
	}
	host, p, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("port %q: %w", p, err)
	}
	addrs, err := d.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, addr := range addrs {
		target := netip.AddrPortFrom(addr.Unmap(), uint16(port))
		nd := d.net
		nd.Control = func(_, connecting string, _ syscall.RawConn) error { return d.check(host, connecting) }
		conn, err := nd.DialContext(ctx, network, target.String())
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	// A refusal explains more than the connection errors of the other
	// addresses.
	for _, err := range errs {
		var r *Refusal
		if errors.As(err, &r) {
			return nil, r
		}
	}
	return nil, errors.Join(errs...)
}

// resolve returns host's addresses: host itself if it is one.
func (d *dialer) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if addr, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{addr}, nil
	}
	addrs, err := d.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("lookup %s: no addresses", host)
	}
	return addrs, nil
}

// check is the Control function of every connection: it allows address,
// the ip:port about to be connected to, if it is public, or the policy
// allows it. host is the name (or address) the request named.
func (d *dialer) check(host, address string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &Refusal{fmt.Sprintf("cannot check the address %q %s resolved to", address, host)}
	}
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	kind := Classify(ap.Addr())
	if kind == "" || d.private || slices.Contains(d.allowed, ap) {
		return nil
	}
	what := host + " resolves to " + ap.Addr().String() + ", which is"
	if addr, err := netip.ParseAddr(host); err == nil && addr.Unmap() == ap.Addr() {
		what = ap.Addr().String() + " is"
	}
	return &Refusal{fmt.Sprintf("%s not a public address (%s): plugin %s's net policy names no origin at %s and does not set privateNetwork",
		what, kind, d.plugin, ap)}
}
