package httpserve

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// corsExposeHeaders are the response headers a browser client of an allowed
// origin must be able to read: the session id it sends back, and why it was
// refused. (The request headers it may send are not listed but echoed from
// the preflight: the 2026-07-28 protocol's Mcp-Param-* headers carry tool
// arguments and cannot be listed by prefix.)
const corsExposeHeaders = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate"

// NormalizeOrigin returns origin as scheme://host[:port] in lower case, the
// port dropped when it is the scheme's default, or an error if it is not an
// http(s) origin. It is how --allow-origin values and Origin headers are
// compared.
func NormalizeOrigin(origin string) (string, error) {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("origin %q: want scheme://host[:port], such as http://localhost:6274", origin)
	}
	return u.Scheme + "://" + hostPort(u.Scheme, u.Host), nil
}

// hostPort lower-cases host and drops the default port of scheme.
func hostPort(scheme, host string) string {
	host = strings.ToLower(host)
	if h, port, err := net.SplitHostPort(host); err == nil &&
		((scheme == "http" && port == "80") || (scheme == "https" && port == "443")) {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return host
}

// checkHost refuses, with 403, a request to a loopback listener whose Host
// is not a loopback name or address: after DNS rebinding, a web page's
// requests to its own name reach this machine's loopback port, and only the
// Host header tells them apart. It applies to every path of the listener,
// probes and metrics included, not only to /mcp, where go-sdk's handler makes
// the same check. A listener on another interface is reached under names the
// operator chose, so it is left to the token and the Origin check. A request
// without a Host (HTTP/1.0, as a load balancer's health check sends) passes:
// a browser always sends one.
func checkHost(next http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if local != nil && r.Host != "" && isLoopbackAddr(local.String()) && !isLoopbackAddr(r.Host) {
			log.Warn("request refused: Host is not a loopback name on a loopback listener",
				"host", r.Host, "path", r.URL.Path, "remote", r.RemoteAddr)
			http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isLoopbackAddr is IsLoopback of host[:port].
func isLoopbackAddr(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	return IsLoopback(host)
}

// CheckOrigin wraps next with the Origin validation the MCP transport
// requires against DNS rebinding and cross-site requests. Requests without an
// Origin header (every non-browser client) pass. A browser request passes
// when its origin is the server's own (the Origin's host and port are the
// request's Host; with Serve's Host check on loopback, a rebound name cannot
// get here) or is listed in allowed (normalized with NormalizeOrigin). Any
// other is refused with 403 before it reaches authentication or the handler.
//
// Listed origins also get CORS: a preflight (OPTIONS) is answered here, and
// responses carry Access-Control-Allow-Origin, so that a browser client such
// as the MCP Inspector's web UI can read them.
func CheckOrigin(next http.Handler, allowed []string, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		norm, err := NormalizeOrigin(origin)
		listed := err == nil && slices.Contains(allowed, norm)
		same := err == nil && strings.TrimPrefix(strings.TrimPrefix(norm, "http://"), "https://") == hostPort(schemeOf(norm), r.Host)
		if !listed && !same {
			log.Warn("request refused: origin not allowed", "origin", origin, "host", r.Host, "remote", r.RemoteAddr)
			http.Error(w, fmt.Sprintf("Forbidden: origin %q is not allowed (start wasmcp with --allow-origin %s to allow it)", origin, origin),
				http.StatusForbidden)
			return
		}
		if listed {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
				if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
					h.Set("Access-Control-Allow-Headers", req)
				}
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func schemeOf(origin string) string {
	scheme, _, _ := strings.Cut(origin, "://")
	return scheme
}
