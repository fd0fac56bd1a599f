// Package httpserve is what stands between the network and an MCP HTTP
// handler: the listen address and the rule against exposing a server without
// authentication, the Origin check (with CORS for allowed origins), bearer
// token authentication, and a server that shuts down gracefully. It knows
// nothing of MCP beyond the names of its headers; the handler comes from the
// adapter.
package httpserve

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// DefaultHost is the host a listen address without one gets: loopback, so
// that only processes on this machine can connect unless the operator names
// another interface.
const DefaultHost = "127.0.0.1"

// ListenAddress completes addr to host:port. A bare port ("8080") or an
// address with an empty host (":8080") gets DefaultHost. A port is required;
// 0 asks the system for a free one.
func ListenAddress(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		if _, perr := strconv.ParseUint(addr, 10, 16); perr != nil {
			return "", fmt.Errorf("listen address %q: want HOST:PORT, :PORT or PORT", addr)
		}
		host, port = "", addr
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n > 65535 {
		return "", fmt.Errorf("listen address %q: port %q is not a number from 0 to 65535", addr, port)
	}
	if host == "" {
		host = DefaultHost
	}
	return net.JoinHostPort(host, port), nil
}

// IsLoopback reports whether host, a name or an IP address with or without
// brackets, can only be reached from this machine: "localhost" or a loopback
// address. Any other name is treated as reachable from elsewhere, whatever it
// resolves to now.
func IsLoopback(host string) bool {
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// ErrExposed is returned by CheckExposure for a non-loopback address served
// without authentication.
var ErrExposed = errors.New("refusing to serve without authentication on a non-loopback address")

// CheckExposure enforces the rule that a server reachable from other
// machines requires a bearer token: addr (host:port, as ListenAddress
// returns) must be loopback, or auth must be on, or insecure must be set
// explicitly by the operator.
func CheckExposure(addr string, auth, insecure bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", addr, err)
	}
	if auth || insecure || IsLoopback(host) {
		return nil
	}
	return fmt.Errorf("%w %s: anyone who can reach it could run its tools. Give a token with --token-file or --token-env, "+
		"bind a loopback address (127.0.0.1:PORT), or pass --insecure-no-auth if something in front of wasmcp authenticates clients",
		ErrExposed, addr)
}
