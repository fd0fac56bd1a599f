package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"syscall"
)

// Resolver looks up the addresses of a host name. *net.Resolver is one;
// tests give their own, so that no test depends on real DNS.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Dialer connects to host:port addresses after its Check allowed the
// address connected to. It resolves a host name itself and calls Check in
// the net.Dialer's Control function, which runs between creating the
// socket and connecting it: what is checked is what is connected to, so a
// name that resolves to another address the second time (DNS rebinding)
// cannot slip past, and a refused address has been sent nothing.
type Dialer struct {
	// Resolver looks up host names. Nil means net.DefaultResolver.
	Resolver Resolver
	// Check is given the host the caller dialed (a name or an address) and
	// each address about to be connected to, IPv4-mapped addresses as IPv4;
	// an error refuses that address. Nil allows every address.
	Check func(host string, addr netip.AddrPort) error
	// Dialer connects; its Control is replaced.
	Dialer net.Dialer
}

// DialContext connects to address, a host:port, trying each address the
// host resolves to in turn. If none connects and Check refused one, the
// error is the refusal as Check returned it.
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
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
	// refusal explains more than the connection errors of the other
	// addresses.
	var refusal error
	var errs []error
	for _, addr := range addrs {
		nd := d.Dialer
		nd.Control = func(_, connecting string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(connecting)
			if err != nil {
				refusal = fmt.Errorf("cannot check the address %q %s resolved to", connecting, host)
				return refusal
			}
			if d.Check == nil {
				return nil
			}
			if err := d.Check(host, netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())); err != nil {
				refusal = err
				return err
			}
			return nil
		}
		conn, err := nd.DialContext(ctx, network, netip.AddrPortFrom(addr.Unmap(), uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	if refusal != nil {
		return nil, refusal
	}
	return nil, errors.Join(errs...)
}

// resolve returns host's addresses: host itself if it is one.
func (d *Dialer) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if addr, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{addr}, nil
	}
	var r Resolver = net.DefaultResolver
	if d.Resolver != nil {
		r = d.Resolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("lookup %s: no addresses", host)
	}
	return addrs, nil
}
