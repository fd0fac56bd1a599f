package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLimits serves the hostile guest under small limits: a looping call and
// a memory bomb end as tool errors that say which limit they hit, and the
// server, the module and its neighbours keep working after each.
func TestLimits(t *testing.T) {
	s := startServer(t, servedCopy(t, wat("hostile"), wat("hello")), serverOptions{
		protocol: legacyProtocol,
		args:     []string{"--timeout", "1s", "--memory", "2MiB"},
	})
	stillWorks := func(t *testing.T) {
		t.Helper()
		// The same module, in a fresh instance: the failed one was discarded.
		if res := s.call(t, "ping", `{}`); text(res) != "pong" {
			t.Errorf("ping after the failure = %q, want pong", text(res))
		}
		// Another module.
		if res := s.call(t, "hello", ``); res.IsError {
			t.Errorf("hello after the failure: %s", text(res))
		}
	}

	t.Run("timeout", func(t *testing.T) {
		wantToolError(t, s.call(t, "spin", `{}`), "spin", "timed out")
		stillWorks(t)
	})
	t.Run("memory", func(t *testing.T) {
		wantToolError(t, s.call(t, "bomb", `{}`), "bomb", "memory")
		stillWorks(t)
	})
}

// TestPolicyPluginRate serves with a policy file that gives the hello plugin
// a rate of its own: its second immediate call is refused with a tool error
// naming the plugin, while the hostile plugin, with no rate, still serves.
func TestPolicyPluginRate(t *testing.T) {
	config := filepath.Join(t.TempDir(), "policy.json")
	// One call per 1000s, burst 1.
	if err := os.WriteFile(config, []byte(`{"plugins": {"hello": {"rate": 0.001}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, servedCopy(t, wat("hostile"), wat("hello")), serverOptions{
		protocol: legacyProtocol,
		args:     []string{"--config", config},
	})
	wantOK(t, s.call(t, "hello", ``))
	wantToolError(t, s.call(t, "hello", ``), "rate limit exceeded for plugin hello", "0.001 calls/s", "retry after")
	for range 3 {
		if res := s.call(t, "ping", `{}`); text(res) != "pong" {
			t.Errorf("ping = %q, want pong", text(res))
		}
	}
}
