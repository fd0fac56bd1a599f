// Command wasmcp is an MCP server whose tools are WebAssembly modules.
//
//	wasmcp serve --dir DIR        serve the tools of DIR/*.wasm over stdio or HTTP
//	wasmcp inspect FILE.wasm      tell what a module defines and whether it loads
//	wasmcp call FILE.wasm TOOL J  run one tool locally and print its result
//	wasmcp new --lang L NAME      create a tool project
//	wasmcp version                print versions
//	wasmcp lock DIR               pin the modules of a directory (serve --lock)
//	wasmcp keygen, sign           sign modules (serve --trusted-keys)
//	wasmcp push, pull             store and fetch modules in an OCI registry
//
// The command parses flags into the options of the packages that do the
// work (internal/server for serve); each command's help text is a file of
// help/. Run "wasmcp help" for the details.
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// usage is the overview "wasmcp help" prints.
var usage = helpText("wasmcp") + "\n"

// help holds each command's text for -h, help/NAME.txt.
//
//go:embed help
var help embed.FS

// helpText is the help of the command name.
func helpText(name string) string {
	b, err := help.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic(err) // embedded: a missing file is a mistake of the build
	}
	return strings.TrimSuffix(string(b), "\n")
}

// command is one subcommand: its flags are declared by flags, and run gets
// the positional arguments once they are parsed.
type command struct {
	name    string
	summary string // the usage line after "wasmcp NAME"
	doc     string // what it does, for -h
	// setup declares the command's flags on fs and returns its body, which
	// writes to std.
	setup func(fs *flag.FlagSet, std streams) func(ctx context.Context, args []string) error
}

var commands = []command{serveCmd, devCmd, inspectCmd, callCmd, newCmd, versionCmd, lockCmd, keygenCmd, signCmd, pushCmd, pullCmd}

// usageError is an error in how a command was invoked: the command's usage
// text is printed after it, and the exit status is 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// exitError carries an exit status other than 1 without printing anything
// more, for a command that has already said what went wrong.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// streams are where a command writes: its output, and its errors and log
// lines. Tests capture both.
type streams struct{ out, err io.Writer }

// run executes one command line, writing to out and errOut, and returns
// the exit status.
func run(ctx context.Context, args []string, out, errOut io.Writer) int {
	std := streams{out, errOut}
	if len(args) == 0 {
		fmt.Fprint(std.err, usage)
		return 2
	}
	name, args := args[0], args[1:]
	switch name {
	case "-v", "-version", "--version":
		name = "version"
	case "help", "-h", "-help", "--help":
		if len(args) == 0 {
			fmt.Fprint(std.out, usage)
			return 0
		}
		c, ok := lookup(args[0])
		if !ok {
			fmt.Fprintf(std.err, "wasmcp: unknown command %q\n\n%s", args[0], usage)
			return 2
		}
		fs := c.flagSet(std.out)
		c.setup(fs, std) // declares the flags, so that the usage lists them
		fs.Usage()
		return 0
	}
	c, ok := lookup(name)
	if !ok {
		fmt.Fprintf(std.err, "wasmcp: unknown command %q\n\n%s", name, usage)
		return 2
	}
	return c.run(ctx, args, std)
}

func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// flagSet returns the command's flags with a usage function writing to w.
func (c command) flagSet(w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("wasmcp "+c.name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(w, "Usage: wasmcp %s %s\n\n%s\n", c.name, c.summary, c.doc)
		if hasFlags(fs) {
			fmt.Fprintf(w, "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// run parses args and runs the command, turning its error into an exit
// status.
func (c command) run(ctx context.Context, args []string, std streams) int {
	stderr := std.err
	fs := c.flagSet(stderr)
	body := c.setup(fs, std)
	positional, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		// The flag package has printed the error and the usage.
		return 2
	}
	err = body(ctx, positional)
	var (
		exit exitError
		uerr usageError
	)
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.code
	case errors.As(err, &uerr):
		fmt.Fprintf(stderr, "wasmcp %s: %v\n\n", c.name, err)
		fs.Usage()
		return 2
	}
	fmt.Fprintf(stderr, "wasmcp %s: %v\n", c.name, err)
	return 1
}
