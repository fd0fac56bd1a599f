package policy

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net/netip"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Defaults of the net settings.
const (
	// DefaultMaxResponse is the largest response body a request may read:
	// 4 MiB.
	DefaultMaxResponse = 4 << 20
	// DefaultMaxRequests is how many requests a plugin may have in flight
	// at once, all its calls together.
	DefaultMaxRequests = 4
)

// Limits of the net settings.
const (
	maxNetEntries  = 256
	maxMaxResponse = 1 << 30
)

// Net is what a plugin may reach with wasmcp.http_request (ABI.md section
// 5). The zero value reaches nothing.
type Net struct {
	// Origins are the origins granted: those both the module's request and
	// the policy match, in request order.
	Origins []Origin
	// Addresses are the addresses, with their ports, of the policy's origins
	// whose host is an IP address: a connection to one is allowed even when
	// the address is not public (loopback, private, ...).
	Addresses []netip.AddrPort
	// PrivateNetwork allows connections to every address, public or not.
	PrivateNetwork bool
	// Headers are set on every request to an origin their Origin covers,
	// replacing the guest's headers of the same name. Values are expanded
	// from wasmcp's environment; they are secrets.
	Headers []OriginHeader
	// CAFile is a PEM file of certificates trusted besides the system's.
	CAFile string
	// Proxy is the proxy every request goes through; nil for none (the
	// proxy environment variables are ignored).
	Proxy *url.URL
	// MaxResponse is the largest response body, in bytes.
	MaxResponse int64
	// MaxRequests is how many requests the plugin may have in flight.
	MaxRequests int
}

// OriginHeader is one header the host sets on requests to Origin.
type OriginHeader struct {
	Origin      Origin
	Name, Value string
}

// IsZero reports whether n reaches nothing.
func (n Net) IsZero() bool { return len(n.Origins) == 0 }

// checkNet validates the net settings of s and makes its caFile absolute.
func (s *Settings) checkNet(dir string) error {
	if len(s.Net) > maxNetEntries {
		return fmt.Errorf("net: %d entries, more than %d", len(s.Net), maxNetEntries)
	}
	for _, e := range s.Net {
		if _, err := ParseOrigin(e); err != nil {
			return fmt.Errorf("net: %w", err)
		}
	}
	for key, hs := range s.Headers {
		o, err := ParseOrigin(key)
		if err != nil {
			return fmt.Errorf("headers: %w", err)
		}
		if o.Any {
			return errors.New(`headers: "*" would send the headers to every origin; name the origins`)
		}
		for name, value := range hs {
			if err := checkHeader(name, value); err != nil {
				return fmt.Errorf("headers for %s: %w", key, err)
			}
		}
	}
	if s.CAFile != nil {
		path := *s.CAFile
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		if _, err := LoadCertificates(path); err != nil {
			return fmt.Errorf("caFile: %w", err)
		}
		s.CAFile = &path
	}
	if s.Proxy != nil {
		if _, err := parseProxy(*s.Proxy); err != nil {
			return err
		}
	}
	switch {
	case s.MaxResponse != nil && (*s.MaxResponse == 0 || *s.MaxResponse > maxMaxResponse):
		return fmt.Errorf("maxResponse %d is not between 1 byte and 1GiB", *s.MaxResponse)
	case s.MaxRequests != nil && *s.MaxRequests < 0:
		return fmt.Errorf("maxRequests %d is negative", *s.MaxRequests)
	}
	return nil
}

// LoadCertificates reads a PEM file of certificates into a pool.
func LoadCertificates(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}

func parseProxy(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("proxy %q: want http://host:port or https://host:port", s)
	}
	return u, nil
}

// reservedHeaders are what the HTTP client writes from the request's URL
// and body; neither a guest nor the policy sets them.
var reservedHeaders = []string{"Host", "Content-Length", "Transfer-Encoding", "Connection", "Trailer", "Upgrade", "Te"}

// ReservedHeader reports whether the header name is the HTTP client's to
// write (Host, Content-Length, Transfer-Encoding, ...).
func ReservedHeader(name string) bool {
	return slices.Contains(reservedHeaders, textproto.CanonicalMIMEHeaderKey(name))
}

// checkHeader validates a header the policy sets; ${NAME} references in
// value are checked again once expanded.
func checkHeader(name, value string) error {
	if !ValidHeaderName(name) {
		return fmt.Errorf("header name %q is not an HTTP token", name)
	}
	if ReservedHeader(name) {
		return fmt.Errorf("header %s is the HTTP client's to set", name)
	}
	if !ValidHeaderValue(value) {
		return fmt.Errorf("header %s: the value holds a control character", name)
	}
	return nil
}

