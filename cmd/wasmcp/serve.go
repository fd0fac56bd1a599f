package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/internal/httpserve"
	"github.com/wasmcp/wasmcp/internal/mcpadapter"
	"github.com/wasmcp/wasmcp/internal/metrics"
	"github.com/wasmcp/wasmcp/internal/oci"
	"github.com/wasmcp/wasmcp/internal/tracing"
)

var serveCmd = command{
	name:    "serve",
	summary: "--dir DIR | --plugin REF... [--http ADDR] [flags]",
	doc: `Serve the tools of every *.wasm module in DIR over MCP. Clients are answered
at once: modules load in the background, each tool is served as soon as its
module has loaded, and clients are told with notifications/tools/list_changed
(a call of a tool not loaded yet waits for the first load to end, within
-timeout). Modules that fail to load are logged once and skipped. Unless
-no-watch is given, modules added, changed or removed in DIR are loaded or
unloaded while serving, and clients are told the same way. -wait-loaded
answers no client before the first load is over.

-plugin REF (repeatable) and the "sources" list of the -config file name
modules in OCI registries (host[:port]/repository:tag or @sha256:DIGEST, as
"wasmcp push" stores them), served beside DIR's under the plugin name of the
repository's last component. Each is pulled once into the module cache (oci/
under -cache-dir), by digest, verified against it whenever it is read, and
loaded from there. Tags are resolved at start and on SIGHUP: a tag that moved
is a hot reload, told to clients with list_changed, and a source taken out of
the config stops serving. A registry that cannot be
reached leaves the cached copy serving, with a warning naming the reference.
With -lock and -trusted-keys a reference is judged by the module's digest and
by the signatures attached to its manifest ("wasmcp sign REF").

Without -http, one client is served over stdio: JSON-RPC on stdin and stdout,
logs on stderr. The server stops when the client closes stdin.

With -http ADDR, clients connect to http://ADDR/mcp (Streamable HTTP). Both
protocol eras are served: 2025-11-25 and earlier clients (the initialize
handshake) get a session, with list_changed and log lines on its event
stream; 2026-07-28 clients are served statelessly and get list_changed on
their subscriptions/listen stream. A missing host in ADDR is 127.0.0.1. A
non-loopback address needs a bearer token (-token-file or -token-env; never
a flag value, which ps would show) unless -insecure-no-auth says that
something in front of wasmcp authenticates clients. Browser requests from
other origins are refused unless allowed with -allow-origin, and a request to
a loopback address under another Host name (DNS rebinding) gets 403, on
every path of the listener and of -metrics's.
Beside /mcp, /healthz answers 200 while the process serves and /readyz
answers 200 once the first load is over and DIR can be read (503 with the
reason before, and from the moment the server starts stopping), both
without the token and without Origin checks. /metrics serves OpenTelemetry
metrics in the Prometheus text format, behind the same token and Origin
check as /mcp: tools/call durations and outcomes by tool and plugin
(mcp_server_operation_duration_seconds), sessions open, module loads,
reloads, guest memory high-water marks and guests' outbound requests.

-metrics ADDR serves /metrics, /healthz and /readyz on a listener of their
own, without a token: the way to scrape a stdio server, or to keep the
scrape port apart from the MCP port. A missing host in ADDR is 127.0.0.1.

With OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) in
the environment, each tools/call is a span exported by OTLP over HTTP,
configured by the standard OTEL_* variables. A span continues the
client's W3C trace context: traceparent and tracestate in the request's
_meta, or else in its HTTP headers. A call's audit line names its trace
(trace_id) whenever the client sent one, exported or not. The span's
children time the call's admission, the validation of its arguments, the
guest's run and each of the guest's outbound HTTP requests.

OTEL_SDK_DISABLED=true turns metrics and traces off: nothing is measured or
exported, and /metrics answers 404.

-stateless, for running replicas behind a load balancer with no session
affinity: 2025-era clients are then served without sessions too, so that any
replica can answer any request. The cost falls on those clients: they get no
notifications/tools/list_changed (their tool list goes stale after a reload
until they list again), no server-to-client requests (sampling, elicitation,
roots), and log lines and progress only while a call's response is open;
logging/setLevel does not persist. -rate cannot tell them apart: all calls
without a session share one bucket. 2026-07-28 clients lose nothing, but a
subscriptions/listen stream hears only of reloads on the replica it reached,
so every replica must serve the same modules.

Calls are admitted by rate limits (-rate per session, -tool-rate per tool)
and a cap on the calls running in each plugin (-concurrency, with -queue
waiting up to -queue-timeout). A -config policy file may give a plugin its
own cap ("concurrency", in place of -concurrency) and its own rate ("rate",
calls per second to all its tools together, on top of the others). A
refused call is a tool error (isError) that says which limit refused it and
when to retry. Each call leaves one audit
line at level info ("tool call": session, tool, plugin, sha256, duration_ms,
outcome, bytes_in, bytes_out; the arguments too with -log-args), written to
stderr before the call's answer is sent; plugin and sha256 name the module
version that ran. outcome is ok, tool_error, timeout, memory, canceled,
rate_limited, busy, protocol_error or input_required (a 2026-07-28 client is
asked to answer a sampling or elicitation request in a new call).

Over stdio, at most -max-in-flight requests are served at once; the server
reads no further until one is answered. When the client closes its input,
the calls in flight finish (within -timeout) and are answered before the
server exits. Over HTTP, at most -max-sessions sessions are open at once
(more get 503), and a request body must arrive within -body-timeout.

SIGHUP reads the -config, -lock and -trusted-keys files again and loads
every module again under them, without dropping clients: a newly pinned
module is served, one no longer pinned stops serving, new grants and limits
apply. It reads the -state-key-file again too. Files that cannot be read
leave the configuration in force.

A 2026-07-28 client answers a tool's sampling and elicitation requests in a
new call, handing back the requestState of the last answer: sealed
(AES-256-GCM) for that tool and those arguments, good for an hour. Replicas
that may continue each other's rounds share -state-key-file (one base64
32-byte key a line, as "head -c 32 /dev/urandom | base64" makes; the first
seals, all open, so a new key is added second on every replica, then moved
first, and the old one dropped later). Without it each process seals with a
random key of its own: a round continued on another replica, or after a
restart, is a tool error that says so, and the client starts the call again.

The server stops on SIGINT or SIGTERM. Over HTTP, /readyz answers 503 at
once, a new session or a request without one gets 503 (retry elsewhere),
event streams end, and the calls in flight get 10s to finish while the
listener still answers (requests of open sessions, cancellations among
them, still pass); then the listener closes. Calls still running are
cancelled (their guests stopped) and every module is closed. The exit
status is 0 for such a stop.`,
	setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
		var (
			dir        string
			noWatch    bool
			waitLoaded bool
			inFlight   int
			limits     limitFlags
			logs       logFlags
			httpf      httpFlags
			admission  admissionFlags
			pol        policyFlags
			reg        registryFlags
			plugins    []string
			opsAddr    string
			stateKey   stateKeyFlags
		)
		fs.StringVar(&dir, "dir", "", "`directory` of *.wasm modules to serve (required without -plugin or sources)")
		fs.Func("plugin", "serve the module of OCI reference `REF` too (repeatable)", func(ref string) error {
			if _, err := oci.ParseReference(ref, false); err != nil {
				return err
			}
			plugins = append(plugins, ref)
			return nil
		})
		fs.StringVar(&opsAddr, "metrics", "", "serve /metrics, /healthz and /readyz at http://`ADDR`/ as well, without a token\n"+
			"(HOST:PORT, :PORT or PORT; a missing host is 127.0.0.1): for stdio, or a scrape port of its own")
		fs.BoolVar(&noWatch, "no-watch", false, "do not reload modules when DIR changes")
		fs.BoolVar(&waitLoaded, "wait-loaded", false, "answer no client before every module of DIR has loaded (or failed to)")
		fs.IntVar(&inFlight, "max-in-flight", mcpadapter.DefaultMaxInFlight, "requests one stdio client may have served at once; the server reads\n"+
			"no further until one is answered")
		limits.register(fs, true)
		logs.register(fs, "info")
		httpf.register(fs)
		admission.register(fs)
		pol.register(fs)
		reg.register(fs)
		stateKey.register(fs)
		return func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return usageErrorf("unexpected argument %q", args[0])
			}
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			if err := httpf.check(set); err != nil {
				return usageError{err.Error()}
			}
			if inFlight <= 0 {
				return usageErrorf("-max-in-flight must be positive, got %d", inFlight)
			}
			// Each line, the audit's too, is written to stderr with one
			// write as it is logged: none is lost on a crash after the call
			// it records was answered.
			logger, err := logs.logger(stderr)
			if err != nil {
				return usageError{err.Error()}
			}
			cfg, err := limits.config(host.NewConfig().WithDir(dir).WithLogger(logger))
			if err != nil {
				return usageError{err.Error()}
			}
			cfg, operator, err := pol.apply(cfg)
			if err != nil {
				return err
			}
			if dir == "" && len(plugins) == 0 && len(operator.Sources()) == 0 {
				return usageErrorf("-dir is required, unless -plugin or the config's sources name modules")
			}
			if dir != "" {
				if err := checkDir(dir); err != nil {
					return err
				}
			}
			var refs *sources
			if len(plugins) > 0 || operator != nil {
				f, cleanup, err := reg.fetcher(&limits, pol.keys != "")
				if err != nil {
					return err
				}
				defer cleanup()
				abs := ""
				if dir != "" {
					abs, _ = filepath.Abs(dir)
				}
				refs = &sources{fetcher: f, logger: logger, dir: abs, flags: plugins}
			}
			adm, err := admission.admission(httpf.addr != "")
			if err != nil {
				return usageError{err.Error()}
			}
			cfg = cfg.WithAdmission(adm)
			sealer, err := stateKey.load(logger)
			if err != nil {
				return err
			}
			s := &server{
				cfg:        cfg,
				logger:     logger,
				dir:        dir,
				watch:      !noWatch,
				waitLoaded: waitLoaded,
				files:      &pol,
				stateKey:   &stateKey,
				sources:    refs,
				refsLoaded: make(chan struct{}),
				adapter: mcpadapter.Options{
					Version:     version(),
					Logger:      logger.With("component", "mcp"),
					MaxInput:    int(limits.maxInput),
					MaxInFlight: inFlight,
					CallTimeout: limits.timeout,
					Audit:       logger.With("component", "audit"),
					LogArgs:     admission.logArgs,
					StateSealer: sealer,
				},
			}
			s.operator.Store(operator)
			off := telemetryDisabled()
			if (httpf.addr != "" || opsAddr != "" || metrics.OTLPEnabled()) && !off {
				if s.metrics, err = metrics.New(ctx, version()); err != nil {
					return err
				}
				s.cfg = s.cfg.WithMeterProvider(s.metrics.MeterProvider())
				s.adapter.MeterProvider = s.metrics.MeterProvider()
			}
			if tracing.Enabled() && !off {
				if s.traces, err = tracing.New(ctx, version()); err != nil {
					return err
				}
				s.cfg = s.cfg.WithTracerProvider(s.traces.TracerProvider())
				s.adapter.TracerProvider = s.traces.TracerProvider()
			}
			if opsAddr != "" {
				addr, err := httpserve.ListenAddress(opsAddr)
				if err != nil {
					return usageErrorf("-metrics: %v", err)
				}
				if s.opsLn, err = net.Listen("tcp", addr); err != nil {
					return fmt.Errorf("-metrics: %w", err)
				}
			}
			if httpf.addr != "" {
				if s.http, err = newHTTPListener(&httpf, logger); err != nil {
					return err
				}
			}
			return s.run(ctx)
		}
	},
}

