package main

// The HTTP listener, bound before the server runs.

import (
	"log/slog"
	"net"
	"os"
	"strings"

	"github.com/wasmcp/wasmcp/internal/httpserve"
	"github.com/wasmcp/wasmcp/internal/server"
)

// newHTTPListener completes the address, applies the rule against serving
// other machines without authentication (which OAuth, when oauth says so,
// is), reads the token and binds, before the modules load, so that a taken
// port fails at once.
func newHTTPListener(f *httpFlags, oauth bool, logger *slog.Logger) (*server.HTTP, error) {
	addr, err := httpserve.ListenAddress(f.addr)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	token, err := f.token(logger)
	if err != nil {
		return nil, err
	}
	if err := httpserve.CheckExposure(addr, token != "" || oauth, f.insecureNoAuth); err != nil {
		return nil, err
	}
	if token == "" && !oauth && !httpserve.IsLoopback(hostOf(addr)) {
		logger.Warn("serving a non-loopback address without authentication (-insecure-no-auth)", "addr", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &server.HTTP{Listener: ln, Token: token, Origins: f.allowOrigins, Options: f.options()}, nil
}

func hostOf(addr string) string {
	h, _, _ := net.SplitHostPort(addr)
	return h
}

// telemetryDisabled reports whether the standard OTEL_SDK_DISABLED asks for
// no metrics and no traces.
func telemetryDisabled() bool {
	return strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true")
}
