package egress_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/egress"
	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/internal/egresstest"
)

// hello answers every request with "hello" and echoes nothing of it.
func hello(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("X-Server", "test")
	fmt.Fprint(w, "hello")
}

// records keeps the audit lines.
type records struct {
	mu    sync.Mutex
	lines []map[string]string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	line := map[string]string{"msg": rec.Message}
	rec.Attrs(func(a slog.Attr) bool { line[a.Key] = a.Value.String(); return true })
	r.mu.Lock()
	r.lines = append(r.lines, line)
	r.mu.Unlock()
	return nil
}

func (r *records) last(t *testing.T) map[string]string {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.lines) == 0 {
		t.Fatal("no audit line")
	}
	return r.lines[len(r.lines)-1]
}

// client returns the client of plugin "fetch" under the policy settings
// settings (a JSON object), for a module that requests every origin.
func client(t *testing.T, settings string, log *records) *egress.Client {
	t.Helper()
	return newClient(t, settings, log, egresstest.Names)
}

// clientWith is client with the resolver names.
func clientWith(t *testing.T, settings string, names egress.Resolver) *egress.Client {
	t.Helper()
	return newClient(t, settings, nil, names)
}

func newClient(t *testing.T, settings string, log *records, names egress.Resolver) *egress.Client {
	t.Helper()
	dir := t.TempDir()
	p, err := policy.Parse([]byte(`{"plugins":{"fetch":`+settings+`}}`), dir)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := p.Grant("fetch", &abi.Permissions{Net: []string{"*"}})
	if log == nil {
		log = &records{}
	}
	c, err := egress.New("fetch", g.Net, egress.Options{Logger: slog.New(log), Resolver: names})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// do makes the request req (encoded as the guest would) and returns the
// status and reply.
func do(t *testing.T, ctx context.Context, c *egress.Client, req any) (abi.ReplyStatus, string) {
	t.Helper()
	r, ok := req.(abi.HTTPRequest)
	if !ok {
		// A document, read as the wasmcp dialect reads a guest's.
		var err error
		if r, err = abi.DecodeHTTPRequest([]byte(req.(string))); err != nil {
			return guestReply(nil, c.Invalid(ctx, "get", "http request: "+err.Error()))
		}
	}
	return guestReply(c.Do(ctx, "get", r))
}

// guestReply is the status and reply a guest gets of Do's outcome (ABI.md
// section 5).
func guestReply(resp *abi.HTTPResponse, err error) (abi.ReplyStatus, string) {
	if f, ok := errors.AsType[*egress.Failure](err); ok {
		return f.Status, f.Reason
	}
	reply := string(abi.EncodeHTTPResponse(*resp))
	egress.Release(resp) // as the dialects do: every test reads into reused buffers
	return abi.StatusOK, reply
}

func response(t *testing.T, reply string) abi.HTTPResponse {
	t.Helper()
	r, err := abi.DecodeHTTPResponse([]byte(reply))
	if err != nil {
		t.Fatalf("reply %q: %v", reply, err)
	}
	return r
}

func get(url string) abi.HTTPRequest { return abi.HTTPRequest{URL: url} }

func TestAllowedOrigin(t *testing.T) {
	ctx := t.Context()
	srv := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		body := new(bytes.Buffer)
		body.ReadFrom(r.Body)
		w.Header().Add("X-Seen", r.Method+" "+r.URL.Path+" "+body.String()+" "+r.Header.Get("X-Guest"))
		w.Header().Add("Set-Cookie", "a=1")
		w.Header().Add("Set-Cookie", "b=2")
		w.WriteHeader(http.StatusTeapot)
		fmt.Fprint(w, "short and stout")
	})
	log := &records{}
	c := client(t, `{"net":["`+srv.Origin+`"]}`, log)
	status, reply := do(t, ctx, c, abi.HTTPRequest{Method: "POST", URL: srv.URL + "/tea?x=1", Body: []byte("milk"),
		Headers: []abi.HTTPHeader{{Name: "X-Guest", Value: "g"}}})
	if status != abi.StatusOK {
		t.Fatalf("status %v: %s", status, reply)
	}
	r := response(t, reply)
	if r.Status != http.StatusTeapot || string(r.Body) != "short and stout" || r.URL != srv.URL+"/tea?x=1" {
		t.Errorf("response %+v", r)
	}
	var seen, cookies []string
	for _, h := range r.Headers {
		switch h.Name {
		case "X-Seen":
			seen = append(seen, h.Value)
		case "Set-Cookie":
			cookies = append(cookies, h.Value)
		}
	}
	if strings.Join(seen, ",") != "POST /tea milk g" || strings.Join(cookies, ",") != "a=1,b=2" {
		t.Errorf("headers %+v", r.Headers)
	}
	line := log.last(t)
	for k, v := range map[string]string{"msg": "net request", "plugin": "fetch", "tool": "get", "method": "POST",
		"origin": srv.Origin, "outcome": "ok", "status": "418", "bytes": "15"} {
		if line[k] != v {
			t.Errorf("audit %s = %q, want %q (%v)", k, line[k], v, line)
		}
	}
}

