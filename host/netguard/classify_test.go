package netguard

import (
	"net/netip"
	"testing"
)

// registryRows is one address of every entry of the IANA IPv4 and IPv6
// Special-Purpose Address Registries (as of 2026-07-18), as the registry
// writes the entry's block and "Globally Reachable" value, and what
// Classify says of it: "" for a globally reachable address.
var registryRows = []struct {
	block, reachable, addr, want string
}{
	{"0.0.0.0/8", "False", "0.1.2.3", "this network"},
	{"0.0.0.0/32", "False", "0.0.0.0", "this host on this network"},
	{"10.0.0.0/8", "False", "10.1.2.3", "private-use"},
	{"100.64.0.0/10", "False", "100.127.255.254", "shared address space"},
	{"127.0.0.0/8", "False", "127.0.0.1", "loopback"},
	{"169.254.0.0/16", "False", "169.254.169.254", "link-local"},
	{"172.16.0.0/12", "False", "172.31.0.1", "private-use"},
	{"192.0.0.0/24", "False", "192.0.0.11", "IETF protocol assignments"},
	{"192.0.0.0/29", "False", "192.0.0.1", "IPv4 service continuity prefix"},
	{"192.0.0.8/32", "False", "192.0.0.8", "IPv4 dummy address"},
	{"192.0.0.9/32", "True", "192.0.0.9", ""},
	{"192.0.0.10/32", "True", "192.0.0.10", ""},
	{"192.0.0.170/32", "False", "192.0.0.170", "NAT64/DNS64 discovery"},
	{"192.0.0.171/32", "False", "192.0.0.171", "NAT64/DNS64 discovery"},
	{"192.0.2.0/24", "False", "192.0.2.1", "documentation (TEST-NET-1)"},
	{"192.31.196.0/24", "True", "192.31.196.1", ""},
	{"192.52.193.0/24", "True", "192.52.193.1", ""},
	{"192.88.99.0/24", "", "192.88.99.1", "deprecated 6to4 relay anycast"},
	{"192.88.99.2/32", "False", "192.88.99.2", "6a44-relay anycast"},
	{"192.168.0.0/16", "False", "192.168.1.1", "private-use"},
	{"192.175.48.0/24", "True", "192.175.48.6", ""},
	{"198.18.0.0/15", "False", "198.19.255.255", "benchmarking"},
	{"198.51.100.0/24", "False", "198.51.100.7", "documentation (TEST-NET-2)"},
	{"203.0.113.0/24", "False", "203.0.113.9", "documentation (TEST-NET-3)"},
	{"240.0.0.0/4", "False", "240.0.0.1", "reserved"},
	{"255.255.255.255/32", "False", "255.255.255.255", "limited broadcast"},

	{"::1/128", "False", "::1", "loopback"},
	{"::/128", "False", "::", "unspecified"},
	// Judged as the IPv4 address: see the embedded forms.
	{"::ffff:0:0/96", "False", "::ffff:192.0.2.1", "documentation (TEST-NET-1)"},
	{"64:ff9b::/96", "True", "64:ff9b::808:808", ""},
	{"64:ff9b:1::/48", "False", "64:ff9b:1::808:808", "local-use NAT64"},
	{"100::/64", "False", "100::1", "discard-only"},
	{"100:0:0:1::/64", "False", "100:0:0:1::1", "dummy IPv6 prefix"},
	{"2001::/23", "False", "2001:5::1", "IETF protocol assignments"},
	// Server 65.54.227.120, client 8.8.8.8 (RFC 4380 section 4).
	{"2001::/32", "N/A", "2001:0:4136:e378:8000:63bf:f7f7:f7f7", "Teredo"},
	{"2001:1::1/128", "True", "2001:1::1", ""},
	{"2001:1::2/128", "True", "2001:1::2", ""},
	{"2001:1::3/128", "True", "2001:1::3", ""},
	{"2001:2::/48", "False", "2001:2::1", "benchmarking"},
	{"2001:3::/32", "True", "2001:3::1", ""},
	{"2001:4:112::/48", "True", "2001:4:112::1", ""},
	{"2001:10::/28", "", "2001:10::1", "deprecated ORCHID"},
	{"2001:20::/28", "True", "2001:20::1", ""},
	{"2001:30::/28", "True", "2001:30::1", ""},
	{"2001:db8::/32", "False", "2001:db8::1", "documentation"},
	{"2002::/16", "N/A", "2002:808:808::1", ""},
	{"2620:4f:8000::/48", "True", "2620:4f:8000::1", ""},
	{"3fff::/20", "False", "3fff:fff::1", "documentation"},
	{"5f00::/16", "False", "5f00::1", "segment routing (SRv6) SIDs"},
	{"fc00::/7", "False", "fd00::1", "unique-local"},
	{"fe80::/10", "False", "fe80::1", "link-local"},
}

