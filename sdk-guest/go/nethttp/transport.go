// Package nethttp gives a wasmcp tool net/http's Client over the host's
// http_request (ABI.md section 5): requests go out through the host,
// within the operator's net policy for the plugin.
//
//	import (
//		"net/http"
//
//		_ "github.com/wasmcp/wasmcp/sdk-guest/go/nethttp"
//	)
//
//	resp, err := http.Get("https://api.github.com/repos/golang/go")
//
// In a module, importing the package makes http.DefaultTransport its
// Transport, so http.Get, http.DefaultClient and clients without a
// Transport of their own use the host; others take Transport{}. The module
// must ask for the origins it reaches (wasmcp.RequestPermissions). Run
// natively (go test), the package changes nothing, and Transport answers
// from the handler wasmcptest.ServeHTTP installs.
//
// The host follows redirects, checking each against the policy, so the
// Client's CheckRedirect sees none. A request the policy refuses fails with
// an error matching wasmcp.ErrDenied, naming the rule. A request's context
// cannot stop it early: the host ends it with the call's deadline. Bodies
// are read whole, both ways, within the policy's maxResponse.
//
// net/http adds several megabytes to a module; wasmcp.HTTP makes the same
// requests without it.
package nethttp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
)

// Transport is an http.RoundTripper that makes each request through the
// host. Its zero value is ready to use.
type Transport struct{}

var _ http.RoundTripper = Transport{}

// hostHeaders are the headers the host writes from the request itself; a
// client may carry them in its Header map, but the host refuses them.
var hostHeaders = []string{"Host", "Content-Length", "Transfer-Encoding", "Connection", "Te", "Trailer", "Upgrade"}

// RoundTrip implements http.RoundTripper.
func (Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	if req.Host != "" && req.Host != req.URL.Host {
		return nil, errors.New("nethttp: a Host other than the URL's is not supported")
	}
	r := wasmcp.HTTPRequest{Method: req.Method, URL: req.URL.String(), Body: body}
	names := make([]string, 0, len(req.Header))
	for name := range req.Header {
		if !slices.Contains(hostHeaders, http.CanonicalHeaderKey(name)) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		for _, v := range req.Header[name] {
			r.Headers = append(r.Headers, wasmcp.HTTPHeader{Name: name, Value: v})
		}
	}
	res, err := wasmcp.HTTP(r)
	if err != nil {
		return nil, err
	}
	return response(req, res)
}

func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, fmt.Errorf("nethttp: reading the request body: %w", err)
	}
	return body, nil
}

// response is res as net/http gives it. Its Request is req at the URL that
// answered, as the Client's is after redirects.
func response(req *http.Request, res *wasmcp.HTTPResponse) (*http.Response, error) {
	header := make(http.Header, len(res.Headers))
	for _, h := range res.Headers {
		header.Add(h.Name, h.Value)
	}
	answered := req
	if res.URL != "" && res.URL != req.URL.String() {
		u, err := url.Parse(res.URL)
		if err != nil {
			return nil, fmt.Errorf("nethttp: the host's response URL: %w", err)
		}
		answered = req.Clone(req.Context())
		answered.URL, answered.Host = u, ""
	}
	return &http.Response{
		Status:        strconv.Itoa(res.Status) + " " + http.StatusText(res.Status),
		StatusCode:    res.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          io.NopCloser(bytes.NewReader(res.Body)),
		ContentLength: int64(len(res.Body)),
		Request:       answered,
	}, nil
}
