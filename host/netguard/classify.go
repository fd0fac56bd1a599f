// Package netguard decides which addresses wasmcp connects to for someone
// it does not trust — a guest's HTTP request, a registry's redirect or token
// realm — and checks them where the socket connects.
//
// Classify says whether an address is globally reachable, from the IANA
// Special-Purpose Address Registries; a Dialer resolves a host name itself
// and has its caller judge each address between the socket's creation and
// its connect, so that what is judged is what is connected to.
package netguard

import "net/netip"

// reach is the "Globally Reachable" value of a registry entry.
type reach int8

const (
	notGlobal reach = iota // "False"
	global                 // "True"
	// unstated is "N/A", or no value at all (an allocation that ended):
	// refused, but for 6to4, which is reachable as the IPv4 address it
	// embeds (RFC 3056).
	unstated
)

// block is one entry of a registry: its address block, a short name for
// it, and whether it is globally reachable.
type block struct {
	prefix netip.Prefix
	kind   string
	reach  reach
}

func entry(prefix, kind string, r reach) block {
	return block{netip.MustParsePrefix(prefix), kind, r}
}

// registry is every entry of the IANA IPv4 and IPv6 Special-Purpose Address
// Registries (RFC 6890, RFC 8190) as published on 2026-07-18, in their
// order, with their "Globally Reachable" values; the names are the
// registry's, shortened. An address is judged by the most specific entry
// that holds it, so the globally reachable anycast blocks inside 192.0.0.0/24
// and 2001::/23 are reachable and the rest of those blocks is not. To update
// it, compare with the registries' CSV files and add a row to the table of
// TestRegistry for each new entry.
var registry = []block{
	entry("0.0.0.0/8", "this network", notGlobal),
	entry("0.0.0.0/32", "this host on this network", notGlobal),
	entry("10.0.0.0/8", "private-use", notGlobal),
	entry("100.64.0.0/10", "shared address space", notGlobal),
	entry("127.0.0.0/8", "loopback", notGlobal),
	entry("169.254.0.0/16", "link-local", notGlobal),
	entry("172.16.0.0/12", "private-use", notGlobal),
	entry("192.0.0.0/24", "IETF protocol assignments", notGlobal),
	entry("192.0.0.0/29", "IPv4 service continuity prefix", notGlobal),
	entry("192.0.0.8/32", "IPv4 dummy address", notGlobal),
	entry("192.0.0.9/32", "port control protocol anycast", global),
	entry("192.0.0.10/32", "TURN anycast", global),
	entry("192.0.0.170/32", "NAT64/DNS64 discovery", notGlobal),
	entry("192.0.0.171/32", "NAT64/DNS64 discovery", notGlobal),
	entry("192.0.2.0/24", "documentation (TEST-NET-1)", notGlobal),
	entry("192.31.196.0/24", "AS112-v4", global),
	entry("192.52.193.0/24", "AMT", global),
	entry("192.88.99.0/24", "deprecated 6to4 relay anycast", unstated),
	entry("192.88.99.2/32", "6a44-relay anycast", notGlobal),
	entry("192.168.0.0/16", "private-use", notGlobal),
	entry("192.175.48.0/24", "direct delegation AS112 service", global),
	entry("198.18.0.0/15", "benchmarking", notGlobal),
	entry("198.51.100.0/24", "documentation (TEST-NET-2)", notGlobal),
	entry("203.0.113.0/24", "documentation (TEST-NET-3)", notGlobal),
	entry("240.0.0.0/4", "reserved", notGlobal),
	entry("255.255.255.255/32", "limited broadcast", notGlobal),

	entry("::1/128", "loopback", notGlobal),
	entry("::/128", "unspecified", notGlobal),
	// Never matched: Classify judges an IPv4-mapped address as the IPv4
	// address it maps, which is what a socket given it connects to.
	entry("::ffff:0:0/96", "IPv4-mapped", notGlobal),
	entry("64:ff9b::/96", "NAT64", global),
	entry("64:ff9b:1::/48", "local-use NAT64", notGlobal),
	entry("100::/64", "discard-only", notGlobal),
	entry("100:0:0:1::/64", "dummy IPv6 prefix", notGlobal),
	entry("2001::/23", "IETF protocol assignments", notGlobal),
	entry("2001::/32", "Teredo", unstated),
	entry("2001:1::1/128", "port control protocol anycast", global),
	entry("2001:1::2/128", "TURN anycast", global),
	entry("2001:1::3/128", "DNS-SD service registration protocol anycast", global),
	entry("2001:2::/48", "benchmarking", notGlobal),
	entry("2001:3::/32", "AMT", global),
	entry("2001:4:112::/48", "AS112-v6", global),
	entry("2001:10::/28", "deprecated ORCHID", unstated),
	entry("2001:20::/28", "ORCHIDv2", global),
	entry("2001:30::/28", "drone remote ID DETs", global),
	entry("2001:db8::/32", "documentation", notGlobal),
	entry("2002::/16", "6to4", unstated),
	entry("2620:4f:8000::/48", "direct delegation AS112 service", global),
	entry("3fff::/20", "documentation", notGlobal),
	entry("5f00::/16", "segment routing (SRv6) SIDs", notGlobal),
	entry("fc00::/7", "unique-local", notGlobal),
	entry("fe80::/10", "link-local", notGlobal),
}

