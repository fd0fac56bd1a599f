package httpserve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Options configure Serve.
type Options struct {
	// Logger receives the server's own messages; nil discards them.
	Logger *slog.Logger
	// Grace bounds how long requests in flight may finish after the
	// context given to Serve is done.
	Grace time.Duration
	// Drain, if set, keeps the listener answering while the requests it
	// tracks finish (see Drain); otherwise the listener closes at once.
	Drain *Drain
}

// Serve serves h on ln until ctx is done, then shuts down gracefully: it
// lets the requests in flight (tool calls) finish for up to Grace, ends the
// long-lived event streams (see isStream), and then closes whatever is
// left. With a Drain the listener keeps answering (probes, and refusals of
// new sessions) and the streams stay open until the tracked requests are
// over; without one it stops accepting connections and ends the streams at
// once. It returns nil after such a shutdown, or the error that stopped the
// server.
//
// On a loopback listener every request must name a loopback Host (see
// checkHost), whatever its path.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, opts Options) error {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	streams, endStreams := context.WithCancel(context.Background())
	defer endStreams()
	srv := &http.Server{
		Handler: checkHost(cutStreams(h, streams), log),
		// Headers must come promptly. Bodies are bounded in size by the
		// handler, not in time: a response may be an event stream that
		// lasts as long as the client listens.
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve HTTP on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}

	if opts.Drain != nil {
		opts.Drain.Begin()
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), opts.Grace)
	defer cancel()
	if opts.Drain != nil {
		// The event streams stay open until the calls are answered: a
		// 2025-era client whose stream ends reconnects it, the balancer
		// sends that to a replica that does not know the session, and the
		// client ends the session with its calls still running here.
		opts.Drain.wait(shutdownCtx)
	}
	endStreams()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		log.Warn("requests still running after the grace period; closing their connections", "grace", opts.Grace)
		srv.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve HTTP on %s: %w", ln.Addr(), err)
	}
	return nil
}

// isStream reports whether r opens a stream that stays open for as long as
// the client listens, rather than until a response is complete: the
// standalone event stream of the 2025 protocols (GET) and the
// subscriptions/listen request of the 2026-07-28 protocol (named by its
// Mcp-Method header, which the SDK checks against the body). A graceful
// shutdown does not wait for these.
func isStream(r *http.Request) bool {
	return r.Method == http.MethodGet || r.Header.Get("Mcp-Method") == "subscriptions/listen"
}

// cutStreams ends the requests that are streams when ctx is done.
func cutStreams(h http.Handler, ctx context.Context) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isStream(r) {
			rctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			stop := context.AfterFunc(ctx, cancel)
			defer stop()
			r = r.WithContext(rctx)
		}
		h.ServeHTTP(w, r)
	})
}
