package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/wasmcp/wasmcp/internal/ocitest"
	"github.com/wasmcp/wasmcp/internal/sigstore/sigstoretest"
)

// signatureBudget is what verifying a module's signature may add to a
// start-up that pulls it.
const signatureBudget = 50 * time.Millisecond

// runImages times hyper-mcp's rstime plugin served by reference as
// hyper-mcp publishes it — a Docker image of /plugin.wasm in a loopback
// registry — against the same module from a directory, and what verifying
// its cosign signature (a Sigstore bundle of a virtual Sigstore) adds to a
// start-up that pulls the image and to one that has it cached. Each time
// is spawn → tools/list answered, with -wait-loaded.
func runImages(ctx context.Context, e *env) ([]row, error) {
	if _, err := exec.LookPath(ocitest.Binary); err != nil {
		return nil, fmt.Errorf("%s not found: install Debian's docker-registry package (make deps does, as root)", ocitest.Binary)
	}
	wasm, err := os.ReadFile(filepath.Join(e.root, "host", "testdata", "thirdparty", "rstime.wasm"))
	if err != nil {
		return nil, err
	}
	storage, err := e.dir("images-storage")
	if err != nil {
		return nil, err
	}
	reg, err := ocitest.Run(storage, ocitest.Options{})
	if err != nil {
		return nil, err
	}
	defer reg.Stop()
	ref := reg.Ref("tuananh/time-plugin", "nightly")
	config, layer := ocitest.DockerImage(wasm)
	m, err := ocitest.PushImage(ctx, ref, ocitest.DockerManifest, config, layer)
	if err != nil {
		return nil, err
	}
	s := sigstoretest.New(failer{})
	if err := ocitest.AttachBundle(ctx, ref, m.Desc, s.Bundle(failer{}, sigstoretest.Subject, sigstoretest.Issuer, m.Desc.Digest)); err != nil {
		return nil, err
	}
	files, err := e.dir("images-files")
	if err != nil {
		return nil, err
	}
	policy := filepath.Join(files, "sigstore.json")
	for name, data := range map[string][]byte{
		"trusted_root.json": s.TrustedRoot(failer{}),
		"sigstore.json": []byte(`{"identities": [{"issuer": "` + sigstoretest.Issuer + `", "subject": "` + sigstoretest.Subject +
			`"}], "trustedRoot": "trusted_root.json"}`),
		"time-plugin.wasm": wasm,
	} {
		if err := os.WriteFile(filepath.Join(files, name), data, 0o644); err != nil {
			return nil, err
		}
	}
	dir, err := e.dir("images-dir")
	if err != nil {
		return nil, err
	}
	if err := copyFile(filepath.Join(files, "time-plugin.wasm"), filepath.Join(dir, "time-plugin.wasm")); err != nil {
		return nil, err
	}
	empty, err := e.dir("images-empty")
	if err != nil {
		return nil, err
	}
	cache, err := e.dir("images-cache")
	if err != nil {
		return nil, err
	}
	serve := func(extra ...string) []string {
		return append([]string{"serve", "-cache-dir", cache, "-wait-loaded"}, extra...)
	}
	fromDir := serve("-dir", dir)
	byRef := serve("-dir", empty, "-plugin", ref)
	signed := serve("-dir", empty, "-plugin", ref, "-sigstore", policy)
	// Fills the compilation cache, the module cache and the verdict.
	if _, err := listedTime(ctx, e, "images-prime", signed, nil); err != nil {
		return nil, err
	}
	image := row{name: "hyper-mcp's rstime plugin as its image (Docker, /plugin.wasm) by tag from a loopback registry, digest cached: " +
		"spawn → tools listed ÷ the same module from a directory", floor: atMost(1.2)}
	cold := row{name: fmt.Sprintf("the image signed with cosign (a Sigstore bundle), pulled with an empty module cache: "+
		"start-up with -sigstore ÷ (without + %s): verifying adds at most %s", ms(signatureBudget), ms(signatureBudget)), floor: atMost(1)}
	warm := row{name: "the same, digest and verdict cached: start-up with -sigstore ÷ without", floor: atMost(1.05)}
	oci := filepath.Join(cache, "oci")
	dropModules := func() error { return os.RemoveAll(oci) }
	runs := 3
	if e.opts.quick {
		runs = 1
	}
	for i := range e.opts.reps {
		// Each time is the median of the runs, taken in turn.
		var t [5][]time.Duration
		for j := range runs {
			for k, run := range []struct {
				args   []string
				before func() error
			}{{fromDir, nil}, {byRef, nil}, {signed, nil}, {byRef, dropModules}, {signed, dropModules}} {
				d, err := listedTime(ctx, e, fmt.Sprintf("images-%d-%d-%d", i, j, k), run.args, run.before)
				if err != nil {
					return []row{image, cold, warm}, err
				}
				t[k] = append(t[k], d)
			}
		}
		d, r, rs, c, cs := median(t[0]), median(t[1]), median(t[2]), median(t[3]), median(t[4])
		e.log.Info("images", "rep", i, "directory", d, "reference", r, "signed", rs, "cold", c, "cold signed", cs)
		image.add(float64(r), float64(d), ms(r), ms(d))
		cold.add(float64(cs), float64(c+signatureBudget), ms(cs), ms(c+signatureBudget))
		warm.add(float64(rs), float64(r), ms(rs), ms(r))
	}
	return []row{image, cold, warm}, nil
}

// listedTime runs before, then spawns wasmcp with args and returns the time
// until its answer to tools/list, checking that it lists a tool.
func listedTime(ctx context.Context, e *env, name string, args []string, before func() error) (time.Duration, error) {
	if before != nil {
		if err := before(); err != nil {
			return 0, err
		}
	}
	cmd, err := e.wasmcpCmd(name, args...)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	cs, err := connectStdio(ctx, cmd, nil)
	if err != nil {
		return 0, err
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if len(tools.Tools) == 0 {
		return 0, fmt.Errorf("%s: no tool served (log: logs/%s.log of the work directory)", name, name)
	}
	return d, nil
}

// failer is sigstoretest.TB outside a test: signing the bench's images
// cannot fail but for a broken build.
type failer struct{}

func (failer) Helper()           {}
func (failer) Fatal(args ...any) { panic(fmt.Sprint(args...)) }
