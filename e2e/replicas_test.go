package e2e

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/internal/testenv"
)

const statelessProtocol = "2026-07-28"

// lbReplica is one "wasmcp serve --http" behind the load balancer.
type lbReplica struct {
	base string // http://127.0.0.1:PORT
	log  *lockedBuffer
	stop func() // SIGTERM, and wait for a clean exit
	kill func()
}

// TestReplicasBehindHAProxy runs three replicas of the same modules behind
// haproxy with the configuration we ship (deploy/haproxy/haproxy.cfg) and
// drives them through it with go-sdk clients of both protocol eras:
// stateless calls spread over the replicas, an elicitation round continues
// on another replica than the one that asked, 2025-era sessions stay on the
// replica that opened them, when one replica is killed the others serve the
// next calls while its sessions fail clearly and can start again, and while
// one drains after SIGTERM its call in flight finishes and stateless calls
// go on elsewhere.
func TestReplicasBehindHAProxy(t *testing.T) {
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		testenv.Missing(t, "haproxy not found: install it (Debian: apt-get install haproxy), or run make deps")
	}
	start := time.Now()
	dir := servedCopy(t, filepath.Join(pluginsDir, "everything.wasm"), filepath.Join(pluginsDir, "clientfeatures.wasm"))
	args := append([]string{"serve", "--dir", dir, "--cache-dir", cacheDir, "--log-format", "json"}, sharedStateKey(t)...)
	replicas := make([]*lbReplica, 3)
	for i := range replicas {
		r := &lbReplica{log: &lockedBuffer{}}
		var url string
		url, r.stop, r.kill = startKillableHTTP(t, exec.Command(binPath, args...), r.log)
		r.base = strings.TrimSuffix(url, "/mcp")
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
	lb := startHAProxy(t, haproxy, freeAddr(t), replicas)
	endpoint := lb + "/mcp"

	// 2026-07-28: stateless calls spread over the replicas.
	asked := 0
	client := mcp.NewClient(&mcp.Implementation{Name: "replicas", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked++
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue"}}, nil
		},
	})
	stateless := connectLB(t, client, endpoint, statelessProtocol)
	before := scrapeAll(t, replicas)
	for i := range 9 {
		wantEcho(t, stateless, i)
	}
	served := 0
	for i, n := range delta(before, scrapeAll(t, replicas), "echo") {
		t.Logf("replica %d served %d of 9 echo calls", i, n)
		if n > 0 {
			served++
		}
	}
	if served < 2 {
		t.Errorf("%d replica served the stateless calls, want 2 or more", served)
	}

	// An elicitation round: the first call is answered with the request
	// (input_required), the client calls again with its answer. Round robin
	// sends the second call elsewhere unless other requests came between.
	crossed := false
	for attempt := 0; attempt < 4 && !crossed; attempt++ {
		before := auditAll(replicas)
		out, isErr := callText(t, stateless, &mcp.CallToolParams{Name: "elicit-favorite-color", Arguments: map[string]any{}})
		if isErr || out != `The user answered: {"color":"blue"}` {
			t.Fatalf("elicit-favorite-color through the balancer: %q (error %v)", out, isErr)
		}
		after := auditUntil(t, replicas, func(a []map[string]int) bool {
			return sum(delta(before, a, "elicit-favorite-color:input_required")) > 0 && sum(delta(before, a, "elicit-favorite-color:ok")) > 0
		})
		asker := only(delta(before, after, "elicit-favorite-color:input_required"))
		answerer := only(delta(before, after, "elicit-favorite-color:ok"))
		t.Logf("round %d: asked by replica %d, finished by replica %d", attempt, asker, answerer)
		if asker < 0 || answerer < 0 {
			t.Fatalf("the round's two calls were not counted once each: %v then %v", before, after)
		}
		crossed = asker != answerer
	}
	if !crossed {
		t.Error("no elicitation round continued on another replica in 4 tries")
	}
	if asked == 0 {
		t.Error("the client was never asked")
	}

	// 2025-11-25: each session stays on the replica that opened it.
	sessions := make([]*mcp.ClientSession, 3)
	owner := make([]int, len(sessions))
	for i := range sessions {
		sessions[i] = connectLB(t, mcp.NewClient(&mcp.Implementation{Name: "sticky", Version: "1"}, nil), endpoint, legacyProtocol)
		for j := range 4 {
			wantSum(t, sessions[i], i, j)
		}
		owner[i] = sessionOwner(t, replicas, sessions[i].ID())
	}
	t.Logf("sessions live on replicas %v", owner)

	// Kill the replica of session 0, as a crash would.
	killed := owner[0]
	replicas[killed].kill()
	for i := range 6 {
		wantEcho(t, stateless, 100+i)
	}
	for i, cs := range sessions {
		if owner[i] != killed {
			wantSum(t, cs, i, 10)
		}
	}
	ctx, cancel := context.WithTimeout(testContext(t), 30*time.Second)
	defer cancel()
	// Its session is gone with it: another replica says so (404), and the
	// client starts a new one.
	_, err = sessions[0].CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": 1, "b": 2}})
	if err == nil || !strings.Contains(err.Error(), "session not found") {
		t.Errorf("a call in the session of the killed replica: %v, want session not found", err)
	}
	again := connectLB(t, mcp.NewClient(&mcp.Implementation{Name: "sticky", Version: "1"}, nil), endpoint, legacyProtocol)
	wantSum(t, again, 0, 11)
	if o := sessionOwner(t, replicas, again.ID()); o == killed {
		t.Errorf("the new session lives on the killed replica %d", o)
	}

	// Drain another replica: SIGTERM while a call of one of its sessions
	// runs. Until haproxy's check sees /readyz fail, requests still reach
	// it; it answers those without a session 503, which haproxy retries on
	// the last replica.
	running := make(chan struct{}, 1)
	drainer := connectLB(t, mcp.NewClient(&mcp.Implementation{Name: "drain", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case running <- struct{}{}:
			default:
			}
		},
	}), endpoint, legacyProtocol)
	wantSum(t, drainer, 0, 12)
	draining := sessionOwner(t, replicas, drainer.ID())
	done := make(chan string, 1)
	go func() {
		res, err := drainer.CallTool(testContext(t), &mcp.CallToolParams{
			Meta: mcp.Meta{"progressToken": 1}, Name: "trigger-long-running-operation",
			Arguments: map[string]any{"duration": 4, "steps": 40},
		})
		switch {
		case err != nil:
			done <- err.Error()
		case res.IsError:
			done <- text(res)
		default:
			done <- ""
		}
	}()
	select {
	case <-running:
	case msg := <-done:
		t.Fatalf("the long call ended before it ran: %q", msg)
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		replicas[draining].stop()
	}()
	for {
		if code, _ := probeGet(t, replicas[draining].base, "/readyz"); code != 200 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	for i := range 6 {
		wantEcho(t, stateless, 200+i)
	}
	if msg := <-done; msg != "" {
		t.Errorf("the call in flight on the draining replica: %s", msg)
	}
	<-stopped
	t.Logf("three replicas behind haproxy: %v", time.Since(start).Round(time.Millisecond))
}

