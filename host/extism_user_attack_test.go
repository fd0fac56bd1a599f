package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
)

// userAttackFunctions are the functions of extism:host/user that take an
// argument, numbered from 1 as testdata/extism_user_attack.wat numbers
// them.
var userAttackFunctions = []string{"create_elicitation", "create_message", "get_access_token", "get_keyring_secret",
	"notify_logging_message", "notify_progress", "notify_resource_updated", "notify_url_elicitation_completed"}

// userAttackHost serves testdata/extism_user_attack.wasm with the policy
// settings given for it (a JSON object).
func userAttackHost(t *testing.T, l *logs, settings string, cfg host.Config) *host.Host {
	t.Helper()
	p, err := policy.Parse([]byte(`{"plugins":{"extism_user_attack":`+settings+`}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := newHost(t, "", l, cfg.WithPolicy(p))
	if err := h.LoadFile(t.Context(), filepath.Join("testdata", "extism_user_attack.wasm")); err != nil {
		t.Fatal(err)
	}
	return h
}

// answering is a client that answers every request at once, and counts
// them.
func answering(n *atomic.Int64) host.CallRequest {
	answer := func(reply string) host.RequestFunc {
		return func(context.Context, json.RawMessage) (json.RawMessage, error) {
			n.Add(1)
			return json.RawMessage(reply), nil
		}
	}
	return host.CallRequest{
		Sample: answer(`{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}`),
		Elicit: answer(`{"action":"accept","content":{}}`),
		Roots:  answer(`{"roots":[]}`),
	}
}

// An offset that is no block, or a block the host function already took
// and freed, traps the call with an error that names the function, its
// module and the offset; the plugin serves on, and its client was asked
// nothing.
func TestExtismUserBadPointers(t *testing.T) {
	h := userAttackHost(t, newLogs(), `{}`, testConfig(t))
	var asked atomic.Int64
	cases := map[string]string{"fr": "extism:host/user.notify_progress: the argument at offset"}
	for i, fn := range userAttackFunctions {
		cases[fmt.Sprintf("p%d", i+1)] = "extism:host/user." + fn + ": the "
	}
	for tool, want := range cases {
		t.Run(tool, func(t *testing.T) {
			req := answering(&asked)
			req.Tool = tool
			res, err := h.Call(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(res.Content[0].Text, want) || !strings.Contains(res.Content[0].Text, "is not an allocated block") {
				t.Errorf("%+v, want a trap naming %q", res.Content, want)
			}
		})
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the client was asked %d times", n)
	}
	if got := call(t, h, "ok"); got != "ok" {
		t.Errorf("ok: %q", got)
	}
}

// An argument over the plugin's maxOutput fails the call unread, with an
// error that says so: a block of 100 MiB reaches neither the client nor
// the log, and the plugin serves on. (e2e/extism_user_test.go sends one
// that is a JSON object, which takes seconds to write.)
func TestExtismUserHugeArguments(t *testing.T) {
	l := newLogs()
	h := userAttackHost(t, l, `{}`, testConfig(t))
	var asked atomic.Int64
	tools := map[string]string{}
	for i, fn := range userAttackFunctions {
		tools[fmt.Sprintf("z%d", i+1)] = fn
	}
	for tool, fn := range tools {
		t.Run(tool, func(t *testing.T) {
			req := answering(&asked)
			req.Tool = tool
			res, err := h.Call(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			want := "extism:host/user." + fn + ": the argument of 100 MiB is over the limit of 4 MiB (the plugin's maxOutput)"
			if !res.IsError || !strings.Contains(res.Content[0].Text, want) {
				t.Errorf("%+v, want an error saying %q", res.Content, want)
			}
		})
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the client was asked %d times", n)
	}
	if got := call(t, h, "ok"); got != "ok" {
		t.Errorf("ok: %q", got)
	}
}

// A plugin that calls create_message in a loop, from a client that
// answers at once, is stopped at the request past the bound of a call,
// saying so, and serves on.
func TestExtismUserSampleFlood(t *testing.T) {
	h := userAttackHost(t, newLogs(), `{}`, testConfig(t))
	var asked atomic.Int64
	req := answering(&asked)
	req.Tool = "fl"
	res, err := h.Call(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].Text, "sampling request not sent: the call already made 1000 requests of its client") {
		t.Errorf("%+v, want an error saying the call asked too often", res.Content)
	}
	if n := asked.Load(); n != 1000 {
		t.Errorf("the client was asked %d times, want 1000", n)
	}
	if got := call(t, h, "ok"); got != "ok" {
		t.Errorf("ok: %q", got)
	}
}

// A plugin saying that its tool list changed 10,000 times a second has its
// lists read at most every 100 ms, and serves on meanwhile.
func TestExtismUserListChangedTenThousandPerSecond(t *testing.T) {
	l := newLogs()
	h := userAttackHost(t, l, `{}`, testConfig(t))
	start := time.Now()
	calls := 0
	for time.Since(start) < time.Second {
		call(t, h, "li") // 10,000 notifications
		calls++
		if got := call(t, h, "ok"); got != "ok" {
			t.Fatalf("ok: %q", got)
		}
	}
	elapsed := time.Since(start)
	l.wait(t, "plugin's lists read again")
	time.Sleep(300 * time.Millisecond) // the last pending reading
	reads := strings.Count(l.String(), "plugin's lists read again")
	t.Logf("%d notifications in %v: %d readings", calls*10_000, elapsed.Round(time.Millisecond), reads)
	if limit := int(elapsed/(100*time.Millisecond)) + 2; reads > limit {
		t.Errorf("%d readings in %v, want at most %d", reads, elapsed, limit)
	}
}

// A plugin whose listing runs to its deadline once it said that its lists
// changed keeps no load of another plugin waiting meanwhile, and serves on
// with what it listed before.
func TestExtismUserRelistHoldsNoLoad(t *testing.T) {
	l := newLogs()
	const timeout = 5 * time.Second
	h := userAttackHost(t, l, fmt.Sprintf(`{"timeout":%q}`, timeout), testConfig(t))
	call(t, h, "sl")
	time.Sleep(300 * time.Millisecond) // past the wait before a reading: the listing loops
	start := time.Now()
	if err := h.LoadFile(t.Context(), filepath.Join("testdata", "echo.wasm")); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > timeout/2 {
		t.Errorf("loading another plugin took %v: it waited for the looping listing", took)
	}
	l.wait(t, "plugin's lists not read again", "extism_user_attack")
	if got := call(t, h, "ok"); got != "ok" {
		t.Errorf("ok: %q", got)
	}
}
