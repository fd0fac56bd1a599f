package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/wasmcp/wasmcp/host"
)

// limitFlags are the engine settings shared by serve and call, so that a
// local call runs under exactly the limits a served one would.
type limitFlags struct {
	timeout       time.Duration
	clientTimeout time.Duration
	memory        size
	maxInput      size
	maxOutput     size
	cacheDir      string
	// cacheDirSet tells an explicit empty -cache-dir (no cache) from the
	// host's default.
	cacheDirSet bool
}

// register adds the limit flags to fs with the host's defaults; withClient
// adds -client-timeout, which means something only where a call has a
// client.
func (l *limitFlags) register(fs *flag.FlagSet, withClient bool) {
	l.timeout = host.DefaultTimeout
	l.memory = host.DefaultMemory
	l.maxInput = host.DefaultMaxInput
	l.maxOutput = host.DefaultMaxOutput
	l.clientTimeout = host.DefaultClientTimeout
	fs.DurationVar(&l.timeout, "timeout", l.timeout, "deadline of one tool call (its own running time; waiting for the client does not count)")
	if withClient {
		fs.DurationVar(&l.clientTimeout, "client-timeout", l.clientTimeout, "how long one tool call may wait in total for the client to answer sampling and elicitation requests")
	}
	fs.Var(&l.memory, "memory", "memory limit of one guest instance, a `size` such as 256MiB, 64MB or 1048576")
	fs.Var(&l.maxInput, "max-input", "largest arguments document of a call, a `size`")
	fs.Var(&l.maxOutput, "max-output", "largest result document a guest may return, a `size`")
	fs.Func("cache-dir", "compilation cache `dir`ectory; empty disables the cache\n(default: wasmcp in the user cache directory)",
		func(dir string) error {
			l.cacheDir, l.cacheDirSet = dir, true
			return nil
		})
}

// config applies the flags to cfg.
func (l *limitFlags) config(cfg host.Config) (host.Config, error) {
	if l.timeout <= 0 {
		return cfg, fmt.Errorf("-timeout must be positive, got %s", l.timeout)
	}
	if l.clientTimeout <= 0 {
		return cfg, fmt.Errorf("-client-timeout must be positive, got %s", l.clientTimeout)
	}
	if l.memory < 1<<16 {
		return cfg, fmt.Errorf("-memory must be at least 64KiB (one WebAssembly page), got %s", l.memory)
	}
	for _, s := range []struct {
		name string
		v    size
	}{{"max-input", l.maxInput}, {"max-output", l.maxOutput}} {
		if s.v == 0 || uint64(s.v) > math.MaxUint32 {
			return cfg, fmt.Errorf("-%s must be between 1 byte and 4GiB, got %s", s.name, s.v)
		}
	}
	cfg = cfg.WithTimeout(l.timeout).
		WithClientTimeout(l.clientTimeout).
		WithMemoryLimit(uint64(l.memory)).
		WithMaxInput(int(l.maxInput)).
		WithMaxOutput(int(l.maxOutput))
	if l.cacheDirSet {
		cfg = cfg.WithCacheDir(l.cacheDir)
	}
	return cfg, nil
}

// logFlags choose what reaches stderr.
type logFlags struct {
	level  string
	format string
}

func (l *logFlags) register(fs *flag.FlagSet, level string) {
	fs.StringVar(&l.level, "log-level", level, "least severe log `level` written: debug, info, warn or error")
	fs.StringVar(&l.format, "log-format", "text", "log line `format`: text or json")
}

// logger builds the logger writing to w (stderr: on serve, stdout is the
// protocol).
func (l *logFlags) logger(w io.Writer) (*slog.Logger, error) {
	newHandler, err := l.handler()
	if err != nil {
		return nil, err
	}
	return slog.New(newHandler(w)), nil
}

// handler returns the constructor of the handler that formats log lines
// as the flags say, for the writer it is given.
func (l *logFlags) handler() (func(io.Writer) slog.Handler, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(l.level)); err != nil {
		return nil, fmt.Errorf("-log-level: %q is not one of debug, info, warn, error", l.level)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch l.format {
	case "text":
		return func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, opts) }, nil
	case "json":
		return func(w io.Writer) slog.Handler { return slog.NewJSONHandler(w, opts) }, nil
	}
	return nil, fmt.Errorf("-log-format: %q is not one of text, json", l.format)
}

// size is a byte count flag that reads 256MiB, 4MB, 64KiB, 1GB or a plain
// number of bytes.
type size uint64

var sizeUnits = []struct {
	suffix string
	factor uint64
}{
	// Longest suffixes first, so that "MiB" is not read as "B".
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30},
	{"B", 1},
}

func parseSize(s string) (size, error) {
	num, factor := strings.TrimSpace(s), uint64(1)
	for _, u := range sizeUnits {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, factor = strings.TrimSpace(n), u.factor
			break
		}
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size (examples: 256MiB, 4MB, 65536)", s)
	}
	if n > math.MaxUint64/factor {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return size(n * factor), nil
}

// Set implements flag.Value.
func (s *size) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s = n
	return nil
}

// String implements flag.Value, in the largest binary unit that divides the
// value evenly.
func (s size) String() string {
	v := uint64(s)
	for _, u := range []struct {
		suffix string
		factor uint64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if v != 0 && v%u.factor == 0 {
			return strconv.FormatUint(v/u.factor, 10) + u.suffix
		}
	}
	return strconv.FormatUint(v, 10)
}

// parseArgs parses args with fs, letting flags and positional arguments mix
// ("call x.wasm echo '{}' -timeout 1s" as well as the flags first), which the
// flag package alone stops at the first positional. "--" ends the flags.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
