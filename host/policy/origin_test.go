package policy_test

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host/policy"
)

func TestParseOrigin(t *testing.T) {
	for i, c := range []struct {
		in   string
		want policy.Origin
		text string
	}{
		{"*", policy.AnyOrigin, "*"},
		{"https://api.github.com", policy.Origin{Scheme: "https", Host: "api.github.com", Port: 443}, "https://api.github.com"},
		{"HTTPS://API.GitHub.com:443/", policy.Origin{Scheme: "https", Host: "api.github.com", Port: 443}, "https://api.github.com"},
		{"http://example.com:8080", policy.Origin{Scheme: "http", Host: "example.com", Port: 8080}, "http://example.com:8080"},
		{"https://*.example.com", policy.Origin{Scheme: "https", Host: "example.com", Port: 443, Wildcard: true}, "https://*.example.com"},
		{"http://127.0.0.1:8080", policy.Origin{Scheme: "http", Host: "127.0.0.1", Port: 8080}, "http://127.0.0.1:8080"},
		{"http://[::1]", policy.Origin{Scheme: "http", Host: "::1", Port: 80}, "http://[::1]"},
		{"http://[2001:DB8::1]:81", policy.Origin{Scheme: "http", Host: "2001:db8::1", Port: 81}, "http://[2001:db8::1]:81"},
		{"http://my_host.internal", policy.Origin{Scheme: "http", Host: "my_host.internal", Port: 80}, "http://my_host.internal"},
	} {
		t.Run(fmt.Sprintf("ok-%d", i), func(t *testing.T) {
			got, err := policy.ParseOrigin(c.in)
			if err != nil || got != c.want || got.String() != c.text {
				t.Errorf("ParseOrigin(%q) = %+v (%s), %v; want %+v (%s)", c.in, got, got, err, c.want, c.text)
			}
		})
	}
	for i, bad := range []string{
		"", "example.com", "ftp://example.com", "file:///etc/passwd", "https://", "https://user@example.com",
		"https://example.com/path", "https://example.com?q", "https://example.com#f", "https://example.com:0",
		"https://example.com:65536", "https://example.com:", "https://*.127.0.0.1", "https://a.*.example.com",
		"https://*", "http://2130706433", "http://0x7f.1", "http://017700000001", "http://127.1",
		"http://[::ffff:127.0.0.1]", "http://[fe80::1%25eth0]", "https://exämple.com", "https://a..b",
		"https://" + strings.Repeat("a", 64) + ".com", "http:example.com", "**",
	} {
		t.Run(fmt.Sprintf("bad-%d", i), func(t *testing.T) {
			if o, err := policy.ParseOrigin(bad); err == nil {
				t.Errorf("ParseOrigin(%q) = %+v, want an error", bad, o)
			}
		})
	}
}

// The spellings of an address that HTTP clients or resolvers read as
// another one are refused as ambiguous; other malformed hosts are not
// ambiguous, only invalid.
func TestURLOriginRefusesAmbiguousHosts(t *testing.T) {
	for i, s := range []string{
		"http://2130706433/", "http://0x7f.1/", "http://017700000001/", "http://127.1/", "http://0x7f000001/",
		"http://127.0.0.1.1/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]:8080/", "http://[fe80::1%25eth0]/",
		"http://169.254.169.254.0x0/", "http://1.2.3.08/",
	} {
		t.Run(fmt.Sprintf("ambiguous-%d", i), func(t *testing.T) {
			u, err := url.Parse(s)
			if err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			if o, err := policy.URLOrigin(u); !errors.Is(err, policy.ErrAmbiguousHost) {
				t.Errorf("URLOrigin(%s) = %+v, %v; want ErrAmbiguousHost", s, o, err)
			}
		})
	}
	for i, s := range []string{"file:///etc/passwd", "http:///x", "http:example.com", "gopher://example.com/"} {
		t.Run(fmt.Sprintf("other-%d", i), func(t *testing.T) {
			u, _ := url.Parse(s)
			if _, err := policy.URLOrigin(u); err == nil || errors.Is(err, policy.ErrAmbiguousHost) {
				t.Errorf("URLOrigin(%s): %v, want an error other than ErrAmbiguousHost", s, err)
			}
		})
	}
	u, _ := url.Parse("https://API.example.com:443/a?b#c")
	if o, err := policy.URLOrigin(u); err != nil || o.String() != "https://api.example.com" {
		t.Errorf("URLOrigin(%s) = %s, %v", u, o, err)
	}
}