func TestTLS(t *testing.T) {
	ctx := t.Context()
	srv := egresstest.NewServer(t, true, hello)
	ca := srv.WriteCA(t)
	c := client(t, `{"net":["`+srv.Origin+`"],"caFile":"`+ca+`"}`, nil)
	if status, reply := do(t, ctx, c, get(srv.URL+"/")); status != abi.StatusOK || string(response(t, reply).Body) != "hello" {
		t.Errorf("with the CA file: %v %s", status, reply)
	}
	// Without it the server's certificate is not trusted.
	c = client(t, `{"net":["`+srv.Origin+`"]}`, nil)
	if status, reply := do(t, ctx, c, get(srv.URL+"/")); status != abi.StatusFailed || !strings.Contains(reply, "certificate") {
		t.Errorf("without the CA file: %v %s", status, reply)
	}
}

// The metadata address is refused before a socket connects: wherever the
// name or the URL leads, however the policy matches it.
func TestMetadataAddressRefused(t *testing.T) {
	ctx := t.Context()
	c := client(t, `{"net":["*"]}`, nil)
	for _, tc := range []struct{ name, url, want string }{
		{"literal", "http://169.254.169.254/latest/meta-data/", "169.254.169.254 is not a public address (link-local)"},
		{"name", "http://metadata.test/computeMetadata/v1/", "metadata.test resolves to 169.254.169.254"},
		{"IPv4-mapped", "http://[::ffff:a9fe:a9fe]/", "IPv4 address in IPv6 form"},
		{"NAT64", "http://[64:ff9b::a9fe:a9fe]/", "(NAT64, embedding link-local 169.254.169.254)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if status, reply := do(t, ctx, c, get(tc.url)); status != abi.StatusDenied || !strings.Contains(reply, tc.want) {
				t.Errorf("%s: %v %q, want denied with %q", tc.url, status, reply, tc.want)
			}
		})
	}
	c = client(t, `{"net":["https://169.254.169.254"]}`, nil)
	if status, reply := do(t, ctx, c, get("http://169.254.169.254/")); status != abi.StatusDenied ||
		reply != "http://169.254.169.254 is not in plugin fetch's net policy" {
		t.Errorf("%v %q", status, reply)
	}
}

