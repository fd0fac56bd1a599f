// Package egress makes the HTTP requests of guests (wasmcp.http_request,
// ABI.md section 5) within the operator's net policy for their plugin.
//
// Every request, and every redirect it follows, must have an origin the
// plugin was granted (policy.Net); every address the client connects to
// must be public unless the policy names it or sets privateNetwork, checked
// when the socket connects (dial.go). A refused server is never contacted.
// The headers the policy attaches to an origin are added on the way out,
// after the guest's, and are never part of what the guest gets back. Each
// request is one audit line, "net request".
package egress

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/telemetry"
	"github.com/wasmcp/wasmcp/host/policy"
)

// MaxRedirects is how many redirects one request may follow.
const MaxRedirects = 5

// Options configure New.
type Options struct {
	// Logger receives the audit lines. Nil means slog.Default().
	Logger *slog.Logger
	// Resolver looks up host names. Nil means net.DefaultResolver.
	Resolver Resolver
	// Instruments count the requests (telemetry.Instruments.NetRequests).
	// Nil counts nothing.
	Instruments *telemetry.Instruments
}

// Client makes the requests of one plugin's guests. It is safe for
// concurrent use; its connections are the plugin's own.
type Client struct {
	plugin    string
	grant     policy.Net
	log       *slog.Logger
	requests  metric.Int64Counter
	tracer    trace.Tracer
	dialer    *dialer
	transport *http.Transport
	client    http.Client
	// slots bounds the requests in flight (policy maxRequests).
	slots chan struct{}
}

