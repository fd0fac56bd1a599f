package policy_test

import (
	"encoding/pem"
	"fmt"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/policy"
)

// writeCA writes the certificate of an httptest TLS server as a PEM file.
func writeCA(t *testing.T, dir string) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.StartTLS()
	defer srv.Close()
	cert := srv.TLS.Certificates[0]
	path := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestGrantNet(t *testing.T) {
	dir := t.TempDir()
	writeCA(t, dir)
	t.Setenv("GITHUB_TOKEN", "secret-token")
	doc := `{
	  "defaults": {"maxRequests": 2},
	  "plugins": {"fetch": {
	    "net": ["https://api.github.com", "https://*.example.com", "http://127.0.0.1:8080", "http://[::1]:9000"],
	    "privateNetwork": false,
	    "headers": {
	      "https://api.github.com": {"authorization": "Bearer ${GITHUB_TOKEN}", "X-Literal": "$HOME and ${"},
	      "https://*.example.com": {"X-Key": "${UNSET_IN_TEST}"}
	    },
	    "caFile": "ca.pem",
	    "proxy": "http://proxy.internal:3128",
	    "maxResponse": "1MiB"
	  }}
	}`
	os.Unsetenv("UNSET_IN_TEST")
	p, err := policy.Parse([]byte(doc), dir)
	if err != nil {
		t.Fatal(err)
	}
	g, denied := p.Grant("fetch", &abi.Permissions{Net: []string{
		"*", "https://api.github.com", "https://www.example.com", "https://evil.com", "http://api.github.com",
	}})
	var got []string
	for _, o := range g.Net.Origins {
		got = append(got, o.String())
	}
	want := []string{"https://api.github.com", "https://*.example.com", "http://127.0.0.1:8080", "http://[::1]:9000", "https://www.example.com"}
	if !slices.Equal(got, want) {
		t.Errorf("granted %q, want %q", got, want)
	}
	wantDenied := []string{"net https://evil.com", "net http://api.github.com", "header X-Key for https://*.example.com (${UNSET_IN_TEST} is not set)"}
	if !slices.Equal(denied, wantDenied) {
		t.Errorf("denied %q, want %q", denied, wantDenied)
	}
	wantAddrs := []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:8080"), netip.MustParseAddrPort("[::1]:9000")}
	if !slices.Equal(g.Net.Addresses, wantAddrs) {
		t.Errorf("addresses %v, want %v", g.Net.Addresses, wantAddrs)
	}
	// A module that did not ask for the policy's address origins cannot
	// reach those addresses through a name it was granted.
	if named, _ := p.Grant("fetch", &abi.Permissions{Net: []string{"https://www.example.com"}}); len(named.Net.Addresses) != 0 {
		t.Errorf("addresses %v granted to a module that asked for none", named.Net.Addresses)
	}
	wantHeaders := []policy.OriginHeader{
		{Origin: g.Net.Origins[0], Name: "Authorization", Value: "Bearer secret-token"},
		{Origin: g.Net.Origins[0], Name: "X-Literal", Value: "$HOME and ${"},
	}
	if !slices.Equal(g.Net.Headers, wantHeaders) {
		t.Errorf("headers %+v, want %+v", g.Net.Headers, wantHeaders)
	}
	if g.Net.CAFile != filepath.Join(dir, "ca.pem") || g.Net.Proxy.String() != "http://proxy.internal:3128" ||
		g.Net.MaxResponse != 1<<20 || g.Net.MaxRequests != 2 || g.Net.PrivateNetwork {
		t.Errorf("net grant %+v", g.Net)
	}
	if s := policy.Summary(g); !slices.Equal(s.Net, want) {
		t.Errorf("summary net %q", s.Net)
	}

	// Defaults, and nothing for a module that asks for nothing or for a
	// plugin without "net".
	p, err = policy.Parse([]byte(`{"plugins": {"a": {"net": ["*"]}}}`), dir)
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := p.Grant("a", &abi.Permissions{Net: []string{"https://x.org"}}); g.Net.MaxResponse != policy.DefaultMaxResponse ||
		g.Net.MaxRequests != policy.DefaultMaxRequests || g.Net.Proxy != nil || len(g.Net.Origins) != 1 {
		t.Errorf("defaults: %+v", g.Net)
	}
	if g, _ := p.Grant("a", &abi.Permissions{Clock: true}); !g.Net.IsZero() {
		t.Errorf("a module asking for no origin got %+v", g.Net)
	}
	if g, denied := p.Grant("b", &abi.Permissions{Net: []string{"*"}}); !g.IsZero() || !slices.Equal(denied, []string{"net *"}) {
		t.Errorf("a plugin without net got %+v, denied %q", g.Net, denied)
	}
}

func TestNetParseErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "empty.pem"), []byte("nothing"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct{ doc, want string }{
		{`{"defaults": {"net": ["example.com"]}}`, "origin"},
		{`{"defaults": {"net": ["http://2130706433"]}}`, "dotted decimal"},
		{`{"defaults": {"headers": {"*": {"A": "b"}}}}`, "every origin"},
		{`{"defaults": {"headers": {"https://a.com": {"Bad Name": "b"}}}}`, "token"},
		{`{"defaults": {"headers": {"https://a.com": {"Host": "b"}}}}`, "HTTP client's"},
		{`{"defaults": {"headers": {"https://a.com": {"A": "b\r\nX: y"}}}}`, "control character"},
		{`{"defaults": {"caFile": "missing.pem"}}`, "caFile"},
		{`{"defaults": {"caFile": "empty.pem"}}`, "no PEM"},
		{`{"defaults": {"proxy": "socks9://x"}}`, "proxy"},
		{`{"defaults": {"maxResponse": 0}}`, "maxResponse"},
		{`{"defaults": {"maxResponse": "2GiB"}}`, "maxResponse"},
		{`{"defaults": {"maxRequests": -1}}`, "maxRequests"},
		{`{"defaults": {"net": "https://a.com"}}`, "cannot unmarshal"},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			_, err := policy.Parse([]byte(c.doc), dir)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: error %v, want one containing %q", c.doc, err, c.want)
			}
		})
	}
}

// A header whose expanded value would split into two lines is left out.
func TestNetHeaderExpansionChecked(t *testing.T) {
	t.Setenv("TOKEN", "a\r\nX-Injected: 1")
	p, err := policy.Parse([]byte(`{"defaults": {"net": ["https://a.com"], "headers": {"https://a.com": {"Authorization": "${TOKEN}"}}}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g, denied := p.Grant("x", &abi.Permissions{Net: []string{"https://a.com"}})
	if len(g.Net.Headers) != 0 || len(denied) != 1 || !strings.Contains(denied[0], "control character") {
		t.Errorf("headers %+v, denied %q", g.Net.Headers, denied)
	}
}