// shutdownGrace bounds how long serve lets HTTP requests in flight finish,
// and then how long it waits for the host to close its modules, once it is
// told to stop.
const shutdownGrace = 10 * time.Second

// checkDir fails at once for a -dir that cannot be served, rather than
// after the server has started answering clients.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("-dir: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("-dir %s is not a directory", dir)
	}
	return nil
}

// server is one run of the serve command.
type server struct {
	cfg        host.Config
	logger     *slog.Logger
	dir        string
	watch      bool
	waitLoaded bool
	adapter    mcpadapter.Options
	http       *httpListener // nil: stdio
	// files are the policy, lock and key files, read again on SIGHUP;
	// operator is the policy they last gave (nil without -config).
	files    *policyFlags
	operator atomic.Pointer[policy.Policy]
	// stateKey seals 2026-07-28 clients' requestState; its file too is
	// read again on SIGHUP.
	stateKey *stateKeyFlags
	// sources serves modules by reference; nil without -plugin and
	// -config.
	sources *sources
	// refsLoaded is closed once the references have loaded the first time.
	refsLoaded chan struct{}
	// metrics is the meter provider read at /metrics; nil without -http
	// and -metrics. opsLn is the listener of -metrics.
	metrics *metrics.Exporter
	opsLn   net.Listener
	// traces exports the spans of calls; nil unless the environment names
	// an OTLP endpoint.
	traces *tracing.Exporter
	// drain fails /readyz, and refuses new sessions, once the server stops.
	drain *httpserve.Drain
}