// ValidHeaderName reports whether name is an HTTP token (RFC 9110).
func ValidHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// ValidHeaderValue reports whether value holds no control character but
// horizontal tab: no line break can split it into two headers.
func ValidHeaderValue(value string) bool {
	for i := 0; i < len(value); i++ {
		if c := value[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// mergeNet sets in s the net settings o gives.
func mergeNet(s *Settings, o Settings) {
	if o.Net != nil {
		s.Net = o.Net
	}
	if o.PrivateNetwork != nil {
		s.PrivateNetwork = o.PrivateNetwork
	}
	if o.Headers != nil {
		s.Headers = o.Headers
	}
	if o.CAFile != nil {
		s.CAFile = o.CAFile
	}
	if o.Proxy != nil {
		s.Proxy = o.Proxy
	}
	if o.MaxResponse != nil {
		s.MaxResponse = o.MaxResponse
	}
	if o.MaxRequests != nil {
		s.MaxRequests = o.MaxRequests
	}
}

// grantNet returns what s grants of the origins a module requested, and in
// words what it does not: an origin no policy entry meets, a header whose
// variable is unset.
func (s Settings) grantNet(requested []string, denied []string) (n Net, _ []string) {
	var policy []Origin
	for _, e := range s.Net {
		o, _ := ParseOrigin(e) // checked at load
		policy = append(policy, o)
	}
	for _, r := range requested {
		want, err := ParseOrigin(r)
		if err != nil {
			denied = append(denied, "net "+r)
			continue
		}
		granted := false
		for _, p := range policy {
			if o, ok := want.Intersect(p); ok {
				granted = true
				if !slices.Contains(n.Origins, o) {
					n.Origins = append(n.Origins, o)
				}
			}
		}
		if !granted {
			denied = append(denied, "net "+r)
		}
	}
	if len(n.Origins) == 0 {
		return Net{}, denied
	}
	// Only an address the grant itself names may be private: one the
	// policy lists for an origin the module did not ask for stays refused.
	for _, o := range n.Origins {
		if addr, ok := o.Addr(); ok {
			n.Addresses = append(n.Addresses, netip.AddrPortFrom(addr, o.Port))
		}
	}
	n.PrivateNetwork = s.PrivateNetwork != nil && *s.PrivateNetwork
	n.Headers, denied = expandHeaders(s.Headers, denied)
	if s.CAFile != nil {
		n.CAFile = *s.CAFile
	}
	if s.Proxy != nil {
		n.Proxy, _ = parseProxy(*s.Proxy) // checked at load
	}
	n.MaxResponse, n.MaxRequests = DefaultMaxResponse, DefaultMaxRequests
	if s.MaxResponse != nil {
		n.MaxResponse = int64(*s.MaxResponse)
	}
	if s.MaxRequests != nil && *s.MaxRequests > 0 {
		n.MaxRequests = *s.MaxRequests
	}
	return n, denied
}

// expandHeaders returns the policy's headers with ${NAME} replaced by
// wasmcp's environment variable NAME, sorted by origin and name. A header
// naming an unset variable, or whose value becomes invalid, is left out
// and said so in denied.
func expandHeaders(spec map[string]map[string]string, denied []string) ([]OriginHeader, []string) {
	var out []OriginHeader
	var left []string
	for key, hs := range spec {
		o, _ := ParseOrigin(key) // checked at load
		for name, value := range hs {
			v, missing := expand(value)
			name = textproto.CanonicalMIMEHeaderKey(name)
			switch {
			case len(missing) > 0:
				left = append(left, fmt.Sprintf("header %s for %s (${%s} is not set)", name, key, missing[0]))
			case !ValidHeaderValue(v):
				left = append(left, fmt.Sprintf("header %s for %s (its value holds a control character)", name, key))
			default:
				out = append(out, OriginHeader{Origin: o, Name: name, Value: v})
			}
		}
	}
	slices.SortFunc(out, func(a, b OriginHeader) int {
		return strings.Compare(a.Origin.String()+"\n"+a.Name, b.Origin.String()+"\n"+b.Name)
	})
	slices.Sort(left)
	return out, append(denied, left...)
}

// expand replaces each ${NAME} in s by wasmcp's environment variable NAME,
// and returns the names that are not set. Any other "$" is literal.
func expand(s string) (string, []string) {
	var b strings.Builder
	var missing []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), missing
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String(), missing
		}
		name := s[i+2 : i+j]
		v, ok := os.LookupEnv(name)
		if !ok {
			missing = append(missing, name)
		}
		b.WriteString(s[:i])
		b.WriteString(v)
		s = s[i+j+1:]
	}
}
