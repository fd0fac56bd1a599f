package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/wasmcp/wasmcp/host"
)

var callCmd = command{
	name:    "call",
	summary: "[flags] FILE.wasm|REF TOOL [ARGUMENTS]",
	doc:     helpText("call"),
	setup: func(fs *flag.FlagSet, std streams) func(context.Context, []string) error {
		var (
			limits limitFlags
			logs   logFlags
			pol    policyFlags
			reg    registryFlags
		)
		limits.register(fs, false)
		logs.register(fs, "info")
		pol.register(fs)
		reg.register(fs)
		return func(ctx context.Context, args []string) error {
			if len(args) < 2 || len(args) > 3 {
				return usageErrorf("want FILE.wasm TOOL [ARGUMENTS], got %d arguments", len(args))
			}
			path, tool := args[0], args[1]
			arguments, err := readArguments(args[2:])
			if err != nil {
				return usageError{err.Error()}
			}
			logger, err := logs.logger(std.err)
			if err != nil {
				return usageError{err.Error()}
			}
			cfg, err := limits.config(host.NewConfig().WithLogger(logger))
			if err != nil {
				return usageError{err.Error()}
			}
			if cfg, _, err = pol.apply(cfg); err != nil {
				return err
			}
			file, cleanup, err := moduleFile(ctx, path, &reg, &limits, &pol, logger)
			if err != nil {
				return err
			}
			defer cleanup()
			return call(ctx, std.out, cfg, file, tool, arguments)
		}
	},
}

// readArguments returns the arguments document: the one given, stdin for
// "-", or none.
func readArguments(args []string) (json.RawMessage, error) {
	if len(args) == 0 {
		return nil, nil
	}
	doc := []byte(args[0])
	if args[0] == "-" {
		var err error
		if doc, err = io.ReadAll(os.Stdin); err != nil {
			return nil, fmt.Errorf("read arguments from stdin: %w", err)
		}
	}
	if !json.Valid(doc) {
		return nil, fmt.Errorf("arguments are not valid JSON: %.80s", doc)
	}
	return doc, nil
}

func call(ctx context.Context, w io.Writer, cfg host.Config, path, tool string, arguments json.RawMessage) error {
	h, err := host.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer h.Close(context.Background())
	if err := h.LoadFile(ctx, path); err != nil {
		return err
	}
	res, err := h.Call(ctx, host.CallRequest{Tool: tool, Arguments: arguments})
	if errors.Is(err, host.ErrUnknownTool) {
		var names []string
		for _, t := range h.Tools() {
			names = append(names, t.Name)
		}
		return fmt.Errorf("%s has no tool %q (it has: %s)", path, tool, strings.Join(names, ", "))
	}
	if err != nil {
		return fmt.Errorf("call %s: %w", tool, err)
	}
	out, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", out)
	return err
}
