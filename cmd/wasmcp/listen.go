package main

// The server's listeners and what operators probe: the HTTP listener bound
// before the modules load, and the readiness the probes and -metrics serve.

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/httpserve"
	"github.com/wasmcp/wasmcp/internal/mcpadapter"
)

// httpListener is the HTTP side of a server, bound before the modules load
// so that a taken port fails at once.
type httpListener struct {
	ln      net.Listener
	token   string // "" without authentication
	origins []string
	opts    mcpadapter.HTTPOptions
}

// newHTTPListener completes the address, applies the rule against serving
// other machines without authentication, reads the token and binds.
func newHTTPListener(f *httpFlags, logger *slog.Logger) (*httpListener, error) {
	addr, err := httpserve.ListenAddress(f.addr)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	token, err := f.token(logger)
	if err != nil {
		return nil, err
	}
	if err := httpserve.CheckExposure(addr, token != "", f.insecureNoAuth); err != nil {
		return nil, err
	}
	if token == "" && !httpserve.IsLoopback(hostOf(addr)) {
		logger.Warn("serving a non-loopback address without authentication (-insecure-no-auth)", "addr", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &httpListener{ln: ln, token: token, origins: f.allowOrigins, opts: f.options()}, nil
}

func hostOf(addr string) string {
	h, _, _ := net.SplitHostPort(addr)
	return h
}

// dirLoaded is closed once the directory has loaded; at once without one.
func (s *server) dirLoaded(h *host.Host) <-chan struct{} {
	if s.dir == "" {
		done := make(chan struct{})
		close(done)
		return done
	}
	return h.Loaded()
}

// opsMux serves the listener of -metrics: /metrics and the probes, without
// authentication.
func (s *server) opsMux(h *host.Host) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.metricsHandler())
	httpserve.Health{Drain: s.drain, Ready: func() error { return s.ready(h) }}.Register(mux)
	return mux
}

// ready says why the server should not be sent traffic yet, for /readyz:
// the first load of the directory or of the references is not over, or the
// plugin directory cannot be read (a volume gone). A registry that cannot
// be reached is no reason: the cached copies keep serving.
func (s *server) ready(h *host.Host) error {
	for _, loaded := range []<-chan struct{}{s.dirLoaded(h), s.refsLoaded} {
		select {
		case <-loaded:
		default:
			return errors.New("modules still loading")
		}
	}
	if s.dir == "" {
		return nil
	}
	f, err := os.Open(s.dir)
	if err == nil {
		_, err = f.Readdirnames(1)
		f.Close()
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("plugin directory unreadable: %w", err)
	}
	return nil
}

// telemetryDisabled reports whether the standard OTEL_SDK_DISABLED asks for
// no metrics and no traces.
func telemetryDisabled() bool {
	return strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true")
}

// metricsHandler serves /metrics, or says why there are none: 404, as for
// any path not served, with the reason in the body.
func (s *server) metricsHandler() http.Handler {
	if s.metrics == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "metrics are off: OTEL_SDK_DISABLED=true", http.StatusNotFound)
		})
	}
	return s.metrics.Handler()
}