// New returns the client of plugin under grant. A zero grant gives a client
// that denies every request. The error is for a CA file that cannot be
// read.
func New(plugin string, grant policy.Net, opts Options) (*Client, error) {
	inst := opts.Instruments
	if inst == nil {
		inst = telemetry.Noop()
	}
	c := &Client{plugin: plugin, grant: grant, log: opts.Logger, requests: inst.NetRequests, tracer: inst.Tracer}
	if c.log == nil {
		c.log = slog.Default()
	}
	if grant.IsZero() {
		return c, nil
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if grant.CAFile != "" {
		roots, err := systemRootsAnd(grant.CAFile)
		if err != nil {
			return nil, fmt.Errorf("net policy of %s: caFile: %w", plugin, err)
		}
		tlsConfig.RootCAs = roots
	}
	c.dialer = newDialer(plugin, opts.Resolver, grant.PrivateNetwork, grant.Addresses, net.Dialer{KeepAlive: 30 * time.Second})
	c.transport = &http.Transport{
		DialContext:     c.dialer.dialContext,
		TLSClientConfig: tlsConfig,
		// A custom dialer and TLS configuration turn HTTP/2 off unless
		// asked for.
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           4 * grant.MaxRequests,
		MaxIdleConnsPerHost:    grant.MaxRequests,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 256 << 10,
	}
	if grant.Proxy != nil {
		c.transport.Proxy = http.ProxyURL(grant.Proxy)
		c.dialer.proxy = proxyAddress(grant.Proxy)
	}
	c.client = http.Client{
		Transport: gate{c},
		CheckRedirect: func(_ *http.Request, via []*http.Request) error {
			if len(via) > MaxRedirects {
				return fmt.Errorf("stopped after %d redirects", MaxRedirects)
			}
			return nil
		},
	}
	c.slots = make(chan struct{}, grant.MaxRequests)
	return c, nil
}

// systemRootsAnd returns the system's roots with the certificates of the
// PEM file path added.
func systemRootsAnd(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	roots, err := x509.SystemCertPool()
	if err != nil {
		roots = x509.NewCertPool()
	}
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return roots, nil
}

// proxyAddress is the host:port the transport dials for the proxy u.
func proxyAddress(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// Close closes the client's idle connections. Requests in flight finish.
func (c *Client) Close() {
	if c.transport != nil {
		c.transport.CloseIdleConnections()
	}
}

// exchange is what the audit line of one request says.
type exchange struct {
	tool, method, origin, final, reason string
	code, bytes                         int
	// grant is the granted origin that covered origin; "" if none did.
	grant string
}

// Failure is a request that got no response: its status of ABI.md section 5
// (StatusDenied, StatusInvalid, StatusTimeout or StatusFailed) and the
// reason, which the guest is told and the audit line says. A denied server
// was never contacted.
type Failure struct {
	Status abi.ReplyStatus
	Reason string
}

func (f *Failure) Error() string { return f.Reason }

func failed(status abi.ReplyStatus, format string, args ...any) *Failure {
	return &Failure{status, fmt.Sprintf(format, args...)}
}

// Do makes the request r of a guest, for a call of tool, and returns the
// response, or a *Failure. r.Body may be memory the caller reuses once Do
// returns: it is copied. The request ends when ctx does: the call's
// deadline or cancellation.
func (c *Client) Do(ctx context.Context, tool string, r abi.HTTPRequest) (*abi.HTTPResponse, error) {
	start := time.Now()
	ctx, span := c.tracer.Start(ctx, "http_request", trace.WithSpanKind(trace.SpanKindClient))
	defer span.End()
	x := exchange{tool: tool}
	resp, f := c.do(ctx, r, &x)
	status := abi.StatusOK
	if f != nil {
		status, x.reason = f.Status, f.Reason
	}
	c.audit(ctx, &x, status, time.Since(start))
	// The origin only: a URL's path and query, and the headers, may carry
	// secrets the guest was granted.
	span.SetAttributes(attribute.String("http.request.method", x.method), attribute.String("wasmcp.net.request.origin", x.origin),
		attribute.Int("wasmcp.net.bytes", x.bytes), telemetry.NetOutcomeKey.String(status.String()))
	if x.code != 0 {
		span.SetAttributes(attribute.Int("http.response.status_code", x.code))
	}
	if f != nil {
		span.SetStatus(codes.Error, status.String())
		return nil, f
	}
	return resp, nil
}

// Invalid records a request of tool that could not be read at all (its
// document was malformed), as Do records one it refuses, and returns the
// failure, StatusInvalid with reason.
func (c *Client) Invalid(ctx context.Context, tool, reason string) error {
	c.audit(ctx, &exchange{tool: tool, reason: reason}, abi.StatusInvalid, 0)
	return &Failure{abi.StatusInvalid, reason}
}

func (c *Client) audit(ctx context.Context, x *exchange, status abi.ReplyStatus, d time.Duration) {
	level := slog.LevelInfo
	if status == abi.StatusDenied {
		level = slog.LevelWarn
	}
	attrs := []slog.Attr{
		slog.String("plugin", c.plugin), slog.String("tool", x.tool), slog.String("method", x.method),
		slog.String("origin", x.origin), slog.String("outcome", status.String()), slog.Int("status", x.code),
		slog.Int("bytes", x.bytes), slog.Duration("duration", d),
	}
	if x.final != "" && x.final != x.origin {
		attrs = append(attrs, slog.String("final", x.final))
	}
	if x.reason != "" {
		attrs = append(attrs, slog.String("reason", x.reason))
	}
	c.log.LogAttrs(ctx, level, "net request", attrs...)
	grant := x.grant
	if grant == "" {
		grant = telemetry.OtherOrigin
	}
	c.requests.Add(ctx, 1, metric.WithAttributes(telemetry.PluginKey.String(c.plugin),
		telemetry.OriginKey.String(grant), telemetry.NetOutcomeKey.String(status.String())))
}

func (c *Client) do(ctx context.Context, r abi.HTTPRequest, x *exchange) (*abi.HTTPResponse, *Failure) {
	req, bad := c.request(ctx, r, x)
	if bad != nil {
		return nil, bad
	}
	if ctx.Err() != nil {
		return nil, failed(abi.StatusTimeout, "%s %s: not sent: the call was %s", req.Method, x.origin, doneReason(ctx))
	}
	select {
	case c.slots <- struct{}{}:
		defer func() { <-c.slots }()
	case <-ctx.Done():
		return nil, failed(abi.StatusTimeout, "%s %s: not sent: the call was %s while waiting for one of plugin %s's %d requests in flight to end",
			req.Method, x.origin, doneReason(ctx), c.plugin, c.grant.MaxRequests)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		var r *Refusal
		switch {
		case errors.As(err, &r):
			return nil, &Failure{abi.StatusDenied, r.Error()}
		case ctx.Err() != nil:
			return nil, failed(abi.StatusTimeout, "%s %s: the call was %s before the response came", req.Method, x.origin, doneReason(ctx))
		}
		return nil, failed(abi.StatusFailed, "%v", err)
	}
	defer resp.Body.Close()
	x.code, x.final = resp.StatusCode, originString(resp.Request.URL)
	body, err := c.readBody(resp)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, failed(abi.StatusTimeout, "%s %s: the call was %s while the response was read", req.Method, x.origin, doneReason(ctx))
	case err != nil:
		return nil, failed(abi.StatusFailed, "%s %s: %v", req.Method, x.origin, err)
	}
	x.bytes = len(body)
	return response(resp, body), nil
}

// request checks r, and returns the request to send.
func (c *Client) request(ctx context.Context, r abi.HTTPRequest, x *exchange) (*http.Request, *Failure) {
	// The bounds of a request document (ABI.md section 5), whatever the
	// dialect the request came in: tiny headers would otherwise cost the
	// host many times their size.
	n := headSize(r)
	if n > abi.MaxHTTPHeadSize {
		return nil, &Failure{abi.StatusInvalid, fmt.Sprintf("http request: the head of %d bytes is over the limit of %d", n, abi.MaxHTTPHeadSize)}
	}
	if len(r.Body) > 0 {
		n += 1 + len(r.Body) // the line feed, then the body
	}
	if n > abi.MaxHTTPRequestSize {
		return nil, &Failure{abi.StatusInvalid, fmt.Sprintf("http request: the document of %d bytes is over the limit of %d", n, abi.MaxHTTPRequestSize)}
	}
	if r.Method == "" {
		r.Method = http.MethodGet
	}
	x.method = r.Method
	switch {
	case !policy.ValidHeaderName(r.Method):
		return nil, &Failure{abi.StatusInvalid, fmt.Sprintf("http request: method %q is not an HTTP token", r.Method)}
	case strings.EqualFold(r.Method, http.MethodConnect) || strings.EqualFold(r.Method, http.MethodTrace):
		// CONNECT opens a tunnel; TRACE echoes the request, headers the
		// policy adds included. Some servers read methods in any case.
		return nil, &Failure{abi.StatusInvalid, fmt.Sprintf("http request: method %s is not allowed", r.Method)}
	}
	u, err := url.Parse(r.URL)
	switch {
	case err != nil:
		return nil, &Failure{abi.StatusInvalid, "http request: " + err.Error()}
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, &Failure{abi.StatusInvalid, fmt.Sprintf("http request: %q: only http and https URLs are allowed", r.URL)}
	case u.User != nil:
		return nil, &Failure{abi.StatusInvalid, "http request: a URL with credentials is not allowed; send an Authorization header"}
	}
	o, err := policy.URLOrigin(u)
	switch {
	case errors.Is(err, policy.ErrAmbiguousHost):
		x.origin = u.Scheme + "://" + u.Host
		return nil, &Failure{abi.StatusDenied, fmt.Sprintf("%s: %v", x.origin, err)}
	case err != nil:
		return nil, &Failure{abi.StatusInvalid, fmt.Sprintf("http request: %q: %v", r.URL, err)}
	}
	x.origin = o.String()
	grant, err := c.allow(o)
	if err != nil {
		return nil, &Failure{abi.StatusDenied, err.Error()}
	}
	x.grant = grant.String()
	var body io.Reader
	if len(r.Body) > 0 {
		// A copy: the body may be the guest's memory, which the transport
		// may still be reading after Do returns (a server that answers
		// before it has read the body), when the guest runs again or its
		// memory is unmapped.
		body = bytes.NewReader(bytes.Clone(r.Body))
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), body)
	if err != nil {
		return nil, &Failure{abi.StatusInvalid, "http request: " + err.Error()}
	}
	for _, h := range r.Headers {
		switch {
		case !policy.ValidHeaderName(h.Name):
			return nil, &Failure{abi.StatusInvalid, fmt.Sprintf("http request: header name %q is not an HTTP token", h.Name)}
		case !policy.ValidHeaderValue(h.Value):
			return nil, &Failure{abi.StatusInvalid, fmt.Sprintf("http request: header %s: the value holds a control character", h.Name)}
		case policy.ReservedHeader(h.Name):
			return nil, &Failure{abi.StatusInvalid, fmt.Sprintf("http request: header %s is set by the host from the URL and body", h.Name)}
		}
		req.Header.Add(h.Name, h.Value)
	}
	return req, nil
}

