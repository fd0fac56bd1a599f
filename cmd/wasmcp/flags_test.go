package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/host"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]size{
		"256MiB":  256 << 20,
		"4MB":     4_000_000,
		"64KiB":   64 << 10,
		"1GiB":    1 << 30,
		"2G":      2 << 30,
		"512K":    512 << 10,
		"1048576": 1 << 20,
		"100B":    100,
		" 3 MiB ": 3 << 20,
	} {
		t.Run(in, func(t *testing.T) {
			got, err := parseSize(in)
			if err != nil || got != want {
				t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
			}
		})
	}
	for _, in := range []string{"", "MiB", "-1", "1.5MiB", "12XB", "99999999999999999999", "18446744073709551615GiB"} {
		t.Run(in, func(t *testing.T) {
			if got, err := parseSize(in); err == nil {
				t.Errorf("parseSize(%q) = %d, want an error", in, got)
			}
		})
	}
}

func TestSizeString(t *testing.T) {
	for v, want := range map[size]string{256 << 20: "256MiB", 1 << 30: "1GiB", 1536: "1536", 2048: "2KiB", 0: "0", 4_000_000: "4000000"} {
		t.Run(want, func(t *testing.T) {
			if got := v.String(); got != want {
				t.Errorf("size(%d).String() = %q, want %q", uint64(v), got, want)
			}
			if v == 0 {
				return
			}
			// What String prints, Set reads back.
			var back size
			if err := back.Set(want); err != nil || back != v {
				t.Errorf("Set(%q) = %d, %v; want %d", want, back, err, v)
			}
		})
	}
}

func TestParseArgsMixesFlagsAndPositionals(t *testing.T) {
	for i, tc := range []struct {
		args       []string
		positional []string
		timeout    time.Duration
		verbose    bool
	}{
		{[]string{"-timeout", "1s", "a.wasm", "echo", "{}"}, []string{"a.wasm", "echo", "{}"}, time.Second, false},
		{[]string{"a.wasm", "echo", "{}", "--timeout", "2s", "-v"}, []string{"a.wasm", "echo", "{}"}, 2 * time.Second, true},
		{[]string{"a.wasm", "-v", "echo"}, []string{"a.wasm", "echo"}, 0, true},
		{[]string{"a.wasm", "--", "-v", "-timeout"}, []string{"a.wasm", "-v", "-timeout"}, 0, false},
		{nil, nil, 0, false},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			timeout := fs.Duration("timeout", 0, "")
			verbose := fs.Bool("v", false, "")
			got, err := parseArgs(fs, tc.args)
			if err != nil {
				t.Errorf("parseArgs(%q): %v", tc.args, err)
				return
			}
			if !slices.Equal(got, tc.positional) || *timeout != tc.timeout || *verbose != tc.verbose {
				t.Errorf("parseArgs(%q) = %q, timeout %v, v %v; want %q, %v, %v",
					tc.args, got, *timeout, *verbose, tc.positional, tc.timeout, tc.verbose)
			}
		})
	}
}

func TestLimitFlagsRejectBadValues(t *testing.T) {
	for _, args := range [][]string{
		{"-timeout", "0s"},
		{"-memory", "1KiB"},
		{"-max-input", "0"},
		{"-max-output", "5GiB"},
	} {
		t.Run(args[0], func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var l limitFlags
			l.register(fs, true)
			if err := fs.Parse(args); err != nil {
				t.Fatalf("parse %q: %v", args, err)
			}
			if _, err := l.config(host.NewConfig()); err == nil {
				t.Errorf("%q accepted, want an error", args)
			}
		})
	}
}
