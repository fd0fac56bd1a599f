package httpserve

import (
	"context"
	"net/http"
	"sync"
)

// Health answers an orchestrator's probes: /healthz (the process is alive
// and serving HTTP) and /readyz (it should be sent traffic). Both are
// answered before any authentication or Origin check and without the MCP
// handler, so that a probe costs a map lookup and a few bytes, and a probe
// needs no secret.
type Health struct {
	// Drain, if set, makes /readyz fail once the server is stopping.
	Drain *Drain
	// Ready, if set, says why the server is not ready yet (modules still
	// loading, the plugin source unreadable); nil means ready.
	Ready func() error
}

// Register adds the probes to mux.
func (h Health) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		probeAnswer(w, http.StatusOK, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if h.Drain.Draining() {
			probeAnswer(w, http.StatusServiceUnavailable, "not ready: shutting down")
			return
		}
		if h.Ready != nil {
			if err := h.Ready(); err != nil {
				probeAnswer(w, http.StatusServiceUnavailable, "not ready: "+err.Error())
				return
			}
		}
		probeAnswer(w, http.StatusOK, "ready")
	})
}

func probeAnswer(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg + "\n"))
}

// Drain is the stopping state of a server that Serve shares with its
// handlers. Once the context given to Serve is done, Draining reports true
// (so /readyz fails and new sessions are refused, while the listener still
// answers), and Serve waits, up to its Grace, for the requests counted by
// Track to finish before it closes the listener. A load balancer that
// probes /readyz stops sending traffic meanwhile, and the calls in flight
// are answered.
type Drain struct {
	mu       sync.Mutex
	draining bool
	active   int
	idle     chan struct{} // closed once draining with no request active
}

// NewDrain returns a Drain of a server that is not stopping.
func NewDrain() *Drain { return &Drain{idle: make(chan struct{})} }

// Draining reports whether the server is stopping. A nil Drain never is.
func (d *Drain) Draining() bool {
	if d == nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.draining
}

// Track counts the requests h serves while they run, except event streams
// (see isStream), which last as long as their client listens and which
// Serve ends itself.
func (d *Drain) Track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isStream(r) {
			h.ServeHTTP(w, r)
			return
		}
		d.mu.Lock()
		d.active++
		d.mu.Unlock()
		defer d.done()
		h.ServeHTTP(w, r)
	})
}

func (d *Drain) done() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.active--
	d.closeIfIdle()
}

// Begin starts the drain; Serve calls it when its context is done. A
// server without an HTTP listener of its own (stdio) calls it to fail
// /readyz on another listener.
func (d *Drain) Begin() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.draining = true
	d.closeIfIdle()
}

func (d *Drain) closeIfIdle() {
	if d.draining && d.active == 0 {
		select {
		case <-d.idle:
		default:
			close(d.idle)
		}
	}
}

// wait returns once no tracked request is active, or when ctx is done.
func (d *Drain) wait(ctx context.Context) {
	select {
	case <-d.idle:
	case <-ctx.Done():
	}
}
