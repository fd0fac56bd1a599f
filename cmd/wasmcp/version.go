package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/wasmcp/wasmcp/abi"
)

var versionCmd = command{
	name:    "version",
	summary: "",
	doc:     helpText("version"),
	setup: func(_ *flag.FlagSet, std streams) func(context.Context, []string) error {
		return func(_ context.Context, args []string) error {
			if len(args) > 0 {
				return usageErrorf("unexpected argument %q", args[0])
			}
			fmt.Fprintf(std.out, "wasmcp %s\n", version())
			fmt.Fprintf(std.out, "guest ABI %d\n", abi.Version)
			fmt.Fprintf(std.out, "go-sdk %s\n", depVersion("github.com/modelcontextprotocol/go-sdk"))
			fmt.Fprintf(std.out, "wazero %s\n", depVersion("github.com/tetratelabs/wazero"))
			fmt.Fprintf(std.out, "%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		}
	},
}

// version is the module version the binary was built from, as the go
// command stamped it: a tag, a pseudo-version, or "(devel)" for a build
// outside version control.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" {
		return "(devel)"
	}
	return bi.Main.Version
}

// depVersion is the version of the module at path linked into the binary.
func depVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, d := range bi.Deps {
		if d.Path == path {
			if d.Replace != nil {
				return d.Replace.Version + " (replaces " + d.Version + ")"
			}
			return d.Version
		}
	}
	return "unknown"
}
