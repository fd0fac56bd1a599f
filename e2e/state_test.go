package e2e

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// replica is one "wasmcp serve --http" of TestRoundAcrossReplicas, with a
// 2026-07-28 client that leaves input requests to the test.
type replica struct {
	*mcp.ClientSession
	cmd *exec.Cmd
	log *lockedBuffer
}

func startReplica(t *testing.T, dir string, args ...string) *replica {
	t.Helper()
	r := &replica{log: &lockedBuffer{}}
	r.cmd = exec.Command(binPath, append([]string{"serve", "--dir", dir, "--cache-dir", cacheDir, "--wait-loaded"}, args...)...)
	url, _ := startHTTP(t, r.cmd, r.log)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log of %s:\n%s", url, r.log)
		}
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "wasmcp-e2e", Version: "1"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("not asked in this test")
		},
	}).Connect(testContext(t), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: bearerClient(testToken)},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	r.ClientSession = cs
	return r
}

func (r *replica) call(t *testing.T, params *mcp.CallToolParams) *mcp.CallToolResult {
	t.Helper()
	res, err := r.CallTool(testContext(t), params)
	if err != nil {
		t.Fatalf("call %s: %v", params.Name, err)
	}
	return res
}

// writeKeys writes a state key file of keys, the first sealing.
func writeKeys(t *testing.T, path string, keys ...[]byte) {
	t.Helper()
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(base64.StdEncoding.EncodeToString(k) + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// An elicitation round of a 2026-07-28 client, begun on one replica, is
// continued on another that shares its -state-key-file, and refused with a
// tool error that says why by one that does not, until SIGHUP has it read
// a key file that holds the key.
func TestRoundAcrossReplicas(t *testing.T) {
	dir := servedCopy(t, filepath.Join(pluginsDir, "clientfeatures.wasm"))
	shared, other := filepath.Join(t.TempDir(), "state.key"), filepath.Join(t.TempDir(), "other.key")
	key, newKey := make([]byte, 32), make([]byte, 32)
	rand.Read(key)
	rand.Read(newKey)
	writeKeys(t, shared, key)
	writeKeys(t, other, newKey)
	a := startReplica(t, dir, "--state-key-file", shared)
	b := startReplica(t, dir, "--state-key-file", shared)
	c := startReplica(t, dir) // a random key of its own
	d := startReplica(t, dir, "--state-key-file", other)

	first := a.call(t, &mcp.CallToolParams{Name: "elicit-favorite-color", Arguments: map[string]any{}})
	ask, ok := first.InputRequests["elicitation-1"].(*mcp.ElicitParams)
	if !ok || first.RequestState == "" || ask.Message != "Which colour do you like best?" {
		t.Fatalf("first round on replica a: input requests %v, requestState %q", first.InputRequests, first.RequestState)
	}
	answer := &mcp.CallToolParams{
		Name: "elicit-favorite-color", Arguments: map[string]any{}, RequestState: first.RequestState,
		InputResponses: mcp.InputResponseMap{"elicitation-1": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue"}}},
	}
	const done = `The user answered: {"color":"blue"}`
	if res := b.call(t, answer); res.IsError || text(res) != done {
		t.Errorf("second round on replica b, same key file: %q (error %v)", text(res), res.IsError)
	}
	unknownKey := "requestState was sealed under a state key this server does not hold: by a replica without the same -state-key-file"
	for name, r := range map[string]*replica{"c, a random key": c, "d, another key file": d} {
		t.Run(name, func(t *testing.T) {
			if res := r.call(t, answer); !res.IsError || !strings.Contains(text(res), unknownKey) {
				t.Errorf("second round on replica %s: %q (error %v), want a tool error saying %q", name, text(res), res.IsError, unknownKey)
			}
		})
	}

	// d is given the key as the one that opens only (a rotation's first
	// step) and reads it on SIGHUP.
	writeKeys(t, other, newKey, key)
	if err := d.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(d.log.String(), "state keys reloaded") {
		select {
		case <-testContext(t).Done():
			t.Fatalf("replica d never reloaded its state keys")
		case <-time.After(20 * time.Millisecond):
		}
	}
	if res := d.call(t, answer); res.IsError || text(res) != done {
		t.Errorf("second round on replica d after SIGHUP: %q (error %v)", text(res), res.IsError)
	}

	answer.Arguments = map[string]any{"other": true}
	want := "requestState belongs to a call of another tool or other arguments, or was altered"
	if res := b.call(t, answer); !res.IsError || !strings.Contains(text(res), want) {
		t.Errorf("second round with other arguments: %q (error %v), want a tool error saying %q", text(res), res.IsError, want)
	}
}
