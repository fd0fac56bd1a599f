package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/internal/testenv"
)

// TestReplicasWithOAuth runs two replicas trusting one authorization server
// (oidc-provider), both with the balancer's URL as their resource, behind
// haproxy with the configuration we ship: go-sdk's client finds the
// authorization server from a 401 through the balancer and gets a token by
// client credentials; each replica verifies it on its own, stateless calls
// spread over both, and a 2025-11-25 session stays on the replica that
// opened it.
func TestReplicasWithOAuth(t *testing.T) {
	t.Parallel()
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		testenv.Missing(t, "haproxy not found: install it (Debian: apt-get install haproxy), or run make deps")
	}
	as := startAuthServer(t, 0)
	lbAddr := freeAddr(t)
	resource := "http://" + lbAddr + "/mcp"
	dir := servedCopy(t, filepath.Join(pluginsDir, "everything.wasm"))
	args := []string{"serve", "--dir", dir, "--cache-dir", cacheDir, "--log-format", "json",
		"--config", oauthPolicy(t), "--oauth-issuer", as.issuer, "--oauth-resource", resource}
	replicas := make([]*lbReplica, 2)
	for i := range replicas {
		r := &lbReplica{log: &lockedBuffer{}}
		url, stop, kill := launchHTTP(t, exec.Command(binPath, args...), r.log)
		r.base, r.stop, r.kill = strings.TrimSuffix(url, "/mcp"), stop, kill
		replicas[i] = r
	}
	for _, r := range replicas {
		waitReady(t, r)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for i, r := range replicas {
				t.Logf("replica %d log:\n%s", i, r.log)
			}
		}
	})
	as.addResource(t, resource)
	startHAProxy(t, haproxy, lbAddr, replicas)

	stateless := ccSession(t, resource, "svc-reader", statelessProtocol)
	wantTools(t, stateless, readerTools...)
	before := auditAll(replicas)
	for i := range 6 {
		msg := fmt.Sprintf("call %d", i)
		wantCall(t, stateless, "ev_echo", map[string]any{"message": msg}, "Echo: "+msg)
	}
	after := auditUntil(t, replicas, func(a []map[string]int) bool { return sum(delta(before, a, "ev_echo:ok")) == 6 })
	served := delta(before, after, "ev_echo:ok")
	t.Logf("the replicas served %v of 6 stateless calls", served)
	for i, n := range served {
		if n == 0 {
			t.Errorf("replica %d served none of the stateless calls", i)
		}
	}
	for _, r := range replicas {
		for _, rec := range auditLines(r.log.String()) {
			if rec["subject"] != "svc-reader" || rec["client_id"] != "svc-reader" {
				t.Errorf("an audit line does not name the token's principal: %v", rec)
			}
		}
	}

	session := ccSession(t, resource, "svc-reader", legacyProtocol)
	for i := range 4 {
		msg := fmt.Sprintf("session call %d", i)
		wantCall(t, session, "ev_echo", map[string]any{"message": msg}, "Echo: "+msg)
	}
	t.Logf("the session lives on replica %d", sessionOwner(t, replicas, session.ID()))
}
