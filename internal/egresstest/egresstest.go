// Package egresstest gives the network tests their servers and names: HTTP
// and HTTPS servers on 127.0.0.1 that count the connections they accept, so
// that a test can prove a refused server was never contacted, and a
// resolver that answers from a map, so that no test depends on real DNS.
package egresstest

import (
	"context"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// Server is an httptest server on 127.0.0.1 that counts its connections.
type Server struct {
	*httptest.Server
	conns atomic.Int64
	// Origin is the server's origin, http://127.0.0.1:PORT or https://...
	Origin string
	// Port is its port.
	Port string
}

// NewServer starts a server of h, with TLS if tls is set, closed when the
// test ends.
func NewServer(t testing.TB, tls bool, h http.HandlerFunc) *Server {
	t.Helper()
	s := &Server{Server: httptest.NewUnstartedServer(h)}
	s.Listener = countingListener{s.Listener, &s.conns}
	if tls {
		s.StartTLS()
	} else {
		s.Start()
	}
	t.Cleanup(s.Close)
	s.Origin = s.URL
	_, s.Port, _ = net.SplitHostPort(s.Listener.Addr().String())
	return s
}

// Conns is how many connections the server has accepted.
func (s *Server) Conns() int64 { return s.conns.Load() }

// WriteCA writes the certificate of a TLS server as a PEM file in a
// temporary directory and returns its path, for a policy's caFile.
func (s *Server) WriteCA(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// Resolver answers lookups from a map of names to addresses; any other name
// does not exist.
type Resolver map[string][]netip.Addr

// LookupNetIP implements egress.Resolver.
func (r Resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if addrs, ok := r[host]; ok {
		return addrs, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// Names are the names the network tests use: two that resolve to the
// loopback address, one to the cloud metadata address, one to an
// IPv4-mapped loopback address.
var Names = Resolver{
	"evil.test":     {netip.MustParseAddr("127.0.0.1")},
	"internal.test": {netip.MustParseAddr("127.0.0.1")},
	"metadata.test": {netip.MustParseAddr("169.254.169.254")},
	"mapped.test":   {netip.MustParseAddr("::ffff:127.0.0.1")},
}
