package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/internal/egresstest"
)

// netPolicy is a policy giving plugin "net" the settings settings, a JSON
// object.
func netPolicy(t *testing.T, settings string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse([]byte(`{"plugins":{"net":`+settings+`}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// netHost serves testdata/net.wasm, whose tool fetch makes the request its
// arguments are, as plugin "net" under the settings, with the test names of
// egresstest instead of DNS.
func netHost(t *testing.T, settings string) (*host.Host, *logs) {
	t.Helper()
	l := newLogs()
	h := newHost(t, "", l, testConfig(t).WithPolicy(netPolicy(t, settings)).WithResolver(egresstest.Names))
	if err := h.LoadFile(context.Background(), filepath.Join("testdata", "net.wasm")); err != nil {
		t.Fatal(err)
	}
	return h, l
}

// fetch calls the tool with the request and returns its result.
func fetch(t *testing.T, ctx context.Context, h *host.Host, req abi.HTTPRequest) *host.Result {
	t.Helper()
	args, _ := json.Marshal(req)
	res, err := h.Call(ctx, host.CallRequest{Tool: "fetch", Arguments: args})
	if err != nil {
		t.Fatalf("call fetch: %v", err)
	}
	return res
}

// response is the response of a successful fetch: the reply's head, and
// its body from the text.
func response(t *testing.T, res *host.Result) abi.HTTPResponse {
	t.Helper()
	var r abi.HTTPResponse
	if res.IsError || json.Unmarshal(res.StructuredContent, &r) != nil {
		t.Fatalf("fetch failed: %+v", res.Content)
	}
	r.Body = []byte(res.Content[0].Text)
	return r
}

// A body the guest sends after the head reaches the server whole, and the
// server's comes back after the reply's head.
func TestNetRequestBody(t *testing.T) {
	srv := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %d %s", r.Method, len(b), b)
	})
	h, _ := netHost(t, `{"net":["`+srv.Origin+`"]}`)
	args := `{"method":"PUT","url":"` + srv.URL + `"}`
	res, err := h.Call(t.Context(), host.CallRequest{Tool: "fetch_body", Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	if r := response(t, res); string(r.Body) != fmt.Sprintf("PUT %d %s", len(args), args) {
		t.Errorf("the server answered %q", r.Body)
	}
}

func hello(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "hello") }

func TestNetAllowedOrigins(t *testing.T) {
	plain := egresstest.NewServer(t, false, hello)
	tls := egresstest.NewServer(t, true, hello)
	h, l := netHost(t, `{"net":["`+plain.Origin+`","`+tls.Origin+`"],"caFile":"`+tls.WriteCA(t)+`"}`)
	for _, c := range []struct {
		name string
		srv  *egresstest.Server
	}{{"http", plain}, {"https", tls}} {
		t.Run(c.name, func(t *testing.T) {
			r := response(t, fetch(t, t.Context(), h, abi.HTTPRequest{URL: c.srv.URL + "/x"}))
			if r.Status != 200 || string(r.Body) != "hello" || r.URL != c.srv.URL+"/x" {
				t.Errorf("%s: %+v", c.srv.Origin, r)
			}
		})
	}
	line := l.wait(t, "net request", "origin="+tls.Origin)
	for _, want := range []string{"plugin=net", "tool=fetch", "method=GET", "outcome=ok", "status=200", "bytes=5", "duration="} {
		if !strings.Contains(line, want) {
			t.Errorf("audit line lacks %q: %s", want, line)
		}
	}
	// Allowed origins still reach nothing for a plugin the policy does not
	// name.
	if res := fetch(t, t.Context(), newNetHostAs(t, "other", plain.Origin), abi.HTTPRequest{URL: plain.URL}); !res.IsError ||
		!strings.Contains(res.Content[0].Text, "status 5 "+plain.Origin+" is not in plugin other's net policy") {
		t.Errorf("another plugin: %+v", res.Content)
	}
}

// newNetHostAs serves testdata/net.wasm under another plugin name, with
// the policy giving plugin "net" origin.
func newNetHostAs(t *testing.T, name, origin string) *host.Host {
	t.Helper()
	dir := t.TempDir()
	wasm, err := os.ReadFile(filepath.Join("testdata", "net.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	place(t, dir, name+".wasm", wasm)
	h := newHost(t, dir, nil, testConfig(t).WithPolicy(netPolicy(t, `{"net":["`+origin+`"]}`)))
	if err := h.LoadDir(t.Context()); err != nil {
		t.Fatal(err)
	}
	return h
}

// Every request the policy refuses is a tool error naming the rule, an
// audit line, and no connection to the server it would have reached.
func TestNetRefusedNeverConnect(t *testing.T) {
	allowed := egresstest.NewServer(t, false, hello)
	refused := egresstest.NewServer(t, false, hello)
	redirect := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	only := `{"net":["` + allowed.Origin + `","` + redirect.Origin + `"]}`
	public := `{"net":["*","` + redirect.Origin + `"]}`
	cases := []struct {
		name, policy, url, want string
	}{
		{"other port of an allowed host", only, refused.URL + "/", "status 5 " + refused.Origin + " is not in plugin net's net policy"},
		{"name not in the policy resolving to an allowed address", only, "http://evil.test:" + refused.Port + "/",
			"status 5 http://evil.test:" + refused.Port + " is not in plugin net's net policy"},
		{"allowed name resolving to loopback", `{"net":["http://internal.test:` + refused.Port + `"]}`, "http://internal.test:" + refused.Port + "/",
			"status 5 internal.test resolves to 127.0.0.1, which is not a public address (loopback)"},
		{"any public origin, a loopback address", public, refused.URL + "/", "status 5 127.0.0.1 is not a public address (loopback)"},
		{"the metadata address", public, "http://169.254.169.254/latest/meta-data/", "status 5 169.254.169.254 is not a public address (link-local)"},
		{"a name resolving to the metadata address", public, "http://metadata.test/", "status 5 metadata.test resolves to 169.254.169.254"},
		{"a name resolving to a mapped loopback", public, "http://mapped.test:" + refused.Port + "/", "status 5 mapped.test resolves to 127.0.0.1"},
		{"mapped loopback", public, "http://[::ffff:127.0.0.1]:" + refused.Port + "/", "status 5 http://[::ffff:127.0.0.1]:" + refused.Port + ": ambiguous host"},
		{"decimal loopback", public, "http://2130706433:" + refused.Port + "/", "status 5 http://2130706433:" + refused.Port + ": ambiguous host"},
		{"hex loopback", public, "http://0x7f.1:" + refused.Port + "/", "dotted decimal"},
		{"octal loopback", public, "http://017700000001:" + refused.Port + "/", "dotted decimal"},
		{"redirect to a refused origin", only, redirect.URL + "/?to=" + refused.URL + "/", "status 5 " + refused.Origin + " is not in plugin net's net policy"},
		{"redirect to loopback", public, redirect.URL + "/?to=http://evil.test:" + refused.Port + "/", "status 5 evil.test resolves to 127.0.0.1"},
		{"a file URL", public, "file:///etc/passwd", "status 3 http request: \\\"file:///etc/passwd\\\": only http and https URLs are allowed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, l := netHost(t, c.policy)
			res := fetch(t, t.Context(), h, abi.HTTPRequest{URL: c.url})
			if !res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, strings.ReplaceAll(c.want, `\"`, `"`)) {
				t.Errorf("result %+v, want a tool error with %q", res.Content, c.want)
			}
			if n := refused.Conns(); n != 0 {
				t.Errorf("the refused server counted %d connections", n)
			}
			line := l.wait(t, "net request")
			if !strings.Contains(line, "outcome=denied") && !strings.Contains(line, "outcome=invalid") || !strings.Contains(line, "reason=") {
				t.Errorf("audit line %s", line)
			}
		})
	}
	if n := allowed.Conns(); n != 0 {
		t.Errorf("the allowed server, never asked, counted %d connections", n)
	}
}

// Waiting on the network counts against the call's deadline: a server that
// never answers ends the call at its timeout, and the request is aborted.
func TestNetCallTimeout(t *testing.T) {
	aborted := make(chan struct{}, 1)
	srv := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		aborted <- struct{}{}
	})
	h, _ := netHost(t, `{"timeout":"300ms","net":["`+srv.Origin+`"]}`)
	res := fetch(t, t.Context(), h, abi.HTTPRequest{URL: srv.URL})
	if !res.IsError || !(errors.Is(res.Failure, host.ErrTimeout) || strings.Contains(res.Content[0].Text, "status 4 GET "+srv.Origin+": the call was past its deadline")) {
		t.Errorf("result %+v (failure %v), want a timeout", res.Content, res.Failure)
	}
	<-aborted
}

// Cancelling the call aborts its request.
func TestNetCancellation(t *testing.T) {
	got, aborted := make(chan struct{}, 1), make(chan struct{}, 1)
	srv := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		got <- struct{}{}
		<-r.Context().Done()
		aborted <- struct{}{}
	})
	h, _ := netHost(t, `{"net":["`+srv.Origin+`"]}`)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-got
		cancel()
	}()
	args, _ := json.Marshal(abi.HTTPRequest{URL: srv.URL})
	res, err := h.Call(ctx, host.CallRequest{Tool: "fetch", Arguments: args})
	if err == nil && !errors.Is(res.Failure, host.ErrCanceled) {
		t.Errorf("result %+v, want the call cancelled", res)
	}
	<-aborted
}

// The policy's header reaches the server in place of the guest's, and the
// guest sees none of it.
func TestNetInjectedHeader(t *testing.T) {
	t.Setenv("NET_TEST_TOKEN", "s3cret")
	var mu sync.Mutex
	var seen []string
	srv := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		fmt.Fprint(w, "ok")
	})
	h, _ := netHost(t, `{"net":["`+srv.Origin+`"],"headers":{"`+srv.Origin+`":{"Authorization":"Bearer ${NET_TEST_TOKEN}"}}}`)
	res := fetch(t, t.Context(), h, abi.HTTPRequest{URL: srv.URL, Headers: []abi.HTTPHeader{{Name: "Authorization", Value: "guest"}}})
	response(t, res)
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(seen, []string{"Bearer s3cret"}) {
		t.Errorf("the server saw %q", seen)
	}
	doc, _ := json.Marshal(res)
	if strings.Contains(string(doc), "s3cret") {
		t.Errorf("the guest's result holds the secret: %s", doc)
	}
}

func TestNetResponseOverCap(t *testing.T) {
	srv := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, strings.Repeat("x", 4096))
	})
	h, _ := netHost(t, `{"net":["`+srv.Origin+`"],"maxResponse":"1KiB"}`)
	res := fetch(t, t.Context(), h, abi.HTTPRequest{URL: srv.URL})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "status 2 GET "+srv.Origin+": the response body is over plugin net's maxResponse of 1024 bytes") {
		t.Errorf("result %+v", res.Content)
	}
}

func TestInspectNetPermissions(t *testing.T) {
	path := filepath.Join("testdata", "net.wasm")
	cfg := testConfig(t).WithPolicy(netPolicy(t, `{"net":["https://api.github.com","https://*.example.com"]}`))
	r, err := host.Inspect(t.Context(), cfg, path)
	if err != nil || !r.Loadable {
		t.Fatalf("%v %+v", err, r)
	}
	if !slices.Equal(r.Requested.Net, []string{"*"}) || !slices.Equal(r.Granted.Net, []string{"https://api.github.com", "https://*.example.com"}) || len(r.Denied) != 0 {
		t.Errorf("requested %q, granted %+v, denied %q", r.Requested.Net, r.Granted, r.Denied)
	}
	if !slices.Contains(r.Imports, "wasmcp.http_request: (i32, i32) -> i64") {
		t.Errorf("imports %q", r.Imports)
	}
	r, err = host.Inspect(t.Context(), testConfig(t), path)
	if err != nil || r.Granted != nil || !slices.Equal(r.Denied, []string{"net *"}) {
		t.Errorf("without a policy: %v, granted %+v, denied %q", err, r.Granted, r.Denied)
	}
}