// headSize is the size of r's head as ABI.md section 5 encodes it.
func headSize(r abi.HTTPRequest) int {
	head, err := json.Marshal(r)
	if err != nil {
		return math.MaxInt // strings and string pairs always encode
	}
	return len(head)
}

// allow returns the granted origin that covers o, or a *Refusal if the
// plugin was granted none.
func (c *Client) allow(o policy.Origin) (policy.Origin, error) {
	for _, g := range c.grant.Origins {
		if g.Covers(o) {
			return g, nil
		}
	}
	return policy.Origin{}, &Refusal{fmt.Sprintf("%s is not in plugin %s's net policy", o, c.plugin)}
}

// readBody reads the response body, refusing one over the policy's
// maxResponse.
func (c *Client) readBody(resp *http.Response) ([]byte, error) {
	limit := c.grant.MaxResponse
	tooLarge := fmt.Errorf("the response body is over plugin %s's maxResponse of %d bytes", c.plugin, limit)
	if resp.ContentLength > limit {
		return nil, tooLarge
	}
	var buf *bytes.Buffer
	if p, ok := bodies.Get().(*[]byte); ok {
		buf = bytes.NewBuffer((*p)[:0])
	} else {
		buf = new(bytes.Buffer)
	}
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength) + bytes.MinRead)
	}
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1))
	switch {
	case err != nil:
		recycle(buf.Bytes())
		return nil, fmt.Errorf("reading the response: %w", err)
	case n > limit:
		recycle(buf.Bytes())
		return nil, tooLarge
	}
	return buf.Bytes(), nil
}

