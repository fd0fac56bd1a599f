package policy

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Origin is one entry of a "net" list, in a policy or in a module's
// permissions request: a scheme, a host and a port ("https://api.github.com",
// port 443 by default), the subdomains of a name ("https://*.example.com",
// not example.com itself), or "*", any origin. Its zero value is not a
// valid origin. Origins compare with ==.
type Origin struct {
	// Scheme is "http" or "https"; empty for "*".
	Scheme string
	// Host is a lower-case host name, or an IP address in its canonical
	// form; for a wildcard, the name whose subdomains it covers.
	Host string
	// Port is the TCP port, the scheme's default when the text names none.
	Port uint16
	// Wildcard makes Host stand for its subdomains.
	Wildcard bool
	// Any is "*".
	Any bool
}

// AnyOrigin is the origin "*".
var AnyOrigin = Origin{Any: true}

// ParseOrigin parses one entry of a "net" list. An origin has no user, path
// (but "/"), query or fragment; its host is a name of letters, digits,
// hyphens and underscores, or an IP address (IPv6 in brackets, without a
// zone, IPv4 in dotted decimal and not in IPv6 form).
func ParseOrigin(s string) (Origin, error) {
	if s == "*" {
		return AnyOrigin, nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return Origin{}, fmt.Errorf("origin %q: %w", s, err)
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "" {
		return Origin{}, fmt.Errorf("origin %q: want scheme://host[:port] only", s)
	}
	wildcard := strings.HasPrefix(u.Hostname(), "*.")
	if wildcard {
		u.Host = strings.Replace(u.Host, "*.", "", 1)
	}
	o, err := originOf(u)
	if err != nil {
		return Origin{}, fmt.Errorf("origin %q: %w", s, err)
	}
	if wildcard {
		if _, isAddr := o.Addr(); isAddr {
			return Origin{}, fmt.Errorf("origin %q: a wildcard stands for the subdomains of a name, not of an address", s)
		}
		o.Wildcard = true
	}
	return o, nil
}

// ErrAmbiguousHost is wrapped by the error of URLOrigin and ParseOrigin for
// a host spelt so that it could reach an address other than the one it
// seems to name: an IPv4 address in a form other than dotted decimal, or as
// IPv6, or an IPv6 address with a zone.
var ErrAmbiguousHost = errors.New("ambiguous host")

// URLOrigin returns the origin of an absolute http or https URL as Go's
// url package parsed it, which is what an HTTP client connects to: its
// scheme, its host in canonical form and its port. It refuses what could
// reach an address other than the one the text seems to name: a host that
// is not a plain ASCII name or an IP address, an IPv4 address in any form
// but dotted decimal ("2130706433", "0x7f.1", "017700000001", "127.1"), an
// IPv4 address written as IPv6 ("[::ffff:127.0.0.1]") and an IPv6 zone.
func URLOrigin(u *url.URL) (Origin, error) {
	if u.Opaque != "" || u.Host == "" {
		return Origin{}, errors.New("not an absolute URL with a host")
	}
	return originOf(u)
}

// originOf is the origin of u: an http or https scheme, a host and a port.
func originOf(u *url.URL) (Origin, error) {
	o := Origin{Scheme: u.Scheme}
	switch u.Scheme {
	case "http":
		o.Port = 80
	case "https":
		o.Port = 443
	default:
		return Origin{}, fmt.Errorf("scheme %q is not http or https", u.Scheme)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return Origin{}, fmt.Errorf("port %q is not between 1 and 65535", p)
		}
		o.Port = uint16(n)
	} else if strings.HasSuffix(u.Host, ":") {
		return Origin{}, errors.New("empty port")
	}
	host, err := canonicalHost(u.Hostname(), strings.HasPrefix(u.Host, "["))
	if err != nil {
		return Origin{}, err
	}
	o.Host = host
	return o, nil
}

