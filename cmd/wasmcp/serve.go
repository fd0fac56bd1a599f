package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/httpserve"
	"github.com/wasmcp/wasmcp/internal/mcpadapter"
	"github.com/wasmcp/wasmcp/internal/metrics"
	"github.com/wasmcp/wasmcp/internal/oci"
	"github.com/wasmcp/wasmcp/internal/server"
	"github.com/wasmcp/wasmcp/internal/tracing"
)

var serveCmd = command{
	name:    "serve",
	summary: "--dir DIR | --plugin REF... [--http ADDR] [flags]",
	doc:     helpText("serve"),
	setup: func(fs *flag.FlagSet, std streams) func(context.Context, []string) error {
		var (
			dir        string
			noWatch    bool
			waitLoaded bool
			inFlight   int
			limits     limitFlags
			logs       logFlags
			httpf      httpFlags
			oauthf     oauthFlags
			admission  admissionFlags
			pol        policyFlags
			reg        registryFlags
			plugins    []string
			opsAddr    string
			stateKey   stateKeyFlags
			discovery  discoveryFlag
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
		discovery.register(fs)
		fs.BoolVar(&noWatch, "no-watch", false, "do not reload modules when DIR changes")
		fs.BoolVar(&waitLoaded, "wait-loaded", false, "answer no client before every module of DIR has loaded (or failed to)")
		fs.IntVar(&inFlight, "max-in-flight", mcpadapter.DefaultMaxInFlight, "requests one stdio client may have served at once; the server reads\n"+
			"no further until one is answered")
		limits.register(fs, true)
		logs.register(fs, "info")
		httpf.register(fs)
		oauthf.register(fs)
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
			logger, err := logs.logger(std.err)
			if err != nil {
				return usageError{err.Error()}
			}
			cfg, err := limits.config(host.NewConfig().WithDir(dir).WithLogger(logger))
			if err != nil {
				return usageError{err.Error()}
			}
			adm, err := admission.admission(httpf.addr != "")
			if err != nil {
				return usageError{err.Error()}
			}
			// A server owns its process: long calls leave a processor to
			// the transport and short calls, at a lower priority, and the
			// memory of large calls goes back to the system after them.
			cfg = cfg.WithAdmission(adm).WithLongCalls(host.LongCalls{Reserve: 1, Nice: 10}).WithMemoryReturn(16 << 20)
			cfg, operator, err := pol.apply(cfg)
			if err != nil {
				return err
			}
			if err := oauthf.check(set, &httpf, operator.Issuers()); err != nil {
				return usageError{err.Error()}
			}
			mode, err := discovery.mode(operator)
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
			opts := server.Options{
				Logger:     logger,
				Dir:        dir,
				NoWatch:    noWatch,
				WaitLoaded: waitLoaded,
				References: plugins,
				Policy:     operator,
				Stdio:      server.Stdio{In: os.Stdin, Out: os.Stdout},
				Adapter: mcpadapter.Options{
					Version:     version(),
					Logger:      logger.With("component", "mcp"),
					MaxInput:    int(limits.maxInput),
					MaxInFlight: inFlight,
					CallTimeout: limits.timeout,
					Audit:       logger.With("component", "audit"),
					LogArgs:     admission.logArgs,
					Discovery:   mode,
				},
			}
			if len(plugins) > 0 || operator != nil {
				f, cleanup, err := reg.fetcher(&limits, &pol)
				if err != nil {
					return err
				}
				defer cleanup()
				opts.Fetcher = f
			}
			if opts.Adapter.StateSealer, err = stateKey.load(logger); err != nil {
				return err
			}
			opts.Reload = func() (server.Reloaded, error) {
				stateKey.reload(logger)
				p, t, err := pol.load()
				return server.Reloaded{Policy: p, Trust: t,
					From: []any{"config", pol.config, "lock", pol.lock, "trusted_keys", pol.keys, "sigstore", pol.sigstore}}, err
			}
			if err := telemetry(ctx, &opts, &cfg, httpf.addr != "" || opsAddr != ""); err != nil {
				return err
			}
			opts.Host = cfg
			if opsAddr != "" {
				addr, err := httpserve.ListenAddress(opsAddr)
				if err != nil {
					return usageErrorf("-metrics: %v", err)
				}
				if opts.Ops, err = net.Listen("tcp", addr); err != nil {
					return fmt.Errorf("-metrics: %w", err)
				}
			}
			if httpf.addr != "" {
				if opts.HTTP, err = newHTTPListener(&httpf, oauthf.enabled(operator.Issuers()), logger); err != nil {
					return err
				}
				if oauthf.enabled(operator.Issuers()) {
					if opts.HTTP.OAuth, err = oauthf.server(ctx, opts.HTTP.Listener, operator.Issuers(), logger.With("component", "oauth")); err != nil {
						opts.HTTP.Listener.Close()
						return err
					}
				}
			}
			return server.Run(ctx, opts)
		}
	},
}

// telemetry sets up metrics (when something reads them: -http, -metrics or
// an OTLP endpoint) and traces (when the environment names an endpoint) for
// both the engine and the adapter, unless OTEL_SDK_DISABLED says none.
func telemetry(ctx context.Context, opts *server.Options, cfg *host.Config, scraped bool) error {
	if telemetryDisabled() {
		return nil
	}
	var err error
	if scraped || metrics.OTLPEnabled() {
		if opts.Metrics, err = metrics.New(ctx, version()); err != nil {
			return err
		}
		*cfg = cfg.WithMeterProvider(opts.Metrics.MeterProvider())
		opts.Adapter.MeterProvider = opts.Metrics.MeterProvider()
	}
	if tracing.Enabled() {
		if opts.Traces, err = tracing.New(ctx, version()); err != nil {
			return err
		}
		*cfg = cfg.WithTracerProvider(opts.Traces.TracerProvider())
		opts.Adapter.TracerProvider = opts.Traces.TracerProvider()
	}
	return nil
}

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
