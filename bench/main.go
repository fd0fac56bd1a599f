// Command bench measures wasmcp against baselines run on the same machine in
// the same run, and prints the results as a markdown report for
// BENCHMARKS.md. Every headline figure is a ratio of two measurements taken
// side by side, because absolute times on a shared machine drift by more
// than the differences being measured.
//
// Usage, from the repository root:
//
//	go run ./bench [-exp all|stdio,deadline,reload,scale,http] [-n N] [-profile DIR]
//
// Experiments:
//
//	stdio     tools/call round trip over stdio: wasm echo (C and Go guests)
//	          served by wasmcp, the same echo native on a go-sdk server, and a
//	          raw JSON-RPC echo (the floor); latency, throughput, allocations
//	deadline  guest work unenforced, with wazero's close-on-context-done, and in host/sandbox (fuel)
//	reload    file landed -> notifications/tools/list_changed at a client
//	scale     1,000 modules with 10,000 tools: start-up, memory, listing
//	http      Streamable HTTP at 1, 8 and 64 clients: wasmcp, native go-sdk,
//	          and the TypeScript SDK (when e2e/ts has it installed)
//
// -n sets the repetitions of every experiment chosen (0: each one's default,
// sized to finish in a few minutes on two cores). Progress goes to stderr,
// the report to stdout.
//
// The servers run as child processes: the wasmcp command built from the
// working tree with control.go added (the bench's hook for reading
// allocations and taking profiles), and this executable as the baselines.
// Nothing is downloaded: guests are built with the Go toolchain, the C
// example is taken from `make plugins`' output, and the TypeScript baseline
// uses the SDK installed for the end-to-end tests. Compiled guest code of the
// experiments that do not time compilation is kept across runs in the user
// cache directory (wasmcp-bench), keyed by content as wazero keys it.
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
	exps     []string
	n        int
	profile  string
	modules  int
	perMod   int
	protocol string
	work     string
	cGuest   string
	verbose  bool
	// quick shrinks every workload to a token size: it checks that the
	// harness works (the smoke test), not how fast anything is.
	quick bool
}

// An experiment measures one thing and reports it as a section.
type experiment struct {
	name string
	run  func(context.Context, *env) (*section, error)
}

// experiments in the order they run and are reported.
var experiments = []experiment{
	{"stdio", runStdio},
	{"deadline", runDeadline},
	{"reload", runReload},
	{"scale", runScale},
	{"http", runHTTP},
}

func main() {
	// The bench re-executes itself as the servers it measures.
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
	exp := fs.String("exp", "all", "experiments to run: all, or a comma-separated list of stdio, deadline, reload, scale, http")
	fs.IntVar(&o.n, "n", 0, "repetitions per experiment (0: each experiment's default)")
	fs.StringVar(&o.profile, "profile", "", "write pprof CPU and allocation profiles and execution traces of the stdio servers to this `dir`ectory")
	fs.IntVar(&o.modules, "modules", 1000, "modules generated for the scale experiment")
	fs.IntVar(&o.perMod, "tools-per-module", 10, "tools in each generated module of the scale experiment")
	fs.StringVar(&o.protocol, "protocol", "2025-11-25", "MCP protocol version the go-sdk clients ask for")
	fs.StringVar(&o.work, "work", "", "keep built binaries, modules and server logs in this `dir`ectory (default: a temporary one, removed)")
	fs.StringVar(&o.cGuest, "c-guest", "", "the C example module (default: $WASMCP_EXAMPLES, build/examples or build/plugins examples-c.wasm)")
	fs.BoolVar(&o.verbose, "v", false, "log progress in detail")
	fs.BoolVar(&o.quick, "quick", false, "token workloads: check that the harness works, measure nothing worth reporting")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *exp == "all" {
		for _, e := range experiments {
			o.exps = append(o.exps, e.name)
		}
	} else {
		for _, name := range strings.Split(*exp, ",") {
			if !slices.ContainsFunc(experiments, func(e experiment) bool { return e.name == name }) {
				return o, fmt.Errorf("-exp: unknown experiment %q", name)
			}
			o.exps = append(o.exps, name)
		}
	}
	if o.n < 0 || o.modules < 1 || o.perMod < 1 {
		return o, fmt.Errorf("-n, -modules and -tools-per-module must be positive")
	}
	return o, nil
}

// run prepares the environment, runs the chosen experiments in order,
// writes the report to out and returns its sections. An experiment that
// fails is reported as such and does not stop the others.
func run(ctx context.Context, opts options, out, progress io.Writer) ([]*section, error) {
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
	var sections []*section
	var failed []string
	for _, exp := range experiments {
		if !slices.Contains(opts.exps, exp.name) {
			continue
		}
		log.Info("experiment", "name", exp.name)
		s, err := exp.run(ctx, e)
		if err != nil {
			log.Error("experiment failed", "name", exp.name, "error", err)
			failed = append(failed, exp.name)
			s = &section{Title: exp.name, Notes: []string{"**Failed:** " + err.Error()}}
		}
		s.name = exp.name
		sections = append(sections, s)
		if ctx.Err() != nil {
			return sections, ctx.Err()
		}
	}
	writeReport(out, e, opts, sections)
	if len(failed) > 0 {
		return sections, fmt.Errorf("experiments failed: %s", strings.Join(failed, ", "))
	}
	return sections, nil
}
