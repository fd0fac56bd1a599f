package httpserve

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func probe(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec.Code, rec.Body.String()
}

func TestHealth(t *testing.T) {
	var notReady error = errors.New("modules still loading")
	drain := NewDrain()
	mux := http.NewServeMux()
	Health{Drain: drain, Ready: func() error { return notReady }}.Register(mux)

	for _, tc := range []struct {
		name         string
		setup        func()
		ready        int
		readyContain string
	}{
		{"loading", func() {}, 503, "modules still loading"},
		{"ready", func() { notReady = nil }, 200, "ready"},
		{"draining", drain.Begin, 503, "shutting down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup()
			if code, body := probe(t, mux, "/healthz"); code != 200 || body != "ok\n" {
				t.Errorf("/healthz = %d %q, want 200 ok", code, body)
			}
			code, body := probe(t, mux, "/readyz")
			if code != tc.ready || !strings.Contains(body, tc.readyContain) {
				t.Errorf("/readyz = %d %q, want %d with %q", code, body, tc.ready, tc.readyContain)
			}
		})
	}
	if code, _ := probe(t, mux, "/readyz/x"); code != 404 {
		t.Errorf("/readyz/x = %d, want 404", code)
	}
}

// TestServeDrains stops a server with a Drain while a request is in
// flight: the listener keeps answering (/readyz 503) and an event stream
// stays open until the request has its response, and only then close.
func TestServeDrains(t *testing.T) {
	ctx := testContext(t)
	drain := NewDrain()
	callStarted, finishCall := make(chan struct{}), make(chan struct{})
	streamOpen, streamEnded := make(chan struct{}), make(chan struct{})
	mux := http.NewServeMux()
	Health{Drain: drain}.Register(mux)
	mux.Handle("/mcp", drain.Track(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet { // an event stream, open until the shutdown ends it
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			close(streamOpen)
			<-r.Context().Done()
			close(streamEnded)
			return
		}
		close(callStarted)
		<-finishCall
		io.WriteString(w, "result")
	})))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	serveCtx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- Serve(serveCtx, ln, mux, Options{Grace: time.Minute, Drain: drain}) }()

	get, err := http.NewRequestWithContext(ctx, "GET", base+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := http.DefaultClient.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	<-streamOpen
	result := make(chan string, 1)
	go func() {
		resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader("{}"))
		if err != nil {
			result <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		result <- string(b)
	}()
	<-callStarted
	stop()
	for !drain.Draining() {
		select {
		case <-ctx.Done():
			t.Fatal("never draining")
		case <-time.After(time.Millisecond):
		}
	}
	// A new connection, so that no kept-alive one is reused.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(base + "/readyz")
	if err != nil {
		t.Fatalf("/readyz while draining: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz while draining = %d, want 503", resp.StatusCode)
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned (%v) with a request in flight", err)
	case <-streamEnded:
		t.Fatal("the event stream ended while a call was still running")
	default:
	}
	close(finishCall)
	if got := <-result; got != "result" {
		t.Errorf("request in flight got %q, want its response", got)
	}
	select {
	case <-streamEnded:
	case <-ctx.Done():
		t.Fatal("the event stream was not ended once the calls were answered")
	}
	if err := <-served; err != nil {
		t.Errorf("Serve = %v, want nil", err)
	}
}

// TestServeChecksHost: on a loopback listener every path, the probes and
// /metrics included, refuses a Host that is not a loopback name, as a web
// page's requests carry after DNS rebinding; a listener on another
// interface leaves the Host to the token and the Origin check.
func TestServeChecksHost(t *testing.T) {
	ctx := testContext(t)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "wasmcp_tool_calls_total 1\n") })
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	Health{Drain: NewDrain(), Ready: func() error { return nil }}.Register(mux)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	serveCtx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- Serve(serveCtx, ln, mux, Options{Grace: time.Second}) }()
	t.Cleanup(func() { stop(); <-served })

	get := func(t *testing.T, method, path, host string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, method, "http://"+ln.Addr().String()+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, path := range []string{"/metrics", "/healthz", "/readyz", "/mcp"} {
		for _, tc := range []struct {
			host string
			want int
		}{
			{"rebind.example:" + port, 403},
			{"rebind.example", 403},
			{"127.0.0.1.nip.example:" + port, 403},
			{"169.254.169.254:" + port, 403},
			{"127.0.0.1:" + port, 200},
			{"localhost:" + port, 200},
			{"LOCALHOST.:" + port, 200},
			{"[::1]:" + port, 200},
			{"127.1.2.3", 200},
		} {
			t.Run(path+"/"+tc.host, func(t *testing.T) {
				code, body := get(t, "GET", path, tc.host)
				if code != tc.want {
					t.Fatalf("GET %s with Host %q = %d %q, want %d", path, tc.host, code, body, tc.want)
				}
				if code == 403 && (strings.Contains(body, "wasmcp_") || !strings.Contains(body, "invalid Host")) {
					t.Errorf("refusal body %q: want only the reason", body)
				}
			})
		}
	}

	// A request without a Host, as haproxy's HTTP/1.0 health check sends,
	// passes: no browser sends one.
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET /readyz HTTP/1.0\r\n\r\n")
	reply, _ := io.ReadAll(conn)
	if !strings.HasPrefix(string(reply), "HTTP/1.0 200") {
		t.Errorf("HTTP/1.0 without Host: %.40q, want 200", reply)
	}

	// Off loopback the check stands aside.
	h := checkHost(mux, slog.New(slog.DiscardHandler))
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Host = "wasmcp.example:8931"
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey,
		&net.TCPAddr{IP: net.ParseIP("10.1.2.3"), Port: 8931}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Errorf("non-loopback listener, Host %q: %d, want 200", req.Host, rec.Code)
	}
}
