//go:build !wasip1

package assemblyscript_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/internal/egresstest"
)

// TestHTTPImportOnlyWhenUsed checks, with the host's own report (what
// `wasmcp inspect` prints), that only a module calling http imports
// http_request: the example tools make no request and so load on hosts
// that predate it.
func TestHTTPImportOnlyWhenUsed(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{"../../examples/assemblyscript/examples.ts", false},
		{"tests/httpguest.ts", true},
	} {
		r, err := host.Inspect(t.Context(), quietConfig(), compile(t, c.src))
		if err != nil {
			t.Fatal(err)
		}
		imports := strings.Join(r.Imports, "\n")
		for _, name := range []string{abi.ImportHTTPRequest, abi.ImportReadReply} {
			if got := strings.Contains(imports, abi.ImportModule+"."+name); got != c.want {
				t.Errorf("%s: imports %s: %v, want %v (imports:\n%s)", c.src, name, got, c.want, imports)
			}
		}
	}
}

func quietConfig() host.Config {
	return host.NewConfig().WithCacheDir("").WithLogger(slog.New(slog.DiscardHandler))
}

// httpGuest serves tests/httpguest.ts as plugin "httpguest" under the policy
// settings, a JSON object.
func httpGuest(t *testing.T, settings string) *host.Host {
	t.Helper()
	p, err := policy.Parse([]byte(`{"plugins":{"httpguest":`+settings+`}}`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(t.Context(), quietConfig().WithPolicy(p))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	wasm := compile(t, "tests/httpguest.ts")
	module := filepath.Join(t.TempDir(), "httpguest.wasm")
	data, err := os.ReadFile(wasm)
	if err == nil {
		err = os.WriteFile(module, data, 0o644)
	}
	if err == nil {
		err = h.LoadFile(t.Context(), module)
	}
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// guestRequest is the arguments of the guest's tool; guestResponse its
// structured content.
type guestRequest struct {
	URL     string      `json:"url"`
	Method  string      `json:"method,omitempty"`
	Headers [][2]string `json:"headers,omitempty"`
	Body    []int       `json:"body,omitempty"`
}

type guestResponse struct {
	Status  int         `json:"status"`
	URL     string      `json:"url"`
	Headers [][2]string `json:"headers"`
	Body    []byte      `json:"body"`
}

func request(t *testing.T, h *host.Host, req guestRequest) *host.Result {
	t.Helper()
	args, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Call(t.Context(), host.CallRequest{Tool: "request", Arguments: args})
	if err != nil {
		t.Fatalf("call request: %v", err)
	}
	return res
}

func response(t *testing.T, res *host.Result) guestResponse {
	t.Helper()
	var r guestResponse
	if res.IsError || json.Unmarshal(res.StructuredContent, &r) != nil {
		t.Fatalf("request failed: %+v", res.Content)
	}
	return r
}

// seen is what the server received of one request.
type seen struct {
	method, contentLength string
	header                http.Header
	body                  []byte
}

// TestHTTPThroughHost makes requests with http() from a module the real host
// runs, to a server on 127.0.0.1 that the policy allows, and to one it does
// not.
func TestHTTPThroughHost(t *testing.T) {
	// Buffered, so that the handler never waits on a failed subtest.
	got := make(chan seen, 16)
	drain := func() {
		for len(got) > 0 {
			<-got
		}
	}
	allowed := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.Header.Get("Content-Length"), r.Header, body}
		w.Header().Add("X-Multi", "b")
		w.Header().Add("X-Multi", "a")
		w.Header().Set("Content-Type", "application/octet-stream")
		if r.URL.Path == "/echo" {
			w.Write(body)
		}
	})
	refused := egresstest.NewServer(t, false, func(http.ResponseWriter, *http.Request) {})
	h := httpGuest(t, `{"net":["`+allowed.Origin+`"]}`)

	t.Run("get", func(t *testing.T) {
		drain()
		r := response(t, request(t, h, guestRequest{URL: allowed.URL + "/empty?q=1",
			Headers: [][2]string{{"X-Trace", "a"}, {"X-Trace", "b"}}}))
		s := <-got
		if s.method != "GET" || len(s.body) != 0 || !slices.Equal(s.header.Values("X-Trace"), []string{"a", "b"}) {
			t.Errorf("server saw %s %q, headers %v", s.method, s.body, s.header)
		}
		if r.Status != 200 || r.URL != allowed.URL+"/empty?q=1" || len(r.Body) != 0 {
			t.Errorf("response %+v", r)
		}
		// Headers come sorted by name, a name once per value in the
		// server's order.
		var multi []string
		for _, hd := range r.Headers {
			if hd[0] == "X-Multi" {
				multi = append(multi, hd[1])
			}
		}
		if !slices.Equal(multi, []string{"b", "a"}) || !slices.IsSortedFunc(r.Headers, func(a, b [2]string) int {
			return strings.Compare(a[0], b[0])
		}) || !slices.Contains(r.Headers, [2]string{"Content-Type", "application/octet-stream"}) {
			t.Errorf("headers %q", r.Headers)
		}
	})

	t.Run("binary post", func(t *testing.T) {
		drain()
		body := []byte("line\n\x00\xff\r\n{\"a\":1}\n\x00")
		ints := make([]int, len(body))
		for i, b := range body {
			ints[i] = int(b)
		}
		r := response(t, request(t, h, guestRequest{URL: allowed.URL + "/echo", Method: "POST", Body: ints,
			Headers: [][2]string{{"Content-Type", "application/octet-stream"}}}))
		s := <-got
		if s.method != "POST" || !bytes.Equal(s.body, body) || s.contentLength != strconv.Itoa(len(body)) {
			t.Errorf("server saw %s %q (Content-Length %q)", s.method, s.body, s.contentLength)
		}
		if r.Status != 200 || !bytes.Equal(r.Body, body) {
			t.Errorf("echoed %q, want %q", r.Body, body)
		}
	})

	t.Run("empty body", func(t *testing.T) {
		drain()
		r := response(t, request(t, h, guestRequest{URL: allowed.URL + "/echo", Method: "PUT", Body: []int{}}))
		if s := <-got; s.method != "PUT" || len(s.body) != 0 {
			t.Errorf("server saw %s %q", s.method, s.body)
		}
		if r.Status != 200 || len(r.Body) != 0 {
			t.Errorf("response %+v", r)
		}
	})

	for _, c := range []struct {
		name string
		req  guestRequest
		want string
	}{
		{"denied", guestRequest{URL: refused.URL + "/"},
			"status 5: " + refused.Origin + " is not in plugin httpguest's net policy"},
		{"invalid", guestRequest{URL: allowed.URL + "/", Headers: [][2]string{{"Host", "example.org"}}}, "status 3: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			drain()
			res := request(t, h, c.req)
			if !res.IsError || len(res.Content) == 0 || !strings.HasPrefix(res.Content[0].Text, c.want) {
				t.Errorf("result %+v, want a tool error starting %q", res.Content, c.want)
			}
		})
	}
	if n := refused.Conns(); n != 0 {
		t.Errorf("the refused server accepted %d connections", n)
	}
	select {
	case s := <-got:
		t.Errorf("the invalid request reached the server: %+v", s)
	default:
	}
}
