package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/httpserve"
	"github.com/wasmcp/wasmcp/internal/mcpadapter"
	"github.com/wasmcp/wasmcp/internal/oauth"
)

// HTTP is the Streamable HTTP side of a server. Its listener is bound
// before Run, so that a taken port fails at once.
type HTTP struct {
	Listener net.Listener
	// Token is the bearer token every request of /mcp and /metrics must
	// carry; "" for none.
	Token string
	// Origins are the browser origins allowed besides the server's own
	// (normalized, see httpserve.NormalizeOrigin).
	Origins []string
	// OAuth, if set, requires OAuth access tokens rather than Token.
	OAuth *OAuth
	// Options are the adapter's HTTP options.
	Options mcpadapter.HTTPOptions
}

// OAuth makes the server an OAuth 2.1 resource server.
type OAuth struct {
	// Verifier verifies the access tokens.
	Verifier *oauth.Verifier
	// Resource is the server's canonical URI, the audience of its tokens;
	// its Protected Resource Metadata is served at the well-known path
	// RFC 9728 derives from it, and at the root form of that path.
	Resource string
}

// Endpoint is the path of the MCP endpoint.
const Endpoint = "/mcp"

// serveHTTP serves the adapter at /mcp behind the Origin check and, with a
// token, authentication, and the probes beside it without either, until
// ctx is done; then it drains (httpserve.Drain).
func (s *server) serveHTTP(ctx context.Context, adapter *mcpadapter.Adapter, h *host.Host) error {
	l := s.opts.HTTP
	log := s.log.With("component", "http")
	opts := l.Options
	opts.Draining = s.drain.Draining
	mux := http.NewServeMux()
	auth := func(next http.Handler) http.Handler {
		if l.Token != "" {
			return httpserve.RequireToken(next, l.Token, log)
		}
		return next
	}
	if l.OAuth != nil {
		meta, err := oauth.ResourceMetadataURL(l.OAuth.Resource)
		if err != nil {
			return fmt.Errorf("OAuth resource %q: %w", l.OAuth.Resource, err)
		}
		auth = func(next http.Handler) http.Handler { return httpserve.RequireOAuth(next, l.OAuth.Verifier, meta, log) }
		opts.OAuth = &mcpadapter.OAuth{ResourceMetadataURL: meta}
		prm := l.OAuth.Verifier.MetadataHandler(l.OAuth.Resource, h.Scopes)
		path := metadataPath(meta)
		mux.Handle(path, prm)
		if root := "/.well-known/oauth-protected-resource"; path != root {
			mux.Handle(root, prm)
		}
	}
	guard := func(next http.Handler) http.Handler { return httpserve.CheckOrigin(auth(next), l.Origins, log) }
	mux.Handle(Endpoint, s.drain.Track(guard(adapter.HTTPHandler(opts))))
	// Behind the token: tool and plugin names and traffic are not for
	// whoever reaches the port. Ops serves them without it.
	mux.Handle("GET /metrics", guard(s.metricsHandler()))
	httpserve.Health{Drain: s.drain, Ready: func() error { return s.ready(h) }}.Register(mux)

	url := fmt.Sprintf("http://%s%s", l.Listener.Addr(), Endpoint)
	s.log.Info("serving over HTTP", "url", url, "dir", s.opts.Dir, "watch", !s.opts.NoWatch,
		"stateless", l.Options.Stateless, "auth", l.authMode())
	if err := httpserve.Serve(ctx, l.Listener, mux, httpserve.Options{Logger: log, Grace: ShutdownGrace, Drain: s.drain}); err != nil {
		return err
	}
	s.log.Info("stopping on signal")
	return nil
}

// authMode names how requests are authenticated, for the log.
func (l *HTTP) authMode() string {
	switch {
	case l.OAuth != nil:
		return "oauth"
	case l.Token != "":
		return "token"
	}
	return "none"
}

// metadataPath is the path of a metadata URL made by
// oauth.ResourceMetadataURL, which cannot fail to parse.
func metadataPath(u string) string {
	p, _ := url.Parse(u)
	return p.EscapedPath()
}

// opsMux serves the Ops listener: /metrics and the probes, without
// authentication.
func (s *server) opsMux(h *host.Host) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.metricsHandler())
	httpserve.Health{Drain: s.drain, Ready: func() error { return s.ready(h) }}.Register(mux)
	return mux
}

// metricsHandler serves /metrics, or says why there are none: 404, as for
// any path not served, with the reason in the body.
func (s *server) metricsHandler() http.Handler {
	if s.opts.Metrics == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "metrics are off: OTEL_SDK_DISABLED=true", http.StatusNotFound)
		})
	}
	return s.opts.Metrics.Handler()
}

// dirLoaded is closed once the directory has loaded; at once without one.
func (s *server) dirLoaded(h *host.Host) <-chan struct{} {
	if s.opts.Dir == "" {
		done := make(chan struct{})
		close(done)
		return done
	}
	return h.Loaded()
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
	if s.opts.Dir == "" {
		return nil
	}
	f, err := os.Open(s.opts.Dir)
	if err == nil {
		_, err = f.Readdirnames(1)
		f.Close()
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("plugin directory unreadable: %w", err)
	}
	return nil
}

// absDir is dir made absolute, "" for none.
func absDir(dir string) string {
	if dir == "" {
		return ""
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	return abs
}
