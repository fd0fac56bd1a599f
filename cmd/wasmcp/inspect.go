package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
)

var inspectCmd = command{
	name:    "inspect",
	summary: "[flags] FILE.wasm|REF",
	doc:     helpText("inspect"),
	setup: func(fs *flag.FlagSet, std streams) func(context.Context, []string) error {
		var (
			dir     string
			asJSON  bool
			limits  limitFlags
			logFlag logFlags
			pol     policyFlags
			reg     registryFlags
		)
		fs.StringVar(&dir, "dir", "", "served `directory` to check tool name collisions against")
		fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
		limits.register(fs, false)
		logFlag.register(fs, "warn")
		pol.register(fs)
		reg.register(fs)
		return func(ctx context.Context, args []string) error {
			if len(args) != 1 {
				return usageErrorf("want one FILE.wasm or REF, got %d arguments", len(args))
			}
			logger, err := logFlag.logger(std.err)
			if err != nil {
				return usageError{err.Error()}
			}
			cfg, err := limits.config(host.NewConfig().WithDir(dir).WithLogger(logger))
			if err != nil {
				return usageError{err.Error()}
			}
			if cfg, _, err = pol.apply(cfg); err != nil {
				return err
			}
			file, cleanup, err := moduleFile(ctx, args[0], &reg, &limits, &pol, logger)
			if err != nil {
				return err
			}
			defer cleanup()
			r, err := host.Inspect(ctx, cfg, file)
			if err != nil {
				return err
			}
			if asJSON {
				err = printJSON(std.out, r)
			} else {
				err = printReport(std.out, r, dir)
			}
			if err != nil {
				return err
			}
			if !r.Loadable {
				return exitError{1}
			}
			return nil
		}
	},
}

func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// printReport writes r for a reader: a summary, then one section per tool,
// then the module's imports and exports, then collisions.
func printReport(w io.Writer, r *host.Report, dir string) error {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "file\t%s\n", r.Path)
	fmt.Fprintf(tw, "sha256\t%s\n", r.SHA256)
	fmt.Fprintf(tw, "size\t%s\n", humanBytes(r.Size))
	switch r.Kind {
	case "extism":
		fmt.Fprintf(tw, "kind\tExtism plugin, hyper-mcp plugin protocol v%d\n", r.Protocol)
	case "wasmcp":
		fmt.Fprintf(tw, "kind\twasmcp ABI\n")
	}
	if r.ABIVersion != 0 {
		fmt.Fprintf(tw, "abi version\t%d (this host speaks %d)\n", r.ABIVersion, abi.Version)
	}
	if r.Loadable {
		fmt.Fprintf(tw, "loadable\tyes\n")
	} else {
		fmt.Fprintf(tw, "loadable\tno: %s\n", r.Problem)
	}
	tw.Flush()

	if len(r.Tools) > 0 {
		fmt.Fprintf(&b, "\ntools (%d):\n", len(r.Tools))
		for _, t := range r.Tools {
			printTool(&b, t)
		}
	}
	var offers []string
	for _, res := range r.Resources {
		offers = append(offers, fmt.Sprintf("resource %s (%s%s)", res.URI, res.Name, suffix(res.MimeType)))
	}
	for _, t := range r.ResourceTemplates {
		offers = append(offers, fmt.Sprintf("resource template %s (%s%s)", t.URITemplate, t.Name, suffix(t.MimeType)))
	}
	for _, p := range r.Prompts {
		var args []string
		for _, a := range p.Arguments {
			if a.Required {
				args = append(args, a.Name+"*")
			} else {
				args = append(args, a.Name)
			}
		}
		offers = append(offers, fmt.Sprintf("prompt %s(%s)", p.Name, strings.Join(args, ", ")))
	}
	printList(&b, "resources and prompts (* required)", offers)
	printList(&b, "app view origins not granted (clients do not get them)", r.DroppedOrigins)
	printPermissions(&b, r)
	printList(&b, "stand-ins (grant them in the plugin's policy section)", r.StandIns)
	printList(&b, "imports", r.Imports)
	printList(&b, "exports", r.Exports)
	if dir != "" && r.Loadable {
		if len(r.Refused) == 0 {
			fmt.Fprintf(&b, "\nno tool name collisions with %s\n", dir)
		} else {
			fmt.Fprintf(&b, "\ncollisions with %s:\n", dir)
			for _, f := range r.Refused {
				fmt.Fprintf(&b, "  %s: served from %s, refused from %s\n", f.Tool, f.Owner, f.File)
			}
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// suffix is ", "+s, or "" for an empty s.
func suffix(s string) string {
	if s == "" {
		return ""
	}
	return ", " + s
}

func printTool(b *bytes.Buffer, t abi.Tool) {
	fmt.Fprintf(b, "\n  %s", t.Name)
	if t.Title != "" {
		fmt.Fprintf(b, " (%s)", t.Title)
	}
	b.WriteString("\n")
	if t.Description != "" {
		fmt.Fprintf(b, "    %s\n", strings.ReplaceAll(t.Description, "\n", "\n    "))
	}
	fmt.Fprintf(b, "    input schema:  %s\n", compact(t.InputSchema))
	if len(t.OutputSchema) > 0 {
		fmt.Fprintf(b, "    output schema: %s\n", compact(t.OutputSchema))
	}
	if t.Annotations != nil {
		a, _ := json.Marshal(t.Annotations)
		fmt.Fprintf(b, "    annotations:   %s\n", a)
	}
	for _, icon := range t.Icons {
		fmt.Fprintf(b, "    icon:          %s\n", iconLine(icon))
	}
	if t.Execution != nil {
		e, _ := json.Marshal(t.Execution)
		fmt.Fprintf(b, "    execution:     %s\n", e)
	}
	if len(t.Meta) > 0 {
		m, _ := json.Marshal(t.Meta)
		fmt.Fprintf(b, "    _meta:         %s\n", m)
	}
}

// iconLine is an icon's source, shortened when it is a data URI, and its
// other fields.
func iconLine(i abi.Icon) string {
	src := i.Src
	if len(src) > 64 {
		src = fmt.Sprintf("%s... (%d bytes)", src[:48], len(src))
	}
	parts := []string{src}
	if i.MimeType != "" {
		parts = append(parts, i.MimeType)
	}
	if len(i.Sizes) > 0 {
		parts = append(parts, strings.Join(i.Sizes, ","))
	}
	if i.Theme != "" {
		parts = append(parts, i.Theme)
	}
	return strings.Join(parts, " ")
}

func printList(b *bytes.Buffer, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n", title)
	for _, l := range lines {
		fmt.Fprintf(b, "  %s\n", l)
	}
}

// compact is a schema on one line, or the raw text if it is not JSON.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// humanBytes is n in bytes, and in KiB or MiB when it is that large.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d bytes (%.1f MiB)", n, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d bytes (%.1f KiB)", n, float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
