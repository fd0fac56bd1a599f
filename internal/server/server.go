// Package server runs wasmcp's MCP server: the engine (package host) behind
// the MCP adapter, over stdio or Streamable HTTP, serving the modules of a
// directory and of OCI references, with probes and metrics, the
// configuration read again on SIGHUP, and a drain on SIGINT and SIGTERM.
//
// It is configured as data: cmd/wasmcp parses its flags into Options, and
// Run applies them; Options.Reload gives the configuration again when the
// operator asks (SIGHUP), and Run brings the engine and the references
// under it. Nothing of the command's flags is kept.
package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/host/trust"
	"github.com/wasmcp/wasmcp/internal/httpserve"
	"github.com/wasmcp/wasmcp/internal/mcpadapter"
	"github.com/wasmcp/wasmcp/internal/metrics"
	"github.com/wasmcp/wasmcp/internal/oci"
	"github.com/wasmcp/wasmcp/internal/tracing"
)

// Options configure Run.
type Options struct {
	// Logger receives the server's lines; the engine's and the adapter's
	// come through Host and Adapter.
	Logger *slog.Logger
	// Host configures the engine: its directory, limits, admission,
	// policy, trust, meter and tracer providers.
	Host host.Config
	// Adapter configures the MCP server over the engine.
	Adapter mcpadapter.Options
	// Dir is the plugin directory Host names ("" for none), watched unless
	// NoWatch.
	Dir     string
	NoWatch bool
	// WaitLoaded answers no client before every module of Dir and of the
	// references has loaded (or failed to).
	WaitLoaded bool
	// References are modules named by reference (-plugin), served beside
	// the Policy's sources, by Fetcher. Fetcher is nil when neither names
	// any.
	References []string
	Fetcher    *oci.Fetcher
	// Policy is the operator's policy in force at start, the one Host
	// holds; its sources are served.
	Policy *policy.Policy
	// Reload reads the configuration again, on SIGHUP: an error leaves the
	// one in force as it was. Nil ignores SIGHUP's reload.
	Reload func() (Reloaded, error)
	// HTTP serves Streamable HTTP; nil serves one client over Stdio.
	HTTP  *HTTP
	Stdio Stdio
	// Ops, if set, serves /metrics and the probes without a token.
	Ops net.Listener
	// Metrics is read at /metrics, and Traces exports the spans of calls;
	// each is nil when off. Run shuts both down when it returns.
	Metrics *metrics.Exporter
	Traces  *tracing.Exporter
	// Started, if set, runs once the engine and the adapter are made, in a
	// goroutine of its own, until ctx is done (wasmcp dev loads what it
	// builds with them); Run waits for it before it closes them.
	Started func(ctx context.Context, h *host.Host, a *mcpadapter.Adapter)
}

// Reloaded is the configuration Options.Reload gives: the policy and the
// trust policy now in force (nil for none), and what the log line of the
// reload says of where they came from (slog key-value pairs).
type Reloaded struct {
	Policy *policy.Policy
	Trust  *trust.Verifier
	From   []any
}

// Stdio is the stdio transport's connection to its one client.
type Stdio struct {
	In  io.ReadCloser
	Out io.WriteCloser
}

// ShutdownGrace bounds how long Run lets HTTP requests in flight finish,
// and then how long it waits for the engine to close its modules, once it
// is told to stop.
const ShutdownGrace = 10 * time.Second

// server is one Run.
type server struct {
	opts Options
	log  *slog.Logger
	// policy is the operator's policy in force, for its sources; SIGHUP
	// replaces it.
	mu     sync.Mutex
	policy *policy.Policy
	// sources serves the modules of references; nil without any.
	sources *sources
	// refsLoaded is closed once the references have loaded the first time.
	refsLoaded chan struct{}
	// drain fails /readyz, and refuses new sessions, once the server stops.
	drain *httpserve.Drain
}

// Run serves until ctx is done, SIGINT or SIGTERM arrives, or, over stdio,
// the client closes its input; then it drains and closes everything it was
// given. The error is for what could not start or stopped the server.
func Run(ctx context.Context, opts Options) error {
	s := &server{opts: opts, log: opts.Logger, policy: opts.Policy, refsLoaded: make(chan struct{}), drain: httpserve.NewDrain()}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if opts.Fetcher != nil {
		s.sources = &sources{fetcher: opts.Fetcher, logger: s.log, dir: absDir(opts.Dir), flags: opts.References}
	}
	defer s.closeExporters()
	return s.run(ctx)
}

// closeExporters closes the listeners and exporters Options gave.
func (s *server) closeExporters() {
	if s.opts.HTTP != nil {
		s.opts.HTTP.Listener.Close()
	}
	if s.opts.Ops != nil {
		s.opts.Ops.Close()
	}
	if s.opts.Metrics != nil {
		s.opts.Metrics.Shutdown(context.Background())
	}
	if s.opts.Traces != nil {
		// The last calls' spans, within a bound: a collector that is gone
		// must not hold the exit.
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.opts.Traces.Shutdown(sctx); err != nil {
			s.log.Warn("spans not exported", "error", err)
		}
	}
}

