package nethttp_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
	"github.com/wasmcp/wasmcp/sdk-guest/go/nethttp"
	"github.com/wasmcp/wasmcp/sdk-guest/go/wasmcptest"
)

type page struct {
	Status int    `json:"status"`
	Body   string `json:"body"`
}

var client = &http.Client{Transport: nethttp.Transport{}}

func init() {
	wasmcp.AddTool("fetch", "Fetches a URL.", func(in struct {
		URL string `json:"url"`
	}) (page, error) {
		req, err := http.NewRequest(http.MethodPost, in.URL, strings.NewReader("question"))
		if err != nil {
			return page{}, err
		}
		req.Header.Set("Accept", "text/plain")
		req.Header.Set("Connection", "close") // the host's to write: not sent
		resp, err := client.Do(req)
		if err != nil {
			return page{}, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return page{resp.StatusCode, string(b)}, err
	})
}

func TestTransportThroughTheSDK(t *testing.T) {
	wasmcptest.ServeHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprintf(w, "%s %s %s accept=%s connection=%q", r.Method, r.URL, body, r.Header.Get("Accept"), r.Header.Get("Connection"))
	}))
	res := wasmcptest.Call(t, "fetch", map[string]any{"url": "https://api.example/q?x=1"})
	var p page
	res.Decode(t, &p)
	if want := `POST https://api.example/q?x=1 question accept=text/plain connection=""`; p.Status != 202 || p.Body != want {
		t.Errorf("page %+v, want 202 %q", p, want)
	}
}

func TestTransportResponse(t *testing.T) {
	wasmcptest.ServeHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Set-Cookie", "a=1")
		w.Header().Add("Set-Cookie", "b=2")
		http.Error(w, "nope", http.StatusNotFound)
	}))
	resp, err := client.Get("http://example.test/missing")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 404 || resp.Status != "404 Not Found" || string(body) != "nope\n" || resp.ContentLength != 5 ||
		strings.Join(resp.Header.Values("Set-Cookie"), ",") != "a=1,b=2" || resp.Request.URL.String() != "http://example.test/missing" {
		t.Errorf("response %+v, body %q", resp, body)
	}
}

// Outside a host, without a handler, a request fails as unsupported.
func TestTransportWithoutAHost(t *testing.T) {
	_, err := client.Get("https://example.org/")
	if !errors.Is(err, wasmcp.ErrUnsupported) {
		t.Errorf("error %v, want ErrUnsupported", err)
	}
	var re *wasmcp.RequestError
	if !errors.As(err, &re) || !strings.Contains(re.Message, "wasmcptest.ServeHTTP") {
		t.Errorf("error %v", err)
	}
}