// Every address the IANA special-purpose registries do not call globally
// reachable, and every form embedding one, is refused under "*" before a
// socket connects, whether the URL names it or a name resolves to it.
func TestReservedAddressesRefused(t *testing.T) {
	ctx := t.Context()
	names := egresstest.Resolver{}
	var cases []struct{ name, url, want string }
	for addr, why := range map[string]string{
		"192.0.2.1":                            "(documentation (TEST-NET-1))",
		"198.51.100.1":                         "(documentation (TEST-NET-2))",
		"203.0.113.1":                          "(documentation (TEST-NET-3))",
		"2001:db8::1":                          "(documentation)",
		"3fff::1":                              "(documentation)",
		"192.0.0.8":                            "(IPv4 dummy address)",
		"2001:2::1":                            "(benchmarking)",
		"100:0:0:1::1":                         "(dummy IPv6 prefix)",
		"5f00::1":                              "(segment routing (SRv6) SIDs)",
		"64:ff9b:1::808:808":                   "(local-use NAT64)",
		"2001:0:4136:e378:8000:63bf:f7f7:f7f7": "(Teredo)",
		"2001:0:4136:e378:8000:63bf:80ff:fffe": "(Teredo, embedding loopback 127.0.0.1 as its client)",
		"::ffff:0:7f00:1":                      "(IPv4-translated (SIIT), embedding loopback 127.0.0.1)",
		"::ffff:0:808:808":                     "(IPv4-translated (SIIT))",
		"::7f00:1":                             "(IPv4-compatible (deprecated), embedding loopback 127.0.0.1)",
		"2002:a9fe:a9fe::":                     "(6to4, embedding link-local 169.254.169.254)",
		"64:ff9b::7f00:1":                      "(NAT64, embedding loopback 127.0.0.1)",
	} {
		a := netip.MustParseAddr(addr)
		name := strings.NewReplacer(":", "-", ".", "-").Replace(addr) + ".test"
		names[name] = []netip.Addr{a}
		cases = append(cases,
			struct{ name, url, want string }{addr, "http://" + netip.AddrPortFrom(a, 80).String() + "/", addr + " is not a public address " + why},
			struct{ name, url, want string }{name, "http://" + name + "/", name + " resolves to " + addr + ", which is not a public address " + why})
	}
	c := clientWith(t, `{"net":["*"]}`, names)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if status, reply := do(t, ctx, c, get(tc.url)); status != abi.StatusDenied || !strings.HasPrefix(reply, tc.want) {
				t.Errorf("%s: %v %q, want denied with %q", tc.url, status, reply, tc.want)
			}
		})
	}
}