// bodies are the buffers response bodies are read into: a body of unknown
// length (chunked) grows its buffer from nothing, which costs a request of
// 64 KiB more than the request itself.
var bodies sync.Pool

// maxPooled is the largest buffer bodies keeps: a few bodies of megabytes
// should not stay in memory for good.
const maxPooled = 1 << 20

// Release gives resp's body, from Do, back to be read into again; the
// caller has copied what it needs (into the guest's memory) and uses
// neither resp nor its body afterwards.
func Release(resp *abi.HTTPResponse) {
	if resp != nil {
		recycle(resp.Body)
		resp.Body = nil
	}
}

// recycle puts body's buffer back into bodies, unless it is too large to
// keep.
func recycle(body []byte) {
	if cap(body) == 0 || cap(body) > maxPooled {
		return
	}
	b := body[:0]
	bodies.Put(&b)
}

// gate is the client's transport: it checks the origin of every request,
// redirects included, and adds the policy's headers for it.
type gate struct{ c *Client }

func (g gate) RoundTrip(req *http.Request) (*http.Response, error) {
	refuse := func(err error) (*http.Response, error) {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	o, err := policy.URLOrigin(req.URL)
	if err != nil {
		return refuse(&Refusal{fmt.Sprintf("%s://%s: %v", req.URL.Scheme, req.URL.Host, err)})
	}
	if _, err := g.c.allow(o); err != nil {
		return refuse(err)
	}
	if g.c.grant.Proxy != nil {
		// Through a proxy nothing here connects to the origin: check an
		// address the URL names itself (the proxy resolves names).
		if addr, ok := o.Addr(); ok {
			if err := g.c.dialer.check(o.Host, netip.AddrPortFrom(addr.Unmap(), o.Port)); err != nil {
				return refuse(err)
			}
		}
	}
	cloned := false
	for _, h := range g.c.grant.Headers {
		if !h.Origin.Covers(o) {
			continue
		}
		if !cloned {
			// The client copies the first request's headers onto each
			// redirect: the policy's must not travel to another origin.
			req, cloned = req.Clone(req.Context()), true
		}
		req.Header[h.Name] = []string{h.Value}
	}
	return g.c.transport.RoundTrip(req)
}

// response is the guest's view of resp, whose body is body.
func response(resp *http.Response, body []byte) *abi.HTTPResponse {
	names := make([]string, 0, len(resp.Header))
	n := 0
	for name, values := range resp.Header {
		names = append(names, name)
		n += len(values)
	}
	slices.Sort(names)
	headers := make([]abi.HTTPHeader, 0, n)
	for _, name := range names {
		for _, v := range resp.Header[name] {
			headers = append(headers, abi.HTTPHeader{Name: name, Value: v})
		}
	}
	return &abi.HTTPResponse{Status: resp.StatusCode, URL: resp.Request.URL.String(), Headers: headers, Body: body}
}

// originString is the origin of u for the audit line.
func originString(u *url.URL) string {
	if o, err := policy.URLOrigin(u); err == nil {
		return o.String()
	}
	return u.Scheme + "://" + u.Host
}

// doneReason says why a call's context is done.
func doneReason(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "past its deadline"
	}
	return "cancelled"
}
