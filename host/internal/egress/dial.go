package egress

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"

	"github.com/wasmcp/wasmcp/host/netguard"
)

// Resolver looks up the addresses of a host name (netguard.Resolver).
type Resolver = netguard.Resolver

// Refusal is the error of a request the net policy refused: its origin, or
// an address its host resolved to. Nothing was sent to that server.
type Refusal struct{ reason string }

func (r *Refusal) Error() string { return r.reason }

// dialer connects to the addresses the policy allows: every address
// netguard.Classify calls globally reachable, and those the policy names.
// The guard checks each where its socket connects (netguard.Dialer).
type dialer struct {
	plugin string
	// private allows every address (the policy's privateNetwork).
	private bool
	// allowed are the non-public addresses the policy names as origins.
	allowed []netip.AddrPort
	// proxy is the proxy's host:port, dialed without checks: the operator
	// named it.
	proxy string
	guard netguard.Dialer
}

func newDialer(plugin string, resolver Resolver, private bool, allowed []netip.AddrPort, base net.Dialer) *dialer {
	d := &dialer{plugin: plugin, private: private, allowed: allowed}
	d.guard = netguard.Dialer{Resolver: resolver, Check: d.check, Dialer: base}
	return d
}

func (d *dialer) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if d.proxy != "" && address == d.proxy {
		return d.guard.Dialer.DialContext(ctx, network, address)
	}
	return d.guard.DialContext(ctx, network, address)
}

// check allows addr, about to be connected to, if it is globally
// reachable, or the policy allows it. host is the name (or address) the
// request named.
func (d *dialer) check(host string, addr netip.AddrPort) error {
	kind := netguard.Classify(addr.Addr())
	if kind == "" || d.private || slices.Contains(d.allowed, addr) {
		return nil
	}
	what := host + " resolves to " + addr.Addr().String() + ", which is"
	if a, err := netip.ParseAddr(host); err == nil && a.Unmap() == addr.Addr() {
		what = addr.Addr().String() + " is"
	}
	return &Refusal{fmt.Sprintf("%s not a public address (%s): plugin %s's net policy names no origin at %s and does not set privateNetwork",
		what, kind, d.plugin, addr)}
}
