package main

import (
	"bytes"
	"flag"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/host/trust"
	"github.com/wasmcp/wasmcp/internal/oci"
	"github.com/wasmcp/wasmcp/internal/sigstore"
)

// policyFlags are the operator's policy file and locked-down mode, shared by
// serve, inspect and call so that a module is judged the same way by all.
type policyFlags struct {
	config   string
	lock     string
	keys     string
	sigstore string
	// current is the Sigstore policy last loaded, for the fetcher.
	current atomic.Pointer[sigstore.Policy]
}

func (p *policyFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.config, "config", "", "policy `FILE` (JSON): per-plugin limits and the directories, environment\n"+
		"variables, clock, randomness and network origins modules may be granted (see README)")
	fs.StringVar(&p.lock, "lock", "", "locked-down mode: load only modules whose SHA-256 the lock `FILE` pins\n"+
		"(sha256sum format; \"wasmcp lock DIR\" writes one)")
	fs.StringVar(&p.keys, "trusted-keys", "", "require NAME.wasm.sig beside each module, an Ed25519 signature by a key\n"+
		"of `FILE` (with -lock: pinned and signed)")
	fs.StringVar(&p.sigstore, "sigstore", "", "require of each module served by reference a cosign (Sigstore) signature of its\n"+
		"manifest by an identity or key the policy `FILE` names (JSON; see README), or a\n"+
		"signature by a -trusted-keys key")
}

// policy is the Sigstore policy in force, nil without -sigstore.
func (p *policyFlags) policy() *sigstore.Policy { return p.current.Load() }

// apply reads the files and adds them to cfg. The policy is returned too,
// for the admission limits of the MCP server; it is nil without -config.
func (p *policyFlags) apply(cfg host.Config) (host.Config, *policy.Policy, error) {
	pol, t, err := p.load()
	if err != nil {
		return cfg, nil, err
	}
	if pol != nil {
		cfg = cfg.WithPolicy(pol)
	}
	if t != nil {
		cfg = cfg.WithTrust(t)
	}
	return cfg, pol, nil
}

// load reads the files: the policy (nil without -config) and locked-down
// mode (nil without -lock, -trusted-keys and -sigstore).
func (p *policyFlags) load() (*policy.Policy, *trust.Verifier, error) {
	var pol *policy.Policy
	if p.config != "" {
		var err error
		if pol, err = policy.Load(p.config); err != nil {
			return nil, nil, err
		}
	}
	var t trust.Verifier
	if p.lock != "" {
		lock, err := trust.LoadLock(p.lock)
		if err != nil {
			return nil, nil, err
		}
		t.Lock = lock
	}
	if p.keys != "" {
		keys, err := trust.LoadKeys(p.keys)
		if err != nil {
			return nil, nil, err
		}
		t.Keys = keys
	}
	if p.sigstore != "" {
		sp, err := sigstore.Load(p.sigstore)
		if err != nil {
			return nil, nil, err
		}
		t.Attestor = oci.NewAttestor(sp)
		p.current.Store(sp)
	}
	if !t.Locked() {
		return pol, nil, nil
	}
	return pol, &t, nil
}

// printPermissions writes what the module asks for and what the policy
// grants of it, when it asks for anything.
func printPermissions(b *bytes.Buffer, r *host.Report) {
	if r.Requested == nil {
		return
	}
	fmt.Fprintf(b, "\npermissions:\n")
	fmt.Fprintf(b, "  requested  %s\n", permissionWords(r.Requested))
	fmt.Fprintf(b, "  granted    %s\n", permissionWords(r.Granted))
	if len(r.Denied) > 0 {
		fmt.Fprintf(b, "  denied     %s\n", strings.Join(r.Denied, ", "))
	}
}

// permissionWords is p on one line, "none" when it is empty.
func permissionWords(p *abi.Permissions) string {
	if p == nil {
		return "none"
	}
	var words []string
	for _, f := range p.FS {
		mode := "read-only"
		if f.Write {
			mode = "read-write"
		}
		words = append(words, fmt.Sprintf("fs %s (%s)", f.Path, mode))
	}
	for _, e := range p.Env {
		words = append(words, "env "+e)
	}
	if p.Clock {
		words = append(words, "clock")
	}
	if p.Random {
		words = append(words, "random")
	}
	for _, o := range p.Net {
		words = append(words, "net "+o)
	}
	if len(words) == 0 {
		return "none"
	}
	return strings.Join(words, ", ")
}