// canonicalHost returns host, as url.URL.Hostname gives it, in the one
// spelling origins compare by: a lower-case name, or an address as netip
// writes it. bracketed says the URL wrote it in brackets, as IPv6.
func canonicalHost(host string, bracketed bool) (string, error) {
	if host == "" {
		return "", errors.New("no host")
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		switch {
		case addr.Zone() != "":
			return "", fmt.Errorf("%w: %s: an IPv6 zone is not allowed", ErrAmbiguousHost, host)
		case addr.Is4In6():
			return "", fmt.Errorf("%w: %s is an IPv4 address in IPv6 form (write %s)", ErrAmbiguousHost, host, addr.Unmap())
		case addr.Is6() != bracketed:
			return "", fmt.Errorf("host %s: an IPv6 address must be in brackets, and only one", host)
		}
		return addr.String(), nil
	}
	if bracketed {
		return "", fmt.Errorf("host [%s] is not an IPv6 address", host)
	}
	name := strings.ToLower(host)
	if len(name) > 253 {
		return "", fmt.Errorf("host name of %d bytes is longer than 253", len(name))
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return "", fmt.Errorf("host %q: every label must be 1 to 63 characters", host)
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return "", fmt.Errorf("host %q: only ASCII letters, digits, '-' and '_' are allowed in a name (write an international name in its xn-- form)", host)
			}
		}
	}
	// The URL standard reads a host whose last label is a number as an IPv4
	// address, in decimal, octal or hex, and so do getaddrinfo and most
	// HTTP clients: refuse every such spelling but the canonical one.
	if last := labels[len(labels)-1]; isNumeric(last) {
		return "", fmt.Errorf("%w: %s reads as an IPv4 address in a form other than dotted decimal", ErrAmbiguousHost, host)
	}
	return name, nil
}

// isNumeric reports whether a label reads as a number: decimal digits, or
// 0x and hex digits.
func isNumeric(label string) bool {
	digits := label
	hex := false
	if rest, ok := strings.CutPrefix(digits, "0x"); ok {
		digits, hex = rest, true
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if !('0' <= c && c <= '9' || hex && ('a' <= c && c <= 'f')) {
			return false
		}
	}
	return true
}

// String is the origin as a policy writes it, with the port only when it
// is not the scheme's default.
func (o Origin) String() string {
	if o.Any {
		return "*"
	}
	host := o.Host
	if addr, ok := o.Addr(); ok && addr.Is6() {
		host = "[" + host + "]"
	}
	if o.Wildcard {
		host = "*." + host
	}
	if (o.Scheme == "http" && o.Port == 80) || (o.Scheme == "https" && o.Port == 443) {
		return o.Scheme + "://" + host
	}
	return o.Scheme + "://" + host + ":" + strconv.Itoa(int(o.Port))
}

// Addr returns the address of an origin whose host is an IP address.
func (o Origin) Addr() (netip.Addr, bool) {
	if o.Any || o.Wildcard {
		return netip.Addr{}, false
	}
	addr, err := netip.ParseAddr(o.Host)
	return addr, err == nil
}

// Covers reports whether every request to an origin p matches is also one
// o matches: the same origin, a subdomain of o's wildcard, or anything for
// "*".
func (o Origin) Covers(p Origin) bool {
	switch {
	case o.Any:
		return true
	case p.Any || o.Scheme != p.Scheme || o.Port != p.Port:
		return false
	case !o.Wildcard:
		return !p.Wildcard && o.Host == p.Host
	}
	return (p.Wildcard && p.Host == o.Host) || strings.HasSuffix(p.Host, "."+o.Host)
}

// Intersect returns the origins both o and p match, when there are any:
// always one of them, since two wildcards either nest or are disjoint.
func (o Origin) Intersect(p Origin) (Origin, bool) {
	switch {
	case o.Covers(p):
		return p, true
	case p.Covers(o):
		return o, true
	}
	return Origin{}, false
}