func (s *server) run(ctx context.Context) error {
	if s.http != nil {
		defer s.http.ln.Close()
	}
	if s.opsLn != nil {
		defer s.opsLn.Close()
	}
	if s.metrics != nil {
		defer s.metrics.Shutdown(context.Background())
	}
	if s.traces != nil {
		defer func() {
			// The last calls' spans, within a bound: a collector that is
			// gone must not hold the exit.
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := s.traces.Shutdown(sctx); err != nil {
				s.logger.Warn("spans not exported", "error", err)
			}
		}()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	s.drain = httpserve.NewDrain()
	defer context.AfterFunc(ctx, s.drain.Begin)()

	h, err := host.New(ctx, s.cfg)
	if err != nil {
		return err
	}
	defer func() {
		// A fresh context: the serving one is already cancelled on a signal.
		cctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		if err := h.Close(cctx); err != nil {
			s.logger.Error("close", "error", err)
		}
	}()

	adapter := mcpadapter.New(h, s.adapter)
	defer adapter.Close()

	if s.opsLn != nil {
		// Up until the server is done, so that probes see the drain.
		opsCtx, stopOps := context.WithCancel(context.Background())
		opsDone := make(chan struct{})
		go func() {
			defer close(opsDone)
			log := s.logger.With("component", "metrics")
			if err := httpserve.Serve(opsCtx, s.opsLn, s.opsMux(h), httpserve.Options{Logger: log, Grace: time.Second}); err != nil {
				log.Error("metrics listener stopped", "error", err)
			}
		}()
		defer func() {
			stopOps()
			<-opsDone
		}()
		s.logger.Info("serving metrics and probes", "url", fmt.Sprintf("http://%s/metrics", s.opsLn.Addr()))
	}

	// The modules load in the background, each served as it loads, so that
	// clients are answered while large modules compile.
	loadCtx, stopLoading := context.WithCancel(ctx)
	loading := make(chan struct{})
	go func() {
		defer close(loading)
		s.load(loadCtx, h)
	}()
	defer func() {
		stopLoading()
		<-loading
	}()
	if s.waitLoaded {
		for _, loaded := range []<-chan struct{}{s.dirLoaded(h), s.refsLoaded} {
			select {
			case <-loaded:
			case <-ctx.Done():
				return nil
			}
		}
	}

	// SIGHUP reads the policy, lock and key files again. Registered after
	// the host's Close, so that it stops first.
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

	if s.http != nil {
		return s.serveHTTP(ctx, adapter, h)
	}
	s.logger.Info("serving over stdio", "dir", s.dir, "watch", s.watch)
	if err := adapter.Serve(ctx, os.Stdin, os.Stdout); err != nil {
		return err
	}
	if ctx.Err() != nil {
		s.logger.Info("stopping on signal")
	} else {
		s.logger.Info("client closed the connection, stopping")
	}
	return nil
}

// load loads the directory, then, unless -no-watch, keeps following it
// until ctx is done, and says when the first load is over.
func (s *server) load(ctx context.Context, h *host.Host) {
	start := time.Now()
	if s.sources != nil {
		var wg sync.WaitGroup
		defer wg.Wait()
		wg.Go(func() {
			s.sources.sync(ctx, h, s.sources.refs(s.operator.Load().Sources()))
			if ctx.Err() == nil {
				s.logger.Info("modules of references loaded", "tools", len(h.Tools()), "took", time.Since(start).Round(time.Millisecond))
			}
			close(s.refsLoaded)
		})
	} else {
		close(s.refsLoaded)
	}
	if s.dir == "" {
		return
	}
	go func() {
		select {
		case <-h.Loaded():
			if ctx.Err() == nil {
				s.logger.Info("modules loaded", "dir", s.dir, "tools", len(h.Tools()), "took", time.Since(start).Round(time.Millisecond))
			}
		case <-ctx.Done():
		}
	}()
	var err error
	if s.watch {
		// Watch loads the directory first.
		err = h.Watch(ctx)
	} else {
		err = h.LoadDir(ctx)
	}
	if err != nil && ctx.Err() == nil {
		s.logger.Error("loading modules stopped", "dir", s.dir, "error", err)
	}
}

// reconfigure reads the policy, lock and key files again and applies them
// to the host and to the admission limits, and the state key file to the
// sealer of requestState. Files that cannot be read or parsed leave the
// configuration in force as it was.
func (s *server) reconfigure(ctx context.Context, h *host.Host) {
	s.stateKey.reload(s.logger)
	pol, t, err := s.files.load()
	if err != nil {
		s.logger.Error("configuration not reloaded; the previous one stays in force", "error", err)
		return
	}
	s.operator.Store(pol)
	if err := h.Reconfigure(ctx, pol, t); err != nil {
		if ctx.Err() == nil {
			s.logger.Error("configuration reloaded; modules not reloaded under it", "error", err)
		}
		return
	}
	if s.sources != nil {
		s.sources.sync(ctx, h, s.sources.refs(pol.Sources()))
	}
	s.logger.Info("configuration reloaded", "config", s.files.config, "lock", s.files.lock, "trusted_keys", s.files.keys,
		"tools", len(h.Tools()))
}

// endpoint is the path of the MCP endpoint.
const endpoint = "/mcp"

// serveHTTP serves the adapter at /mcp behind the Origin check and, with a
// token, authentication, and the probes beside it without either, until
// ctx is done; then it drains (httpserve.Drain).
func (s *server) serveHTTP(ctx context.Context, adapter *mcpadapter.Adapter, hst *host.Host) error {
	l := s.http
	log := s.logger.With("component", "http")
	drain := s.drain
	opts := l.opts
	opts.Draining = drain.Draining
	guard := func(h http.Handler) http.Handler {
		if l.token != "" {
			h = httpserve.RequireToken(h, l.token, log)
		}
		return httpserve.CheckOrigin(h, l.origins, log)
	}
	mux := http.NewServeMux()
	mux.Handle(endpoint, drain.Track(guard(adapter.HTTPHandler(opts))))
	// Behind the token: tool and plugin names and traffic are not for
	// whoever reaches the port. -metrics serves them without it.
	mux.Handle("GET /metrics", guard(s.metricsHandler()))
	httpserve.Health{Drain: drain, Ready: func() error { return s.ready(hst) }}.Register(mux)

	url := fmt.Sprintf("http://%s%s", l.ln.Addr(), endpoint)
	s.logger.Info("serving over HTTP", "url", url, "dir", s.dir, "watch", s.watch,
		"stateless", l.opts.Stateless, "auth", l.token != "")
	if err := httpserve.Serve(ctx, l.ln, mux, httpserve.Options{Logger: log, Grace: shutdownGrace, Drain: drain}); err != nil {
		return err
	}
	s.logger.Info("stopping on signal")
	return nil
}