func (s *server) run(ctx context.Context) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer context.AfterFunc(ctx, s.drain.Begin)()

	h, err := host.New(ctx, s.opts.Host)
	if err != nil {
		return err
	}
	defer func() {
		// A fresh context: the serving one is already cancelled on a signal.
		cctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
		defer cancel()
		if err := h.Close(cctx); err != nil {
			s.log.Error("close", "error", err)
		}
	}()

	adapter := mcpadapter.New(h, s.opts.Adapter)
	defer adapter.Close()

	if s.opts.Ops != nil {
		// Up until the server is done, so that probes see the drain.
		opsCtx, stopOps := context.WithCancel(context.Background())
		opsDone := make(chan struct{})
		go func() {
			defer close(opsDone)
			log := s.log.With("component", "metrics")
			if err := httpserve.Serve(opsCtx, s.opts.Ops, s.opsMux(h), httpserve.Options{Logger: log, Grace: time.Second}); err != nil {
				log.Error("metrics listener stopped", "error", err)
			}
		}()
		defer func() {
			stopOps()
			<-opsDone
		}()
		s.log.Info("serving metrics and probes", "url", fmt.Sprintf("http://%s/metrics", s.opts.Ops.Addr()))
	}

	// The modules load in the background, each served as it loads, so that
	// clients are answered while large modules compile.
	loadCtx, stopLoading := context.WithCancel(ctx)
	loading := make(chan struct{})
	go func() {
		defer close(loading)
		if s.opts.Started != nil {
			var wg sync.WaitGroup
			defer wg.Wait()
			wg.Go(func() { s.opts.Started(loadCtx, h, adapter) })
		}
		s.load(loadCtx, h)
	}()
	defer func() {
		stopLoading()
		<-loading
	}()
	if s.opts.WaitLoaded {
		for _, loaded := range []<-chan struct{}{s.dirLoaded(h), s.refsLoaded} {
			select {
			case <-loaded:
			case <-ctx.Done():
				return nil
			}
		}
	}

	// SIGHUP reads the configuration again. Registered after the host's
	// Close, so that it stops first.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	hupCtx, stopHup := context.WithCancel(ctx)
	hupDone := make(chan struct{})
	go func() {
		defer close(hupDone)
		for {
			select {
			case <-hupCtx.Done():
				return
			case <-hup:
				s.reconfigure(hupCtx, h)
			}
		}
	}()
	defer func() {
		signal.Stop(hup)
		stopHup()
		<-hupDone
	}()

	if s.opts.HTTP != nil {
		return s.serveHTTP(ctx, adapter, h)
	}
	s.log.Info("serving over stdio", "dir", s.opts.Dir, "watch", !s.opts.NoWatch)
	if err := adapter.Serve(ctx, s.opts.Stdio.In, s.opts.Stdio.Out); err != nil {
		return err
	}
	if ctx.Err() != nil {
		s.log.Info("stopping on signal")
	} else {
		s.log.Info("client closed the connection, stopping")
	}
	return nil
}

// load loads the directory, then, unless NoWatch, keeps following it until
// ctx is done, and says when the first load is over. The references load
// beside it.
func (s *server) load(ctx context.Context, h *host.Host) {
	start := time.Now()
	if s.sources != nil {
		var wg sync.WaitGroup
		defer wg.Wait()
		wg.Go(func() {
			s.sources.sync(ctx, h, s.sources.refs(s.currentPolicy().Sources()))
			if ctx.Err() == nil {
				s.log.Info("modules of references loaded", "tools", len(h.Tools()), "took", time.Since(start).Round(time.Millisecond))
			}
			close(s.refsLoaded)
		})
	} else {
		close(s.refsLoaded)
	}
	if s.opts.Dir == "" {
		return
	}
	go func() {
		select {
		case <-h.Loaded():
			if ctx.Err() == nil {
				s.log.Info("modules loaded", "dir", s.opts.Dir, "tools", len(h.Tools()), "took", time.Since(start).Round(time.Millisecond))
			}
		case <-ctx.Done():
		}
	}()
	var err error
	if s.opts.NoWatch {
		err = h.LoadDir(ctx)
	} else {
		// Watch loads the directory first.
		err = h.Watch(ctx)
	}
	if err != nil && ctx.Err() == nil {
		s.log.Error("loading modules stopped", "dir", s.opts.Dir, "error", err)
	}
}

// reconfigure reads the configuration again and brings the host and the
// references under it. A configuration that cannot be read leaves the one
// in force as it was.
func (s *server) reconfigure(ctx context.Context, h *host.Host) {
	if s.opts.Reload == nil {
		return
	}
	c, err := s.opts.Reload()
	if err != nil {
		s.log.Error("configuration not reloaded; the previous one stays in force", "error", err)
		return
	}
	s.mu.Lock()
	s.policy = c.Policy
	s.mu.Unlock()
	if err := h.Reconfigure(ctx, c.Policy, c.Trust); err != nil {
		if ctx.Err() == nil {
			s.log.Error("configuration reloaded; modules not reloaded under it", "error", err)
		}
		return
	}
	if s.sources != nil {
		s.sources.sync(ctx, h, s.sources.refs(c.Policy.Sources()))
	}
	s.log.Info("configuration reloaded", append(c.From, "tools", len(h.Tools()))...)
}

func (s *server) currentPolicy() *policy.Policy {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.policy
}