func TestCoversAndIntersect(t *testing.T) {
	o := func(s string) policy.Origin {
		t.Helper()
		v, err := policy.ParseOrigin(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for i, c := range []struct {
		a, b   string
		covers bool
	}{
		{"*", "https://example.com", true},
		{"*", "http://127.0.0.1:8080", true},
		{"https://example.com", "*", false},
		{"https://example.com", "https://example.com:443", true},
		{"https://example.com", "http://example.com", false},
		{"https://example.com", "https://example.com:8443", false},
		{"https://*.example.com", "https://api.example.com", true},
		{"https://*.example.com", "https://a.b.example.com", true},
		{"https://*.example.com", "https://example.com", false},
		{"https://*.example.com", "https://badexample.com", false},
		{"https://*.example.com", "https://*.api.example.com", true},
		{"https://*.api.example.com", "https://*.example.com", false},
		{"https://*.example.com", "https://*.example.com", true},
		{"https://*.example.com", "http://api.example.com", false},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8081", false},
	} {
		t.Run(fmt.Sprintf("covers-%d", i), func(t *testing.T) {
			if got := o(c.a).Covers(o(c.b)); got != c.covers {
				t.Errorf("%s covers %s = %v", c.a, c.b, got)
			}
		})
	}
	for i, c := range []struct{ a, b, want string }{
		{"*", "https://api.github.com", "https://api.github.com"},
		{"https://api.github.com", "*", "https://api.github.com"},
		{"*", "*", "*"},
		{"https://*.example.com", "https://api.example.com", "https://api.example.com"},
		{"https://*.a.example.com", "https://*.example.com", "https://*.a.example.com"},
		{"https://*.a.example.com", "https://*.b.example.com", ""},
		{"https://example.com", "http://example.com", ""},
	} {
		t.Run(fmt.Sprintf("intersect-%d", i), func(t *testing.T) {
			got, ok := o(c.a).Intersect(o(c.b))
			if (c.want == "") == ok || (ok && got.String() != c.want) {
				t.Errorf("%s ∩ %s = %s, %v; want %q", c.a, c.b, got, ok, c.want)
			}
		})
	}
}

// FuzzOrigin checks the matcher's promises on any text: a parsed origin
// reads back as itself, a URL's origin is canonical and never names an
// address in a spelling other than netip's, and an exact origin covers a
// URL only when scheme, host and port are the same.
func FuzzOrigin(f *testing.F) {
	for _, s := range []string{
		"https://api.github.com", "https://*.example.com", "http://127.0.0.1:8080", "*", "http://[::1]:80",
		"http://2130706433/", "http://[::ffff:127.0.0.1]/", "http://0x7f.1/", "file:///etc/passwd",
	} {
		f.Add(s, "https://api.github.com/x")
	}
	f.Fuzz(func(t *testing.T, origin, rawURL string) {
		o, err := policy.ParseOrigin(origin)
		if err == nil {
			again, err := policy.ParseOrigin(o.String())
			if err != nil || again != o {
				t.Fatalf("%q parsed as %+v, whose text %q parses as %+v, %v", origin, o, o.String(), again, err)
			}
			if !o.Covers(o) {
				t.Fatalf("%s does not cover itself", o)
			}
		}
		u, err := url.Parse(rawURL)
		if err != nil {
			return
		}
		uo, err := policy.URLOrigin(u)
		if err != nil {
			return
		}
		if uo.Any || uo.Wildcard || (uo.Scheme != "http" && uo.Scheme != "https") || uo.Port == 0 {
			t.Fatalf("URLOrigin(%q) = %+v", rawURL, uo)
		}
		host := strings.ToLower(u.Hostname())
		if addr, err := netip.ParseAddr(host); err == nil {
			if addr.Is4In6() || addr.Zone() != "" || addr.String() != uo.Host {
				t.Fatalf("URLOrigin(%q) accepted the address %s as %q", rawURL, host, uo.Host)
			}
		} else if host != uo.Host || numeric(host[strings.LastIndexByte(host, '.')+1:]) {
			t.Fatalf("URLOrigin(%q) host %q, want %q, not numeric", rawURL, uo.Host, host)
		}
		if o.Covers(uo) && !o.Any {
			if o.Scheme != uo.Scheme || o.Port != uo.Port {
				t.Fatalf("%s covers %s", o, uo)
			}
			if !o.Wildcard && o.Host != uo.Host || o.Wildcard && !strings.HasSuffix(uo.Host, "."+o.Host) {
				t.Fatalf("%s covers %s", o, uo)
			}
		}
	})
}

// numeric reports whether a label reads as a number in the URL standard's
// IPv4 parser: decimal (octal with a leading 0) or hex after 0x.
func numeric(label string) bool {
	if rest, ok := strings.CutPrefix(label, "0x"); ok {
		return strings.Trim(rest, "0123456789abcdef") == ""
	}
	return label != "" && strings.Trim(label, "0123456789") == ""
}
