package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/wasmcp/wasmcp/internal/ocitest"
)

// runRegistry times the start-up of a server whose module comes from a
// loopback registry (Debian's docker-registry), by tag, with the digest it
// resolves to already in the module cache, against the same module from a
// directory: spawn → initialize answered, with -wait-loaded, so that the
// answer waits for the module to be served. The cost it shows is the
// resolve of the tag and the check of the cached file.
func runRegistry(ctx context.Context, e *env) ([]row, error) {
	if _, err := exec.LookPath(ocitest.Binary); err != nil {
		return nil, fmt.Errorf("%s not found: install Debian's docker-registry package (make deps does, as root)", ocitest.Binary)
	}
	name := "text"
	if e.opts.quick {
		name = "examples-c"
	}
	dir, err := e.pluginDir("registry-dir", name)
	if err != nil {
		return nil, err
	}
	storage, err := e.dir("registry-storage")
	if err != nil {
		return nil, err
	}
	reg, err := ocitest.Run(storage, ocitest.Options{})
	if err != nil {
		return nil, err
	}
	defer reg.Stop()
	ref := reg.Ref("bench/"+name, "v1")
	module, err := e.module(name)
	if err != nil {
		return nil, err
	}
	push, err := e.wasmcpCmd("registry-push", "push", module, ref)
	if err != nil {
		return nil, err
	}
	if out, err := push.Output(); err != nil || !strings.HasPrefix(string(out), "sha256:") {
		return nil, fmt.Errorf("wasmcp push %s: %v", ref, err)
	}
	cache, err := e.dir("registry-cache")
	if err != nil {
		return nil, err
	}
	empty, err := e.dir("registry-empty")
	if err != nil {
		return nil, err
	}
	fromDir := []string{"serve", "-dir", dir, "-cache-dir", cache, "-wait-loaded"}
	fromRegistry := []string{"serve", "-dir", empty, "-plugin", ref, "-cache-dir", cache, "-wait-loaded"}
	// Fills the module cache and the compilation cache both runs use.
	if _, err := loadedTime(ctx, e, "registry-prime", fromRegistry); err != nil {
		return nil, err
	}
	ratio := row{name: fmt.Sprintf("start-up, one module (%s) by tag from a loopback registry, digest cached: spawn → initialize with -wait-loaded ÷ the same from a directory", name)}
	added := row{name: "the same from the registry ÷ (from a directory + 1 s): it adds at most 1 s", floor: atMost(1)}
	for i := range e.opts.reps {
		d, err := loadedTime(ctx, e, fmt.Sprintf("registry-dir-%d", i), fromDir)
		if err != nil {
			return []row{ratio, added}, err
		}
		r, err := loadedTime(ctx, e, fmt.Sprintf("registry-ref-%d", i), fromRegistry)
		if err != nil {
			return []row{ratio, added}, err
		}
		e.log.Info("registry", "rep", i, "directory", d, "registry", r)
		ratio.add(float64(r), float64(d), ms(r), ms(d))
		added.add(float64(r), float64(d+time.Second), ms(r), ms(d+time.Second))
	}
	return []row{ratio, added}, nil
}

// loadedTime spawns wasmcp with args and returns the time until its answer
// to initialize, checking that it serves at least one tool.
func loadedTime(ctx context.Context, e *env, name string, args []string) (time.Duration, error) {
	cmd, err := e.wasmcpCmd(name, args...)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	cs, err := connectStdio(ctx, cmd, nil)
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return 0, err
	}
	if len(tools.Tools) == 0 {
		return 0, fmt.Errorf("%s: no tool served (log: logs/%s.log of the work directory)", name, name)
	}
	return d, nil
}
