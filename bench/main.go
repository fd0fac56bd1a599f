// Command bench measures the wasmcp command against baselines run on the same
// machine in the same run, and prints one markdown table for BENCHMARKS.md.
// Every headline is a ratio of two measurements taken side by side (or of one
// measurement and a fixed target), repeated, because absolute times on a
// shared machine drift by more than the differences being measured.
//
// Usage, from bench/ (its own Go module):
//
//	go run . [-exp all|stdio,http,telemetry,oauth,deadline,reload,scale,views,startup,noisy,native,large,lang,egress,registry,images,extism,replicas,offers] [-reps N] [-quick]
//
// wasmcp is a black box here: the bench builds cmd/wasmcp once (or runs
// $WASMCP_BIN) and talks to it as a client would. In process it uses only
// the public packages host and abi. The guest modules are those `make
// plugins` builds (build/plugins and build/examples, or $WASMCP_PLUGINS and
// $WASMCP_EXAMPLES). The baselines are this program itself, re-executed as a
// go-sdk server with the same tool, plain wazero for guest code, and the
// Extism Go SDK's own host for Extism plugins.
//
// One file per experiment; each returns its rows. Progress goes to stderr,
// the table to stdout.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
)

// options are the command's flags.
type options struct {
	exps    []string
	reps    int
	modules int
	work    string
	verbose bool
	// quick shrinks every workload to a token size: it checks that the
	// harness works (the smoke test), not how fast anything is.
	quick bool
}

// An experiment measures one thing and reports it as rows of the table.
type experiment struct {
	name string
	run  func(context.Context, *env) ([]row, error)
}

// experiments in the order they run and are reported.
var experiments = []experiment{
	{"stdio", runStdio},
	{"http", runHTTP},
	{"telemetry", runTelemetry},
	{"oauth", runOAuth},
	{"deadline", runDeadline},
	{"reload", runReload},
	{"scale", runScale},
	{"views", runViews},
	{"startup", runStartup},
	{"noisy", runNoisy},
	{"native", runNative},
	{"large", runLarge},
	{"lang", runLang},
	{"egress", runEgress},
	{"registry", runRegistry},
	{"images", runImages},
	{"extism", runExtism},
	{"replicas", runReplicas},
	{"offers", runOffers},
}

func main() {
	// The bench re-executes itself as the native baseline servers.
	if role := os.Getenv(roleEnv); role != "" {
		if err := serveRole(role); err != nil {
			fmt.Fprintf(os.Stderr, "bench %s server: %v\n", role, err)
			os.Exit(1)
		}
		return
	}
	opts, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if _, err := run(ctx, opts, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	names := make([]string, len(experiments))
	for i, e := range experiments {
		names[i] = e.name
	}
	exp := fs.String("exp", "all", "experiments to run: all, or a comma-separated list of "+strings.Join(names, ", "))
	fs.IntVar(&o.reps, "reps", 3, "repetitions of every ratio")
	fs.IntVar(&o.modules, "modules", 1000, "modules generated for the scale experiment, 10 tools each")
	fs.StringVar(&o.work, "work", "", "keep binaries, modules and server logs in this `dir`ectory (default: a temporary one, removed)")
	fs.BoolVar(&o.verbose, "v", false, "log progress in detail")
	fs.BoolVar(&o.quick, "quick", false, "token workloads: check that the harness works, measure nothing worth reporting")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *exp == "all" {
		o.exps = names
	} else {
		for _, name := range strings.Split(*exp, ",") {
			if !slices.Contains(names, name) {
				return o, fmt.Errorf("-exp: unknown experiment %q", name)
			}
			o.exps = append(o.exps, name)
		}
	}
	if o.reps < 1 || o.modules < 1 {
		return o, fmt.Errorf("-reps and -modules must be positive")
	}
	return o, nil
}

// run prepares the environment, runs the chosen experiments in order, writes
// the table to out and returns its rows. An experiment that fails is reported
// as such and does not stop the others.
func run(ctx context.Context, opts options, out, progress io.Writer) ([]row, error) {
	level := slog.LevelInfo
	if opts.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(progress, &slog.HandlerOptions{Level: level}))
	e, err := newEnv(ctx, opts, log)
	if err != nil {
		return nil, err
	}
	defer e.close()
	var rows []row
	var failed []string
	for _, exp := range experiments {
		if !slices.Contains(opts.exps, exp.name) {
			continue
		}
		log.Info("experiment", "name", exp.name)
		rs, err := exp.run(ctx, e)
		if err != nil {
			log.Error("experiment failed", "name", exp.name, "error", err)
			failed = append(failed, fmt.Sprintf("%s: %v", exp.name, err))
		}
		for i := range rs {
			rs[i].exp = exp.name
		}
		rows = append(rows, rs...)
		if ctx.Err() != nil {
			return rows, ctx.Err()
		}
	}
	writeTable(out, opts, rows)
	if len(failed) > 0 {
		return rows, fmt.Errorf("experiments failed:\n%s", strings.Join(failed, "\n"))
	}
	return rows, nil
}