// unlisted are blocks the special-purpose registries do not list that are
// not globally reachable either: multicast (the IPv4 and IPv6 Multicast
// Address Space registries) and IPv6 blocks of the IPv6 Address Space
// registry's "Reserved by IETF" space, named for their old uses. Any other
// IPv6 address outside 2000::/3, the global unicast space, is refused too
// (64:ff9b::/96 aside, which the special-purpose registry lists).
var unlisted = []block{
	entry("224.0.0.0/4", "multicast", notGlobal),
	entry("ff00::/8", "multicast", notGlobal),
	entry("fec0::/10", "site-local (deprecated)", notGlobal),
	entry("::/96", "IPv4-compatible (deprecated)", notGlobal),
	entry("::ffff:0:0:0/96", "IPv4-translated (SIIT)", notGlobal),
}

var globalUnicast = netip.MustParsePrefix("2000::/3")

// embedding are the forms of IPv6 address that carry an IPv4 address, and
// where: a gateway may translate them to it, so an IPv4 address that is
// not globally reachable makes them unreachable too. Teredo (2001::/32)
// carries two, see teredo.
var embedding = map[netip.Prefix]int{
	netip.MustParsePrefix("64:ff9b::/96"):    12, // RFC 6052
	netip.MustParsePrefix("64:ff9b:1::/48"):  12, // RFC 8215, as a /96 inside it
	netip.MustParsePrefix("2002::/16"):       2,  // RFC 3056
	netip.MustParsePrefix("::/96"):           12, // RFC 4291 2.5.5.1
	netip.MustParsePrefix("::ffff:0:0:0/96"): 12, // RFC 2765
}

var (
	teredoPrefix    = netip.MustParsePrefix("2001::/32")
	sixToFourPrefix = netip.MustParsePrefix("2002::/16")
)

// Classify returns why addr is not a globally reachable address — the
// name of the special-purpose block that holds it ("loopback",
// "link-local", "documentation (TEST-NET-1)", ...), with the IPv4 address
// it embeds when that is the reason — or "" if it is globally reachable.
//
// An IPv4-mapped address is judged as its IPv4 address. Every other form
// that embeds an IPv4 address (NAT64, 6to4, Teredo, IPv4-compatible, SIIT)
// is refused when the address it embeds is, and the forms the registries
// do not call globally reachable are refused whatever they embed.
func Classify(addr netip.Addr) string {
	if !addr.IsValid() {
		return "invalid"
	}
	addr = addr.Unmap().WithZone("")
	b, listed := lookup(addr)
	switch {
	case !listed && addr.Is6() && !globalUnicast.Contains(addr):
		return "outside the global unicast space 2000::/3"
	case !listed:
		return ""
	case b.prefix == teredoPrefix:
		return teredo(addr)
	}
	if off, ok := embedding[b.prefix]; ok {
		v4 := ipv4At(addr, off, 0)
		if why := Classify(v4); why != "" {
			return b.kind + ", embedding " + why + " " + v4.String()
		}
	}
	if b.reach == global || b.prefix == sixToFourPrefix {
		return ""
	}
	return b.kind
}

// lookup returns the most specific registry entry that holds addr, or else
// the unlisted block that does.
func lookup(addr netip.Addr) (block, bool) {
	best, found := block{}, false
	for _, b := range registry {
		if b.prefix.Contains(addr) && (!found || b.prefix.Bits() > best.prefix.Bits()) {
			best, found = b, true
		}
	}
	if found {
		return best, true
	}
	for _, b := range unlisted {
		if b.prefix.Contains(addr) {
			return b, true
		}
	}
	return block{}, false
}

// teredo is the reason a Teredo address (RFC 4380 section 4) is refused:
// the registry does not call the block globally reachable, and a relay
// would deliver to the client's IPv4 address, the last 32 bits inverted;
// bits 32 to 63 are its server's. Either one that is not globally
// reachable is named.
func teredo(addr netip.Addr) string {
	why := "Teredo"
	for _, e := range []struct {
		role string
		v4   netip.Addr
	}{{"server", ipv4At(addr, 4, 0)}, {"client", ipv4At(addr, 12, 0xff)}} {
		if k := Classify(e.v4); k != "" {
			why += ", embedding " + k + " " + e.v4.String() + " as its " + e.role
		}
	}
	return why
}

// ipv4At is the IPv4 address at byte off of addr, each byte XORed with
// mask.
func ipv4At(addr netip.Addr, off int, mask byte) netip.Addr {
	b := addr.As16()
	return netip.AddrFrom4([4]byte{b[off] ^ mask, b[off+1] ^ mask, b[off+2] ^ mask, b[off+3] ^ mask})
}