// The policy may name a private address as an origin, or allow the
// private network; a name then reaches it too.
func TestPrivateAddressesTheOperatorAllows(t *testing.T) {
	ctx := t.Context()
	srv := egresstest.NewServer(t, false, hello)
	for _, tc := range []struct{ name, policy string }{
		{"privateNetwork", `{"net":["http://internal.test:` + srv.Port + `"],"privateNetwork":true}`},
		{"origin", `{"net":["http://internal.test:` + srv.Port + `","` + srv.Origin + `"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := client(t, tc.policy, nil)
			if status, reply := do(t, ctx, c, get("http://internal.test:"+srv.Port+"/")); status != abi.StatusOK {
				t.Errorf("%s: %v %s", tc.policy, status, reply)
			}
		})
	}
}

func TestInvalidRequests(t *testing.T) {
	ctx := t.Context()
	srv := egresstest.NewServer(t, false, hello)
	c := client(t, `{"net":["*"],"privateNetwork":true}`, nil)
	for i, c2 := range []struct {
		req  any
		want string
	}{
		{"not json", "the head is not a request object"},
		{"{\"url\":\"" + srv.URL + "\",\"body\":\"aGk=\"}", "after a line feed"},
		{`{"url":"` + srv.URL + `","headers":[["A"]]}`, "two strings"},
		{"{\"url\":\n\"" + srv.URL + "\"}", "the head is not a request object"},
		{get("file:///etc/passwd"), "only http and https"},
		{get("ftp://example.com/"), "only http and https"},
		{get("http://user:pw@" + srv.Listener.Addr().String() + "/"), "credentials"},
		{get("http:///nohost"), "not an absolute URL"},
		{abi.HTTPRequest{Method: "GET POST", URL: srv.URL}, "not an HTTP token"},
		{abi.HTTPRequest{Method: "TRACE", URL: srv.URL}, "not allowed"},
		{abi.HTTPRequest{Method: "CONNECT", URL: srv.URL}, "not allowed"},
		{abi.HTTPRequest{URL: srv.URL, Headers: []abi.HTTPHeader{{Name: "X", Value: "a\r\nY: b"}}}, "control character"},
		{abi.HTTPRequest{URL: srv.URL, Headers: []abi.HTTPHeader{{Name: "Host", Value: "other"}}}, "set by the host"},
		{abi.HTTPRequest{Method: "POST", URL: srv.URL, Body: make([]byte, abi.MaxHTTPRequestSize)}, "over the limit"},
		// Tiny headers filling the document cost the host fifty times its
		// size.
		{abi.HTTPRequest{URL: srv.URL, Headers: slices.Repeat([]abi.HTTPHeader{{Name: "H", Value: "v"}}, abi.MaxHTTPHeadSize/9)}, "the head of"},
		// Servers that read methods regardless of case echo the policy's
		// headers to a "trace" too.
		{abi.HTTPRequest{Method: "trace", URL: srv.URL}, "not allowed"},
		{abi.HTTPRequest{Method: "Connect", URL: srv.URL}, "not allowed"},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if status, reply := do(t, ctx, c, c2.req); status != abi.StatusInvalid || !strings.Contains(reply, c2.want) {
				t.Errorf("%v: %v %q, want invalid with %q", c2.req, status, reply, c2.want)
			}
		})
	}
	if n := srv.Conns(); n != 0 {
		t.Errorf("invalid requests made %d connections", n)
	}
}

func TestRedirects(t *testing.T) {
	ctx := t.Context()
	target := egresstest.NewServer(t, false, hello)
	var hops atomic.Int64
	loop := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		hops.Add(1)
		http.Redirect(w, r, "/again", http.StatusFound)
	})
	redirect := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/there", http.StatusMovedPermanently)
	})
	c := client(t, `{"net":["`+redirect.Origin+`","`+target.Origin+`","`+loop.Origin+`"]}`, nil)
	status, reply := do(t, ctx, c, get(redirect.URL+"/here"))
	if r := response(t, reply); status != abi.StatusOK || r.URL != target.URL+"/there" || string(r.Body) != "hello" {
		t.Errorf("%v %s", status, reply)
	}
	status, reply = do(t, ctx, c, get(loop.URL+"/"))
	if status != abi.StatusFailed || !strings.Contains(reply, "stopped after 5 redirects") || hops.Load() != 6 {
		t.Errorf("%v %q after %d requests", status, reply, hops.Load())
	}
}

// The policy's headers reach the server, replace the guest's, never follow
// a redirect to another origin, and are not in what the guest gets back.
func TestInjectedHeaders(t *testing.T) {
	ctx := t.Context()
	t.Setenv("TEST_TOKEN", "s3cret")
	var mu sync.Mutex
	got := map[string][]string{}
	record := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			got[name] = append(got[name], r.Header.Get("Authorization")+"|"+r.Header.Get("X-Other"))
			mu.Unlock()
			if to := r.URL.Query().Get("to"); to != "" {
				http.Redirect(w, r, to, http.StatusFound)
				return
			}
			fmt.Fprint(w, "ok")
		}
	}
	api := egresstest.NewServer(t, false, record("api"))
	other := egresstest.NewServer(t, false, record("other"))
	c := client(t, `{"net":["`+api.Origin+`","`+other.Origin+`"],
		"headers":{"`+api.Origin+`":{"Authorization":"Bearer ${TEST_TOKEN}"}}}`, nil)
	status, reply := do(t, ctx, c, abi.HTTPRequest{URL: api.URL + "/?to=" + other.URL + "/",
		Headers: []abi.HTTPHeader{{Name: "Authorization", Value: "guest"}, {Name: "X-Other", Value: "kept"}}})
	if status != abi.StatusOK {
		t.Fatalf("%v %s", status, reply)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got["api"], ",") != "Bearer s3cret|kept" {
		t.Errorf("api saw %q", got["api"])
	}
	// The client strips the guest's own Authorization on a redirect to
	// another host; the policy's never reaches it either.
	if len(got["other"]) != 1 || strings.Contains(got["other"][0], "s3cret") {
		t.Errorf("other saw %q", got["other"])
	}
	if strings.Contains(reply, "s3cret") || strings.Contains(reply, "Bearer") {
		t.Errorf("the guest sees the secret: %s", reply)
	}
}

func TestResponseCap(t *testing.T) {
	ctx := t.Context()
	big := strings.Repeat("x", 2<<10)
	srv := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			w.(http.Flusher).Flush() // no Content-Length
		}
		fmt.Fprint(w, big)
	})
	c := client(t, `{"net":["`+srv.Origin+`"],"maxResponse":"1KiB"}`, nil)
	for _, tc := range []struct{ name, path string }{{"length", "/"}, {"chunked", "/chunked"}} {
		t.Run(tc.name, func(t *testing.T) {
			if status, reply := do(t, ctx, c, get(srv.URL+tc.path)); status != abi.StatusFailed || !strings.Contains(reply, "maxResponse of 1024 bytes") {
				t.Errorf("%s: %v %q", tc.path, status, reply)
			}
		})
	}
	c = client(t, `{"net":["`+srv.Origin+`"],"maxResponse":2048}`, nil)
	if status, reply := do(t, ctx, c, get(srv.URL+"/chunked")); status != abi.StatusOK || len(response(t, reply).Body) != len(big) {
		t.Errorf("at the cap: %v", status)
	}
}

// A request ends with its call: at the deadline or on cancellation the
// server sees the request aborted and the guest gets timeout.
func TestDeadlineAndCancellation(t *testing.T) {
	got, aborted := make(chan struct{}, 2), make(chan struct{}, 2)
	srv := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		got <- struct{}{}
		<-r.Context().Done()
		aborted <- struct{}{}
	})
	c := client(t, `{"net":["`+srv.Origin+`"]}`, nil)

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if status, reply := do(t, ctx, c, get(srv.URL+"/")); status != abi.StatusTimeout || !strings.Contains(reply, "past its deadline") {
		t.Errorf("deadline: %v %q", status, reply)
	}
	<-got
	<-aborted

	ctx, cancel = context.WithCancel(t.Context())
	go func() {
		<-got // cancel once the server has the request
		cancel()
	}()
	if status, reply := do(t, ctx, c, get(srv.URL+"/")); status != abi.StatusTimeout || !strings.Contains(reply, "cancelled") {
		t.Errorf("cancellation: %v %q", status, reply)
	}
	<-aborted
}

// A plugin has at most maxRequests requests in flight; one over waits, and
// gives up with its call.
func TestMaxRequests(t *testing.T) {
	release := make(chan struct{})
	var seen atomic.Int64
	srv := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		<-release
	})
	c := client(t, `{"net":["`+srv.Origin+`"],"maxRequests":1}`, nil)
	first := make(chan abi.ReplyStatus)
	go func() {
		status, _ := guestReply(c.Do(t.Context(), "get", get(srv.URL)))
		first <- status
	}()
	for seen.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if status, reply := do(t, ctx, c, get(srv.URL+"/")); status != abi.StatusTimeout || !strings.Contains(reply, "1 requests in flight") {
		t.Errorf("second request: %v %q", status, reply)
	}
	close(release)
	if status := <-first; status != abi.StatusOK || seen.Load() != 1 {
		t.Errorf("first request %v, server saw %d", status, seen.Load())
	}
}

// Proxy environment variables are ignored: only a proxy the policy names
// is used.
func TestProxyEnvironmentIgnored(t *testing.T) {
	proxy := egresstest.NewServer(t, false, hello)
	srv := egresstest.NewServer(t, false, hello)
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	c := client(t, `{"net":["`+srv.Origin+`"]}`, nil)
	if status, reply := do(t, t.Context(), c, get(srv.URL+"/")); status != abi.StatusOK {
		t.Fatalf("%v %s", status, reply)
	}
	if proxy.Conns() != 0 || srv.Conns() != 1 {
		t.Errorf("proxy %d connections, server %d", proxy.Conns(), srv.Conns())
	}

	// A proxy the policy names gets the request, and an address the URL
	// names is still checked.
	var proxied atomic.Value
	named := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		proxied.Store(r.URL.String())
		fmt.Fprint(w, "via proxy")
	})
	c = client(t, `{"net":["http://example.test","*"],"proxy":"`+named.URL+`"}`, nil)
	if status, reply := do(t, t.Context(), c, get("http://example.test/x")); status != abi.StatusOK || string(response(t, reply).Body) != "via proxy" {
		t.Errorf("through the proxy: %v %s", status, reply)
	}
	if proxied.Load() != "http://example.test/x" {
		t.Errorf("the proxy saw %v", proxied.Load())
	}
	if status, reply := do(t, t.Context(), c, get("http://127.0.0.1:"+srv.Port+"/")); status != abi.StatusDenied {
		t.Errorf("a loopback URL through the proxy: %v %s", status, reply)
	}
}

func TestNoGrantDeniesEverything(t *testing.T) {
	c, err := egress.New("fetch", policy.Net{}, egress.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	status, got := guestReply(c.Do(t.Context(), "get", get("https://example.org/")))
	if status != abi.StatusDenied || got != "https://example.org is not in plugin fetch's net policy" {
		t.Errorf("%v %q", status, got)
	}
}

// Bodies cross the boundary byte for byte, both ways: line feeds, NULs and
// bytes that are not UTF-8 included, and empty ones stay empty.
func TestBinaryBodies(t *testing.T) {
	srv := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Write(b)
	})
	c := client(t, `{"net":["`+srv.Origin+`"]}`, nil)
	for _, tc := range []struct {
		name string
		body []byte
	}{{"binary", []byte("\x00\n{\"a\":1}\n\xff\r\n")}, {"newline", []byte{'\n'}}, {"empty", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			status, reply := do(t, t.Context(), c, abi.HTTPRequest{Method: "POST", URL: srv.URL, Body: tc.body})
			if status != abi.StatusOK {
				t.Fatalf("status %v: %s", status, reply)
			}
			if r := response(t, reply); !bytes.Equal(r.Body, tc.body) || r.Headers[0] != (abi.HTTPHeader{Name: "Content-Length", Value: strconv.Itoa(len(tc.body))}) {
				t.Errorf("body %q came back as %q, headers %v", tc.body, r.Body, r.Headers)
			}
		})
	}
}

// Bodies read into released buffers are each whole and their own: chunked
// bodies (of no stated length) of decreasing and increasing sizes, one
// after another, and an answer kept across the next request.
func TestReleasedBodies(t *testing.T) {
	srv := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		for i := range n {
			w.Write([]byte{byte('a' + i%26)})
			if i%4096 == 0 {
				w.(http.Flusher).Flush() // chunked: no Content-Length
			}
		}
	})
	c := client(t, `{"net":["`+srv.Origin+`"]}`, nil)
	want := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + i%26)
		}
		return b
	}
	var kept *abi.HTTPResponse
	for _, n := range []int{70000, 10, 0, 200000, 5000, 70000} {
		resp, err := c.Do(t.Context(), "get", get(srv.URL+"?n="+strconv.Itoa(n)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(resp.Body, want(n)) {
			t.Fatalf("n=%d: a body of %d bytes, not the %d sent", n, len(resp.Body), n)
		}
		if kept != nil {
			if !bytes.Equal(kept.Body, want(200000)) {
				t.Fatal("a body not released was overwritten by the next request")
			}
			egress.Release(kept)
			kept = nil
		}
		if n == 200000 {
			kept = resp
			continue
		}
		egress.Release(resp)
		if resp.Body != nil {
			t.Error("Release left the body in the response")
		}
	}
}
