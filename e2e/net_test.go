package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/internal/egresstest"
)

// netGuest is host/testdata/net.wasm: its tool fetch makes the request
// whose head its arguments are (a wasmcp.http_request head) and returns the
// response's head as structured content and its body as text, or a tool
// error "status N message".
func netGuest(t *testing.T) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "host", "testdata", "net.wasm")
}

// servePlugin serves module as plugin name with the policy settings for it
// (a JSON object), and returns the server.
func servePlugin(t *testing.T, module, name, settings string) *server {
	t.Helper()
	dir := t.TempDir()
	copyFile(t, module, filepath.Join(dir, name+".wasm"))
	config := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(config, []byte(`{"plugins":{"`+name+`":`+settings+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return startServer(t, dir, serverOptions{protocol: legacyProtocol, args: []string{"--config", config}})
}

func request(t *testing.T, url string) string {
	return mustJSON(t, map[string]string{"url": url})
}

// fetched is the response head a successful fetch holds.
type fetched struct {
	Status  int         `json:"status"`
	URL     string      `json:"url"`
	Headers [][2]string `json:"headers"`
}

// The binary serves a WAT guest's requests to the origins its policy
// names, over HTTP and HTTPS, with the policy's header, which the guest
// does not see; every request is an audit line.
func TestNetAllowedWithTheGoClient(t *testing.T) {
	var mu sync.Mutex
	var auth []string
	handler := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "hello from "+r.URL.Path)
	}
	plain := egresstest.NewServer(t, false, handler)
	tls := egresstest.NewServer(t, true, handler)
	t.Setenv("E2E_NET_TOKEN", "s3cret")
	s := servePlugin(t, netGuest(t), "net", `{"net":["`+plain.Origin+`","`+tls.Origin+`"],"caFile":"`+tls.WriteCA(t)+`",
		"headers":{"`+plain.Origin+`":{"Authorization":"Bearer ${E2E_NET_TOKEN}"}}}`)
	for _, tc := range []struct {
		name string
		srv  *egresstest.Server
	}{{"http", plain}, {"https", tls}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.srv
			res := s.call(t, "fetch", request(t, srv.URL+"/page"))
			wantOK(t, res)
			var f fetched
			structured(t, res, &f)
			if f.Status != 200 || text(res) != "hello from /page" || f.URL != srv.URL+"/page" {
				t.Errorf("%s: %+v %q", srv.Origin, f, text(res))
			}
			if strings.Contains(mustJSON(t, res), "s3cret") {
				t.Errorf("the guest's result holds the secret: %s", mustJSON(t, res))
			}
		})
	}
	mu.Lock()
	if strings.Join(auth, ",") != "Bearer s3cret," {
		t.Errorf("the servers saw Authorization %q", auth)
	}
	mu.Unlock()
	// The line is written before the answer, but read from the pipe after.
	s.waitLog(t, 0, "net request", "origin="+tls.Origin)
}

// Every request the policy refuses is a tool error naming the rule, and the
// server it would have reached counts no connection. localhost resolves to
// the loopback address from /etc/hosts, without DNS.
func TestNetRefusedWithTheGoClient(t *testing.T) {
	allowed := egresstest.NewServer(t, false, hello)
	refused := egresstest.NewServer(t, false, hello)
	redirect := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	narrow := servePlugin(t, netGuest(t), "net", `{"net":["`+allowed.Origin+`","`+redirect.Origin+`"]}`)
	public := servePlugin(t, netGuest(t), "net", `{"net":["*"]}`)
	for _, c := range []struct {
		name string
		s    *server
		url  string
		want []string
	}{
		{"other port", narrow, refused.URL + "/", []string{"status 5", refused.Origin + " is not in plugin net's net policy"}},
		{"a name not in the policy", narrow, "http://localhost:" + refused.Port + "/", []string{"status 5", "http://localhost:" + refused.Port + " is not in plugin net's net policy"}},
		{"redirect to a refused origin", narrow, redirect.URL + "/?to=" + refused.URL + "/", []string{"status 5", refused.Origin + " is not in plugin net's net policy"}},
		{"a name resolving to loopback", public, "http://localhost:" + refused.Port + "/", []string{"status 5", "localhost resolves to", "not a public address (loopback)"}},
		{"loopback", public, refused.URL + "/", []string{"status 5", "127.0.0.1 is not a public address (loopback)"}},
		{"the metadata address", public, "http://169.254.169.254/latest/meta-data/", []string{"status 5", "169.254.169.254 is not a public address (link-local)"}},
		{"mapped loopback", public, "http://[::ffff:127.0.0.1]:" + refused.Port + "/", []string{"status 5", "IPv4 address in IPv6 form"}},
		{"decimal loopback", public, "http://2130706433:" + refused.Port + "/", []string{"status 5", "dotted decimal"}},
		{"a file URL", public, "file:///etc/passwd", []string{"status 3", "only http and https"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantToolError(t, c.s.call(t, "fetch", request(t, c.url)), c.want...)
			if n := refused.Conns(); n != 0 {
				t.Errorf("the refused server counted %d connections", n)
			}
		})
	}
	if allowed.Conns() != 0 {
		t.Errorf("the allowed server counted %d connections", allowed.Conns())
	}
	if !strings.Contains(public.stderr.String(), "outcome=denied") {
		t.Errorf("no audit line of a refusal in:\n%s", public.stderr)
	}
}

