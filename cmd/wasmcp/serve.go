package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/mcpadapter"
)

var serveCmd = command{
	name:    "serve",
	summary: "--dir DIR [flags]",
	doc: `Serve the tools of every *.wasm module in DIR to one MCP client over stdio:
JSON-RPC on stdin and stdout, logs on stderr. Modules that fail to load are
logged and skipped. Unless -no-watch is given, modules added, changed or
removed in DIR are loaded or unloaded while serving, and the client is told
with notifications/tools/list_changed.

The server stops when the client closes stdin, or on SIGINT or SIGTERM:
calls still running are cancelled (their guests stopped), then every module
is closed. The exit status is 0 for such a stop.`,
	setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
		var (
			dir     string
			noWatch bool
			limits  limitFlags
			logs    logFlags
		)
		fs.StringVar(&dir, "dir", "", "`directory` of *.wasm modules to serve (required)")
		fs.BoolVar(&noWatch, "no-watch", false, "do not reload modules when DIR changes")
		limits.register(fs)
		logs.register(fs, "info")
		return func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return usageErrorf("unexpected argument %q", args[0])
			}
			if dir == "" {
				return usageErrorf("-dir is required")
			}
			logger, err := logs.logger(stderr)
			if err != nil {
				return usageError{err.Error()}
			}
			cfg, err := limits.config(host.NewConfig().WithDir(dir).WithLogger(logger))
			if err != nil {
				return usageError{err.Error()}
			}
			return serve(ctx, cfg, logger, dir, !noWatch, int(limits.maxInput))
		}
	},
}

// shutdownGrace bounds how long serve waits for the host to close its
// modules once it is told to stop. Calls in flight were cancelled with the
// session, so their guests stop at once; this is a safety net, not a wait.
const shutdownGrace = 10 * time.Second

func serve(ctx context.Context, cfg host.Config, logger *slog.Logger, dir string, watch bool, maxInput int) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	h, err := host.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		// A fresh context: the serving one is already cancelled on a signal.
		cctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		if err := h.Close(cctx); err != nil {
			logger.Error("close", "error", err)
		}
	}()
	if err := h.LoadDir(ctx); err != nil {
		return err
	}

	adapter := mcpadapter.New(h, mcpadapter.Options{
		Version:  version(),
		Logger:   logger.With("component", "mcp"),
		MaxInput: maxInput,
	})
	defer adapter.Close()

	if watch {
		watchCtx, stopWatch := context.WithCancel(ctx)
		watchDone := make(chan struct{})
		go func() {
			defer close(watchDone)
			if err := h.Watch(watchCtx); err != nil && !errors.Is(err, context.Canceled) {
				logger.Error("hot reload stopped", "dir", dir, "error", err)
			}
		}()
		defer func() {
			stopWatch()
			<-watchDone
		}()
	}

	logger.Info("serving over stdio", "dir", dir, "tools", len(h.Tools()), "watch", watch)
	if err := adapter.Serve(ctx, os.Stdin, os.Stdout); err != nil {
		return err
	}
	if ctx.Err() != nil {
		logger.Info("stopping on signal")
	} else {
		logger.Info("client closed the connection, stopping")
	}
	return nil
}
