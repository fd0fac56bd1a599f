package httpserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// testContext bounds a test against hangs; it says nothing about speed.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestListenAddress(t *testing.T) {
	for in, want := range map[string]string{
		":8080":            "127.0.0.1:8080",
		"8080":             "127.0.0.1:8080",
		":0":               "127.0.0.1:0",
		"0.0.0.0:80":       "0.0.0.0:80",
		"localhost:8931":   "localhost:8931",
		"[::1]:9000":       "[::1]:9000",
		"[::]:9000":        "[::]:9000",
		"example.org:443":  "example.org:443",
		"192.168.1.5:8931": "192.168.1.5:8931",
	} {
		t.Run(in, func(t *testing.T) {
			got, err := ListenAddress(in)
			if err != nil || got != want {
				t.Errorf("ListenAddress(%q) = %q, %v; want %q", in, got, err, want)
			}
		})
	}
	for _, in := range []string{"", "localhost", "host:", "host:http", ":65536", "99999", "1:2:3"} {
		t.Run(in, func(t *testing.T) {
			if got, err := ListenAddress(in); err == nil {
				t.Errorf("ListenAddress(%q) = %q, want an error", in, got)
			}
		})
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost": true, "localhost.": true,
		"127.0.0.1": true, "127.8.9.10": true, "::1": true, "[::1]": true, "::ffff:127.0.0.1": true,
		"0.0.0.0": false, "::": false, "": false, "10.0.0.1": false, "example.org": false,
		"localhost.example.org": false, "127.0.0.1.nip.io": false,
	} {
		t.Run(host, func(t *testing.T) {
			if got := IsLoopback(host); got != want {
				t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
			}
		})
	}
}

func TestCheckExposure(t *testing.T) {
	for i, tc := range []struct {
		addr           string
		auth, insecure bool
		refused        bool
	}{
		{"127.0.0.1:8931", false, false, false},
		{"localhost:8931", false, false, false},
		{"[::1]:8931", false, false, false},
		{"0.0.0.0:8931", false, false, true},
		{"[::]:8931", false, false, true},
		{"192.168.1.5:8931", false, false, true},
		{"example.org:8931", false, false, true},
		{"0.0.0.0:8931", true, false, false},
		{"0.0.0.0:8931", false, true, false},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			err := CheckExposure(tc.addr, tc.auth, tc.insecure)
			if refused := errors.Is(err, ErrExposed); refused != tc.refused {
				t.Errorf("CheckExposure(%s, auth=%v, insecure=%v) = %v; want refused=%v", tc.addr, tc.auth, tc.insecure, err, tc.refused)
			}
			if tc.refused && err != nil {
				for _, hint := range []string{"--token-file", "--token-env", "--insecure-no-auth", tc.addr} {
					if !strings.Contains(err.Error(), hint) {
						t.Errorf("refusal %q does not mention %s", err, hint)
					}
				}
			}
		})
	}
}