// A response over the cap fails; a server that never answers ends the call
// at its deadline; a cancelled call aborts its request.
func TestNetLimitsWithTheGoClient(t *testing.T) {
	aborted := make(chan string, 2)
	got := make(chan struct{}, 2)
	srv := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			fmt.Fprint(w, strings.Repeat("x", 4096))
			return
		}
		got <- struct{}{}
		<-r.Context().Done()
		aborted <- r.URL.Path
	})
	s := servePlugin(t, netGuest(t), "net", `{"net":["`+srv.Origin+`"],"maxResponse":"1KiB","timeout":"1s"}`)
	wantToolError(t, s.call(t, "fetch", request(t, srv.URL+"/big")), "status 2", "maxResponse of 1024 bytes")

	res := s.call(t, "fetch", request(t, srv.URL+"/silent"))
	if !res.IsError || !strings.Contains(strings.ToLower(text(res)), "deadline") {
		t.Errorf("a server that never answers: %s", mustJSON(t, res))
	}
	<-got
	if p := <-aborted; p != "/silent" {
		t.Errorf("aborted %s", p)
	}

	ctx, cancel := context.WithCancel(testContext(t))
	go func() {
		<-got
		cancel()
	}()
	if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: json.RawMessage(request(t, srv.URL+"/cancelled"))}); err == nil {
		t.Error("a cancelled call returned a result")
	}
	if p := <-aborted; p != "/cancelled" {
		t.Errorf("aborted %s", p)
	}
}

func hello(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "hello") }

// A Go guest using net/http's client (sdk-guest/go/testdata/httpguest,
// built here) reaches an allowed origin and is refused another.
func TestNetGoGuestWithNetHTTP(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	module := filepath.Join(t.TempDir(), "httpguest.wasm")
	cmd := exec.CommandContext(testContext(t), "go", "build", "-buildmode=c-shared", "-o", module, "./testdata/httpguest")
	cmd.Dir = filepath.Join(root, "sdk-guest", "go")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the Go guest: %v\n%s", err, out)
	}
	allowed := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "%s %s from %s", r.Method, r.URL.Path, r.Header.Get("X-Guest"))
	})
	refused := egresstest.NewServer(t, false, hello)
	s := servePlugin(t, module, "httpguest", `{"net":["`+allowed.Origin+`"]}`)
	res := s.call(t, "get", `{"url":"`+allowed.URL+`/x","method":"POST"}`)
	wantOK(t, res)
	var r struct {
		Status      int    `json:"status"`
		ContentType string `json:"contentType"`
		Body        string `json:"body"`
	}
	structured(t, res, &r)
	if r.Status != 200 || r.Body != "POST /x from httpguest" || r.ContentType != "text/plain" {
		t.Errorf("response %+v", r)
	}
	wantToolError(t, s.call(t, "get", `{"url":"`+refused.URL+`/"}`), refused.Origin+" is not in plugin httpguest's net policy")
	if refused.Conns() != 0 {
		t.Errorf("the refused server counted %d connections", refused.Conns())
	}
}

// The TypeScript SDK's client sees an allowed fetch succeed and a refused
// one as a tool error naming the rule (e2e/ts/net.mjs).
func TestNetWithTheTypeScriptClient(t *testing.T) {
	node, script := typescriptParser(t)
	script = filepath.Join(filepath.Dir(script), "net.mjs")
	allowed := egresstest.NewServer(t, false, hello)
	refused := egresstest.NewServer(t, false, hello)
	dir := t.TempDir()
	copyFile(t, netGuest(t), filepath.Join(dir, "net.wasm"))
	config := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(config, []byte(`{"plugins":{"net":{"net":["`+allowed.Origin+`"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(testContext(t), node, script, binPath, dir, cacheDir, config, allowed.URL+"/", refused.URL+"/")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"allowed ok status=200 body=hello",
		"refused isError status 5 " + refused.Origin + " is not in plugin net's net policy",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if refused.Conns() != 0 {
		t.Errorf("the refused server counted %d connections", refused.Conns())
	}
}
