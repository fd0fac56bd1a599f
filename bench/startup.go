package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startupTarget is how soon after spawn `initialize` must be answered,
// whatever the state of the compilation cache.
const startupTarget = 200 * time.Millisecond

// primeQuiet is how long the run that fills the warm cache waits without a
// list_changed before it takes every module as loaded: a server that loads
// in the background announces each module that becomes ready.
const primeQuiet = 5 * time.Second

// runStartup times `wasmcp serve` over stdio from spawning the process to
// the answer to `initialize`, serving every bundled plugin and example
// module, with an empty compilation cache and with a full one.
func runStartup(ctx context.Context, e *env) ([]row, error) {
	names, err := e.builtModules()
	if err != nil {
		return nil, err
	}
	if e.opts.quick {
		names = []string{"examples-c"}
	}
	dir, err := e.pluginDir("startup", names...)
	if err != nil {
		return nil, err
	}
	warmCache, err := e.dir("startup-cache-warm")
	if err != nil {
		return nil, err
	}
	if err := prime(ctx, e, dir, warmCache); err != nil {
		return nil, err
	}
	cold := row{name: fmt.Sprintf("start-up, modules: %d (every bundled plugin and example), empty cache: spawn → initialize answered ÷ %s",
		len(names), ms(startupTarget)), floor: atMost(1)}
	ratio := row{name: "the same start-up, empty cache ÷ full cache"}
	for i := range e.opts.reps {
		coldCache, err := e.dir(fmt.Sprintf("startup-cache-cold-%d", i))
		if err != nil {
			return nil, err
		}
		c, err := initializeTime(ctx, e, fmt.Sprintf("startup-cold-%d", i), dir, coldCache)
		if err != nil {
			return []row{cold, ratio}, err
		}
		w, err := initializeTime(ctx, e, fmt.Sprintf("startup-warm-%d", i), dir, warmCache)
		if err != nil {
			return []row{cold, ratio}, err
		}
		e.log.Info("startup", "rep", i, "cold", c, "warm", w)
		cold.add(float64(c), float64(startupTarget), ms(c), ms(startupTarget))
		ratio.add(float64(c), float64(w), ms(c), ms(w))
	}
	return []row{cold, ratio}, nil
}

// builtModules names every module in the plugins and examples directories.
func (e *env) builtModules() ([]string, error) {
	var names []string
	for _, dir := range []string{e.plugins, e.examples} {
		paths, err := filepath.Glob(filepath.Join(dir, "*.wasm"))
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			names = append(names, filepath.Base(p[:len(p)-len(".wasm")]))
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("no modules in %s or %s (run `make plugins`)", e.plugins, e.examples)
	}
	return names, nil
}

// initializeTime spawns `wasmcp serve` on dir with the cache in cache and
// returns the time until its answer to initialize.
func initializeTime(ctx context.Context, e *env, name, dir, cache string) (time.Duration, error) {
	cmd, err := e.wasmcpCmd(name, "serve", "-dir", dir, "-cache-dir", cache)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	cs, err := connectStdio(ctx, cmd, nil)
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	return d, cs.Close()
}

// prime serves dir with the cache in cache until every module has loaded
// (no list_changed for primeQuiet), which fills the cache.
func prime(ctx context.Context, e *env, dir, cache string) error {
	e.log.Info("startup: filling the compilation cache")
	cmd, err := e.wasmcpCmd("startup-prime", "serve", "-dir", dir, "-cache-dir", cache)
	if err != nil {
		return err
	}
	changed := make(chan struct{}, 1)
	cs, err := connectStdio(ctx, cmd, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	if err != nil {
		return err
	}
	defer cs.Close()
	for {
		select {
		case <-changed:
		case <-time.After(primeQuiet):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