func TestNormalizeOrigin(t *testing.T) {
	for i, tc := range []struct{ in, want string }{
		{"http://localhost:6274", "http://localhost:6274"},
		{"HTTP://LocalHost:6274/", "http://localhost:6274"},
		{"http://example.org:80", "http://example.org"},
		{"https://example.org:443", "https://example.org"},
		{"https://[::1]:443", "https://[::1]"},
		{"https://[::1]:8443", "https://[::1]:8443"},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			got, err := NormalizeOrigin(tc.in)
			if err != nil || got != tc.want {
				t.Errorf("NormalizeOrigin(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
	for i, in := range []string{"null", "", "localhost:6274", "file:///x", "http://a/b", "http://a?x", "http://u@a"} {
		t.Run(fmt.Sprintf("bad-%d", i), func(t *testing.T) {
			if got, err := NormalizeOrigin(in); err == nil {
				t.Errorf("NormalizeOrigin(%q) = %q, want an error", in, got)
			}
		})
	}
}

// okHandler answers 200 "ok" and records that it was reached.
type okHandler struct{ reached bool }

func (h *okHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.reached = true
	io.WriteString(w, "ok")
}

func TestCheckOrigin(t *testing.T) {
	allowed := []string{"http://localhost:6274"}
	for _, tc := range []struct {
		name, method, host, origin string
		headers                    map[string]string
		status                     int
		reached                    bool
		acao                       string
	}{
		{name: "no origin", method: "POST", host: "127.0.0.1:8931", status: 200, reached: true},
		{name: "same origin", method: "POST", host: "127.0.0.1:8931", origin: "http://127.0.0.1:8931", status: 200, reached: true},
		{name: "same origin default port", method: "POST", host: "example.org:80", origin: "http://example.org", status: 200, reached: true},
		{name: "cross origin", method: "POST", host: "127.0.0.1:8931", origin: "http://evil.example", status: 403},
		{name: "cross origin GET", method: "GET", host: "127.0.0.1:8931", origin: "http://evil.example", status: 403},
		{name: "other port", method: "POST", host: "127.0.0.1:8931", origin: "http://127.0.0.1:9999", status: 403},
		{name: "other scheme's default port", method: "POST", host: "example.org:80", origin: "https://example.org", status: 403},
		{name: "null origin", method: "POST", host: "127.0.0.1:8931", origin: "null", status: 403},
		{name: "listed", method: "POST", host: "127.0.0.1:8931", origin: "http://localhost:6274", status: 200, reached: true, acao: "http://localhost:6274"},
		{
			name: "listed preflight", method: "OPTIONS", host: "127.0.0.1:8931", origin: "http://localhost:6274",
			headers: map[string]string{"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, mcp-session-id"},
			status:  204, acao: "http://localhost:6274",
		},
		{
			name: "unlisted preflight", method: "OPTIONS", host: "127.0.0.1:8931", origin: "http://evil.example",
			headers: map[string]string{"Access-Control-Request-Method": "POST"}, status: 403,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := &okHandler{}
			r := httptest.NewRequest(tc.method, "http://"+tc.host+"/mcp", nil)
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			for k, v := range tc.headers {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			CheckOrigin(next, allowed, nil).ServeHTTP(w, r)
			if w.Code != tc.status || next.reached != tc.reached {
				t.Errorf("status %d, handler reached %v; want %d, %v (body %q)", w.Code, next.reached, tc.status, tc.reached, w.Body)
			}
			if got := w.Header().Get("Access-Control-Allow-Origin"); got != tc.acao {
				t.Errorf("Access-Control-Allow-Origin = %q, want %q", got, tc.acao)
			}
			if tc.status == 403 && !strings.Contains(w.Body.String(), "--allow-origin") {
				t.Errorf("refusal %q does not say how to allow the origin", w.Body)
			}
			if tc.status == 204 {
				if got := w.Header().Get("Access-Control-Allow-Headers"); got != tc.headers["Access-Control-Request-Headers"] {
					t.Errorf("Access-Control-Allow-Headers = %q", got)
				}
				if !strings.Contains(w.Header().Get("Access-Control-Expose-Headers"), "Mcp-Session-Id") {
					t.Errorf("Mcp-Session-Id not exposed to the browser")
				}
			}
		})
	}
}

func TestRequireToken(t *testing.T) {
	const token = "s3cret-token-value"
	for _, tc := range []struct {
		name, authorization string
		status              int
		challenge           string
	}{
		{"no header", "", 401, `Bearer realm="wasmcp"`},
		{"other scheme", "Basic dXNlcjpwYXNz", 401, `Bearer realm="wasmcp"`},
		{"empty token", "Bearer ", 401, `Bearer realm="wasmcp"`},
		{"wrong token", "Bearer nope", 401, `Bearer realm="wasmcp", error="invalid_token"`},
		{"prefix of the token", "Bearer s3cret", 401, `Bearer realm="wasmcp", error="invalid_token"`},
		{"token plus more", "Bearer " + token + "x", 401, `Bearer realm="wasmcp", error="invalid_token"`},
		{"good token", "Bearer " + token, 200, ""},
		{"scheme in lower case", "bearer " + token, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := &okHandler{}
			r := httptest.NewRequest("POST", "http://127.0.0.1:8931/mcp", nil)
			if tc.authorization != "" {
				r.Header.Set("Authorization", tc.authorization)
			}
			w := httptest.NewRecorder()
			RequireToken(next, token, nil).ServeHTTP(w, r)
			if w.Code != tc.status || next.reached != (tc.status == 200) {
				t.Fatalf("status %d, reached %v; want %d", w.Code, next.reached, tc.status)
			}
			if got := w.Header().Get("WWW-Authenticate"); got != tc.challenge {
				t.Errorf("WWW-Authenticate = %q, want %q", got, tc.challenge)
			}
		})
	}
}

// TestServeGracefulShutdown stops a server with an event stream open and a
// request in flight: the stream is ended at once, the request is let finish
// and gets its response, and Serve returns nil.
func TestServeGracefulShutdown(t *testing.T) {
	ctx := testContext(t)
	streamOpen, streamEnded := make(chan struct{}), make(chan struct{})
	callStarted, finishCall := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
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
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	serveCtx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- Serve(serveCtx, ln, h, Options{Grace: time.Minute}) }()

	get, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-streamOpen
	result := make(chan string, 1)
	go func() {
		resp, err := http.Post(url, "application/json", strings.NewReader("{}"))
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
	select {
	case <-streamEnded:
	case <-ctx.Done():
		t.Fatal("the event stream was not ended by the shutdown")
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned (%v) with a request in flight and grace left", err)
	default:
	}
	close(finishCall)
	if got := <-result; got != "result" {
		t.Errorf("request in flight got %q, want its response", got)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve = %v, want nil after a shutdown", err)
	}
}

// TestServeGraceExpires cuts a request that outlives the grace period.
func TestServeGraceExpires(t *testing.T) {
	ctx := testContext(t)
	started := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-ctx.Done() // never finishes on its own within the test
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveCtx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- Serve(serveCtx, ln, h, Options{Grace: time.Millisecond}) }()
	reqErr := make(chan error, 1)
	go func() {
		resp, err := http.Post("http://"+ln.Addr().String()+"/", "application/json", strings.NewReader("{}"))
		if err == nil {
			resp.Body.Close()
		}
		reqErr <- err
	}()
	<-started
	stop()
	if err := <-served; err != nil {
		t.Errorf("Serve = %v, want nil", err)
	}
	if err := <-reqErr; err == nil {
		t.Error("the request outliving the grace period got a response, want its connection closed")
	}
}
