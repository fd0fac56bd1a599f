package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/devloop"
	"github.com/wasmcp/wasmcp/internal/mcpadapter"
	"github.com/wasmcp/wasmcp/internal/server"
)

var devCmd = command{
	name:    "dev",
	summary: "[--build CMD] [--module FILE] [--http ADDR] [flags] [DIR]",
	doc:     helpText("dev"),
	setup: func(fs *flag.FlagSet, std streams) func(context.Context, []string) error {
		var (
			build, module string
			buildTimeout  time.Duration
			limits        limitFlags
			logs          logFlags
			httpf         httpFlags
			pol           policyFlags
			discovery     discoveryFlag
		)
		fs.StringVar(&build, "build", "", "the project's build `command`, run by sh in DIR (default: make, when DIR has a Makefile)")
		fs.StringVar(&module, "module", "", "the module the build makes, `FILE` (default: DIR/NAME.wasm, NAME being DIR's name)")
		fs.DurationVar(&buildTimeout, "build-timeout", devloop.DefaultTimeout, "longest a build may run; it is then killed with its children")
		limits.register(fs, true)
		logs.register(fs, "info")
		httpf.register(fs)
		pol.register(fs)
		discovery.register(fs)
		return func(ctx context.Context, args []string) error {
			dir := "."
			switch len(args) {
			case 0:
			case 1:
				dir = args[0]
			default:
				return usageErrorf("want at most one DIR, got %d arguments", len(args))
			}
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			if err := httpf.check(set); err != nil {
				return usageError{err.Error()}
			}
			p, err := findProject(dir, build, module)
			if err != nil {
				return err
			}
			logger, err := logs.logger(std.err)
			if err != nil {
				return usageError{err.Error()}
			}
			cfg, err := limits.config(host.NewConfig().WithLogger(logger))
			if err != nil {
				return usageError{err.Error()}
			}
			cfg, operator, err := pol.apply(cfg)
			if err != nil {
				return err
			}
			mode, err := discovery.mode(operator)
			if err != nil {
				return err
			}
			opts := server.Options{
				Logger: logger,
				Host:   cfg,
				Policy: operator,
				Stdio:  server.Stdio{In: os.Stdin, Out: os.Stdout},
				Adapter: mcpadapter.Options{
					Version:     version(),
					Logger:      logger.With("component", "mcp"),
					MaxInput:    int(limits.maxInput),
					CallTimeout: limits.timeout,
					Audit:       logger.With("component", "audit"),
					Discovery:   mode,
				},
				Started: func(ctx context.Context, h *host.Host, a *mcpadapter.Adapter) {
					p.run(ctx, h, a, buildTimeout, std.err, logger)
				},
			}
			if httpf.addr != "" {
				if opts.HTTP, err = newHTTPListener(&httpf, false, logger); err != nil {
					return err
				}
			}
			return server.Run(ctx, opts)
		}
	},
}

// devProject is what wasmcp dev builds and serves.
type devProject struct {
	dir, module string
	build       []string
}

// findProject finds the project in dir: its build command and the module
// it makes.
func findProject(dir, build, module string) (*devProject, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a project directory", dir)
	}
	p := &devProject{dir: abs, module: module}
	if p.module == "" {
		p.module = filepath.Join(abs, filepath.Base(abs)+".wasm")
	} else if !filepath.IsAbs(p.module) {
		p.module = filepath.Join(abs, p.module)
	}
	switch {
	case build != "":
		p.build = []string{"sh", "-c", build}
	case fileExists(filepath.Join(abs, "Makefile")):
		p.build = []string{"make"}
	default:
		return nil, usageErrorf("%s has no Makefile: give the project's build command with -build", dir)
	}
	return p, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// run builds the project on every change and serves each module that
// builds; what fails is said on the terminal and, as an error log line
// naming the file and line, to the connected clients.
func (p *devProject) run(ctx context.Context, h *host.Host, a *mcpadapter.Adapter, timeout time.Duration, term io.Writer, log *slog.Logger) {
	name := filepath.Base(p.module)
	report := func(msg, where string) {
		fmt.Fprintln(term, "wasmcp dev: "+msg)
		text := msg
		if where != "" {
			text = where + ": " + msg
		}
		a.Broadcast(ctx, abi.LogError, "wasmcp dev", text)
	}
	cfg := devloop.Config{Dir: p.dir, Build: p.build, Ignore: []string{name}, Timeout: timeout, Logger: log.With("component", "dev")}
	err := devloop.Run(ctx, cfg, func(ctx context.Context, b devloop.Build) {
		what := "rebuilt"
		if b.First {
			what = "built"
		}
		if b.Err != nil {
			out := strings.TrimSpace(b.Output)
			report(fmt.Sprintf("build failed after %s: %v; the last module that built serves on\n%s", b.Took.Round(time.Millisecond), b.Err, out), b.Location)
			return
		}
		if err := h.LoadFile(ctx, p.module); err != nil {
			report(fmt.Sprintf("%s %s in %s, but it does not load; the last module that loaded serves on: %v",
				what, name, b.Took.Round(time.Millisecond), err), name)
			return
		}
		fmt.Fprintf(term, "wasmcp dev: %s %s in %s, serving %d tools\n", what, name, b.Took.Round(time.Millisecond), len(h.Tools()))
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		report(err.Error(), "")
	}
}