// sharedStateKey is the serve flag that gives every replica the same key for
// the requestState of 2026-07-28 rounds, so that one continues another's
// round.
func sharedStateKey(t *testing.T) []string {
	t.Helper()
	key := make([]byte, 32)
	rand.Read(key)
	path := filepath.Join(t.TempDir(), "state.key")
	if err := os.WriteFile(path, []byte(base64.StdEncoding.EncodeToString(key)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"--state-key-file", path}
}

// waitReady waits until r's /readyz answers 200.
func waitReady(t *testing.T, r *lbReplica) {
	t.Helper()
	ctx := testContext(t)
	for {
		code, _ := probeGet(t, r.base, "/readyz")
		if code == 200 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("replica %s never ready:\n%s", r.base, r.log)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

var (
	bindLine   = regexp.MustCompile(`(?m)^(\s*)bind .*$`)
	serverLine = regexp.MustCompile(`(?m)^\s*server .*\n`)
)

// freeAddr returns a loopback address whose port was free a moment ago, for
// a server that takes its address on the command line.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startHAProxy runs haproxy with deploy/haproxy/haproxy.cfg, its bind line
// moved to addr and its servers replaced by replicas, and returns its base
// URL once it answers.
func startHAProxy(t *testing.T, haproxy, addr string, replicas []*lbReplica) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(root, "deploy", "haproxy", "haproxy.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	var servers strings.Builder
	for i, r := range replicas {
		fmt.Fprintf(&servers, "    server wasmcp%d %s check\n", i+1, strings.TrimPrefix(r.base, "http://"))
	}
	text := bindLine.ReplaceAllString(string(cfg), "${1}bind "+addr)
	if n := len(serverLine.FindAllString(text, -1)); n == 0 {
		t.Fatal("deploy/haproxy/haproxy.cfg has no server lines to replace")
	}
	text = serverLine.ReplaceAllString(text, "")
	text = strings.TrimRight(text, "\n") + "\n" + servers.String()
	path := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(haproxy, "-c", "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("haproxy -c: %v\n%s\n%s", err, out, text)
	}
	log := &lockedBuffer{}
	cmd := exec.Command(haproxy, "-db", "-f", path)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("haproxy log:\n%s", log)
		}
	})
	base := "http://" + addr
	ctx := testContext(t)
	for {
		if code, _ := probeGet(t, base, "/healthz"); code == 200 {
			return base
		}
		select {
		case err := <-exited:
			t.Fatalf("haproxy exited: %v\n%s", err, log)
		case <-ctx.Done():
			t.Fatalf("haproxy never answered:\n%s", log)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// connectLB connects client to the balancer's endpoint with protocol.
func connectLB(t *testing.T, client *mcp.Client, endpoint, protocol string) *mcp.ClientSession {
	t.Helper()
	cs, err := client.Connect(testContext(t), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: bearerClient(testToken)},
		&mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connect through the balancer (%s): %v", protocol, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func wantEcho(t *testing.T, cs *mcp.ClientSession, i int) {
	t.Helper()
	msg := fmt.Sprintf("call %d", i)
	if out, isErr := callText(t, cs, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": msg}}); isErr || !strings.Contains(out, msg) {
		t.Fatalf("echo %q: %q (error %v)", msg, out, isErr)
	}
}

func wantSum(t *testing.T, cs *mcp.ClientSession, a, b int) {
	t.Helper()
	want := fmt.Sprintf("The sum of %d and %d is %d.", a, b, a+b)
	if out, isErr := callText(t, cs, &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": a, "b": b}}); isErr || out != want {
		t.Fatalf("get-sum in session %s: %q (error %v), want %q", cs.ID(), out, isErr, want)
	}
}

// scrapeAll reads the call counts of every replica.
func scrapeAll(t *testing.T, replicas []*lbReplica) []map[string]int {
	t.Helper()
	all := make([]map[string]int, len(replicas))
	for i, r := range replicas {
		all[i], _ = scrape(t, r.base+"/metrics", testToken)
	}
	return all
}

// delta is, per replica, how many more calls after counted under key than
// before.
func delta(before, after []map[string]int, key string) []int {
	d := make([]int, len(after))
	for i := range after {
		d[i] = after[i][key] - before[i][key]
	}
	return d
}

// only is the index of the one replica whose delta is 1, all others being
// 0, or -1.
func only(d []int) int {
	found := -1
	for i, n := range d {
		switch {
		case n == 1 && found < 0:
			found = i
		case n != 0:
			return -1
		}
	}
	return found
}

// auditAll counts the audit lines of each replica by "tool:outcome" and
// by "session:ID".
func auditAll(replicas []*lbReplica) []map[string]int {
	all := make([]map[string]int, len(replicas))
	for i, r := range replicas {
		all[i] = map[string]int{}
		for _, rec := range auditLines(r.log.String()) {
			all[i][fmt.Sprintf("%v:%v", rec["tool"], rec["outcome"])]++
			if id, ok := rec["session"].(string); ok && id != "" {
				all[i]["session:"+id]++
			}
		}
	}
	return all
}

// auditUntil is auditAll once done says it is complete: the server writes
// an audit line before it answers, but the test reads its stderr through a
// pipe.
func auditUntil(t *testing.T, replicas []*lbReplica, done func([]map[string]int) bool) []map[string]int {
	t.Helper()
	ctx := testContext(t)
	for {
		a := auditAll(replicas)
		if done(a) {
			return a
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the audit lines never came: %v", a)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func sum(d []int) int {
	n := 0
	for _, v := range d {
		n += v
	}
	return n
}

// sessionOwner is the one replica whose audit lines name session id.
func sessionOwner(t *testing.T, replicas []*lbReplica, id string) int {
	t.Helper()
	owner := -1
	all := auditUntil(t, replicas, func(a []map[string]int) bool {
		for _, counts := range a {
			if counts["session:"+id] > 0 {
				return true
			}
		}
		return false
	})
	for i, counts := range all {
		if counts["session:"+id] > 0 {
			if owner >= 0 {
				t.Fatalf("session %s was served by replicas %d and %d", id, owner, i)
			}
			owner = i
		}
	}
	return owner
}