func TestRegistry(t *testing.T) {
	rows := map[string]bool{}
	for _, r := range registryRows {
		rows[netip.MustParsePrefix(r.block).String()] = true
		t.Run(r.addr, func(t *testing.T) {
			addr := netip.MustParseAddr(r.addr)
			if !netip.MustParsePrefix(r.block).Contains(addr) && !addr.Is4In6() {
				t.Errorf("%s is not in %s", r.addr, r.block)
			}
			if got := Classify(addr); got != r.want {
				t.Errorf("%s (%s, globally reachable %q): Classify = %q, want %q", r.addr, r.block, r.reachable, got, r.want)
			}
		})
	}
	for _, b := range registry {
		if !rows[b.prefix.String()] {
			t.Errorf("no row of TestRegistry holds an address of %s", b.prefix)
		}
	}
	if len(rows) != len(registry) {
		t.Errorf("%d rows for %d registry entries", len(rows), len(registry))
	}
}

// Every form that embeds an IPv4 address is judged by the address it
// embeds, and the forms not globally reachable in themselves are refused
// whatever they embed.
func TestEmbeddedIPv4(t *testing.T) {
	for addr, want := range map[string]string{
		"::ffff:8.8.8.8":     "",
		"::ffff:127.0.0.1":   "loopback",
		"::ffff:10.0.0.1":    "private-use",
		"64:ff9b::7f00:1":    "NAT64, embedding loopback 127.0.0.1",
		"64:ff9b::a9fe:a9fe": "NAT64, embedding link-local 169.254.169.254",
		"64:ff9b::c000:201":  "NAT64, embedding documentation (TEST-NET-1) 192.0.2.1",
		"64:ff9b:1::a00:1":   "local-use NAT64, embedding private-use 10.0.0.1",
		"2002:7f00:1::":      "6to4, embedding loopback 127.0.0.1",
		"2002:a9fe:a9fe::1":  "6to4, embedding link-local 169.254.169.254",
		"2002::1":            "6to4, embedding this host on this network 0.0.0.0",
		"::8.8.8.8":          "IPv4-compatible (deprecated)",
		"::127.0.0.1":        "IPv4-compatible (deprecated), embedding loopback 127.0.0.1",
		"::ffff:0:8.8.8.8":   "IPv4-translated (SIIT)",
		"::ffff:0:7f00:1":    "IPv4-translated (SIIT), embedding loopback 127.0.0.1",
		"::ffff:0:a9fe:a9fe": "IPv4-translated (SIIT), embedding link-local 169.254.169.254",
		// Client 127.0.0.1: the last 32 bits inverted.
		"2001:0:4136:e378:8000:63bf:80ff:fffe": "Teredo, embedding loopback 127.0.0.1 as its client",
		// RFC 4380's example: client 192.0.2.45.
		"2001:0:4136:e378:8000:63bf:3fff:fdd2": "Teredo, embedding documentation (TEST-NET-1) 192.0.2.45 as its client",
		"2001:0:a9fe:a9fe::ffff:ffff":          "Teredo, embedding link-local 169.254.169.254 as its server, embedding this host on this network 0.0.0.0 as its client",
	} {
		t.Run(addr, func(t *testing.T) {
			if got := Classify(netip.MustParseAddr(addr)); got != want {
				t.Errorf("Classify(%s) = %q, want %q", addr, got, want)
			}
		})
	}
}

// Outside the registries: multicast, and the IPv6 space outside 2000::/3.
func TestUnlisted(t *testing.T) {
	for addr, want := range map[string]string{
		"8.8.8.8":           "",
		"1.1.1.1":           "",
		"224.0.0.1":         "multicast",
		"239.255.255.250":   "multicast",
		"2606:4700::1111":   "",
		"2a00:1450:4001::1": "",
		"ff02::1":           "multicast",
		"fec0::1":           "site-local (deprecated)",
		"4000::1":           "outside the global unicast space 2000::/3",
		"::2:0:0:1":         "outside the global unicast space 2000::/3",
		"fe80::1%eth0":      "link-local",
		"192.0.0.9":         "",
		"2001:1::4":         "IETF protocol assignments",
		"2001:1ff:ffff::1":  "IETF protocol assignments",
		"2001:200::1":       "",
	} {
		t.Run(addr, func(t *testing.T) {
			if got := Classify(netip.MustParseAddr(addr)); got != want {
				t.Errorf("Classify(%s) = %q, want %q", addr, got, want)
			}
		})
	}
	if got := Classify(netip.Addr{}); got != "invalid" {
		t.Errorf("the zero Addr: %q", got)
	}
}
