package wasmcptest

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/guest"
)

var httpMu sync.Mutex

// ServeHTTP answers the HTTP requests tools make (wasmcp.HTTP, package
// nethttp) with h until the test ends, as the host answers them once its
// policy allowed them: h sees each request, and the tool gets h's response
// whatever its status. A request the host would refuse as invalid (a bad
// URL, method or header) gets abi.StatusInvalid here too. Redirects are
// not followed, and no net policy applies: test that against a host.
func ServeHTTP(t testing.TB, h http.Handler) {
	t.Helper()
	httpMu.Lock()
	prev := guest.HTTP
	guest.HTTP = func(doc []byte) (abi.ReplyStatus, []byte) { return serve(h, doc) }
	httpMu.Unlock()
	t.Cleanup(func() {
		httpMu.Lock()
		guest.HTTP = prev
		httpMu.Unlock()
	})
}

func serve(h http.Handler, doc []byte) (abi.ReplyStatus, []byte) {
	req, err := abi.DecodeHTTPRequest(doc)
	if err != nil {
		return abi.StatusInvalid, []byte("http request: " + err.Error())
	}
	if req.Method == "" {
		req.Method = http.MethodGet
	}
	r, err := http.NewRequest(req.Method, req.URL, bytes.NewReader(req.Body))
	if err != nil || (r.URL.Scheme != "http" && r.URL.Scheme != "https") || r.URL.Host == "" {
		return abi.StatusInvalid, fmt.Appendf(nil, "http request: %q is not an http or https URL (%v)", req.URL, err)
	}
	for _, hd := range req.Headers {
		r.Header.Add(hd.Name, hd.Value)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	res := rec.Result()
	out := abi.HTTPResponse{Status: res.StatusCode, URL: req.URL, Body: rec.Body.Bytes()}
	names := make([]string, 0, len(res.Header))
	for name := range res.Header {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, v := range res.Header[name] {
			out.Headers = append(out.Headers, abi.HTTPHeader{Name: name, Value: v})
		}
	}
	return abi.StatusOK, abi.EncodeHTTPResponse(out)
}
