package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/httpserve"
	"github.com/wasmcp/wasmcp/internal/mcpadapter"
)

// httpFlags are serve's Streamable HTTP settings. All but -http itself
// require -http.
type httpFlags struct {
	addr           string
	stateless      bool
	tokenFile      string
	tokenEnv       string
	insecureNoAuth bool
	allowOrigins   []string
	maxBody        size // 0: derived from -max-input
	sessionTimeout time.Duration
	maxSessions    int
	maxPrincipal   int
	bodyTimeout    time.Duration
}

// defaultSessionTimeout closes sessions of clients that vanished without
// ending them. Clients that idle longer than this without a ping get 404 on
// their next request and start a new session, as the transport specifies.
const defaultSessionTimeout = 30 * time.Minute

func (h *httpFlags) register(fs *flag.FlagSet) {
	h.sessionTimeout = defaultSessionTimeout
	fs.StringVar(&h.addr, "http", "", "serve Streamable HTTP at http://`ADDR`/mcp instead of stdio; ADDR is HOST:PORT,\n"+
		":PORT or PORT, and a missing host is 127.0.0.1 (loopback)")
	fs.BoolVar(&h.stateless, "stateless", false, "serve 2025-era clients without sessions, so that any replica can answer\n"+
		"any request (see the trade-offs above)")
	fs.StringVar(&h.tokenFile, "token-file", "", "require `FILE`'s content (trimmed) as bearer token: Authorization: Bearer <token>")
	fs.StringVar(&h.tokenEnv, "token-env", "", "require the value of the environment variable `NAME` as bearer token")
	fs.BoolVar(&h.insecureNoAuth, "insecure-no-auth", false, "allow serving a non-loopback address without a token (for a proxy\n"+
		"that authenticates clients itself)")
	fs.Func("allow-origin", "allow browser requests from `ORIGIN` (scheme://host[:port]; repeat or\n"+
		"separate with commas), with CORS; same-origin and Origin-less requests always pass", func(v string) error {
		for _, o := range strings.Split(v, ",") {
			norm, err := httpserve.NormalizeOrigin(strings.TrimSpace(o))
			if err != nil {
				return err
			}
			h.allowOrigins = append(h.allowOrigins, norm)
		}
		return nil
	})
	fs.Var(&h.maxBody, "max-body", "largest HTTP request body, a `size` (default: -max-input plus 1MiB)")
	fs.DurationVar(&h.sessionTimeout, "session-timeout", h.sessionTimeout, "close a session idle this long; 0 never does")
	fs.IntVar(&h.maxSessions, "max-sessions", mcpadapter.DefaultMaxSessions, "sessions open at once; an initialize beyond them closes the least\n"+
		"recently used idle session, of whoever holds the most (503 if none is idle)")
	fs.IntVar(&h.maxPrincipal, "max-principal-sessions", mcpadapter.DefaultMaxPrincipalSessions, "sessions one OAuth principal may hold open at once; "+
		"its initialize beyond\nthem closes its least recently used idle session (429 if none is idle)")
	fs.DurationVar(&h.bodyTimeout, "body-timeout", mcpadapter.DefaultBodyTimeout, "longest a client may take to send a request body (408 after)")
}

// httpOnly are the flags that mean nothing without -http.
var httpOnly = []string{"stateless", "token-file", "token-env", "insecure-no-auth", "allow-origin", "max-body", "session-timeout", "max-sessions", "max-principal-sessions", "body-timeout"}

// check validates the HTTP flags given the set of flags named on the
// command line.
func (h *httpFlags) check(set map[string]bool) error {
	if h.addr == "" {
		for _, name := range httpOnly {
			if set[name] {
				return fmt.Errorf("-%s needs -http", name)
			}
		}
		return nil
	}
	if h.tokenFile != "" && h.tokenEnv != "" {
		return errors.New("-token-file and -token-env are alternatives; give one")
	}
	if h.insecureNoAuth && (h.tokenFile != "" || h.tokenEnv != "") {
		return errors.New("-insecure-no-auth contradicts -token-file/-token-env; give one or the other")
	}
	if h.sessionTimeout < 0 {
		return fmt.Errorf("-session-timeout must not be negative, got %s", h.sessionTimeout)
	}
	if h.bodyTimeout <= 0 {
		return fmt.Errorf("-body-timeout must be positive, got %s", h.bodyTimeout)
	}
	if h.maxSessions <= 0 {
		return fmt.Errorf("-max-sessions must be positive, got %d", h.maxSessions)
	}
	if h.maxPrincipal <= 0 {
		return fmt.Errorf("-max-principal-sessions must be positive, got %d", h.maxPrincipal)
	}
	return nil
}

// token reads the bearer token from its file or environment variable; ""
// when neither is set. Problems that do not stop the server (a file others
// can read, a short token) are logged.
func (h *httpFlags) token(log *slog.Logger) (string, error) {
	var token string
	switch {
	case h.tokenFile != "":
		info, err := os.Stat(h.tokenFile)
		if err != nil {
			return "", fmt.Errorf("token file: %w", err)
		}
		b, err := os.ReadFile(h.tokenFile)
		if err != nil {
			return "", fmt.Errorf("token file: %w", err)
		}
		if token = strings.TrimSpace(string(b)); token == "" {
			return "", fmt.Errorf("token file %s is empty", h.tokenFile)
		}
		if info.Mode().Perm()&0o077 != 0 {
			log.Warn("the token file can be read by other users; chmod 600 it", "file", h.tokenFile, "mode", info.Mode().Perm().String())
		}
	case h.tokenEnv != "":
		if token = strings.TrimSpace(os.Getenv(h.tokenEnv)); token == "" {
			return "", fmt.Errorf("environment variable %s (-token-env) is empty or not set", h.tokenEnv)
		}
	default:
		return "", nil
	}
	if strings.ContainsFunc(token, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
		return "", errors.New("the bearer token must be printable ASCII without spaces (RFC 6750), such as the output of 'openssl rand -hex 32'")
	}
	if len(token) < 16 {
		log.Warn("the bearer token is short; use a random one, such as the output of 'openssl rand -hex 32'", "length", len(token))
	}
	return token, nil
}

// options are the adapter's HTTP options.
func (h *httpFlags) options() mcpadapter.HTTPOptions {
	return mcpadapter.HTTPOptions{Stateless: h.stateless, SessionTimeout: h.sessionTimeout, MaxBody: int64(h.maxBody),
		MaxSessions: h.maxSessions, MaxPrincipalSessions: h.maxPrincipal, BodyTimeout: h.bodyTimeout}
}

// admissionFlags are serve's limits on how many calls run, and its audit
// log settings.
type admissionFlags struct {
	rate         optionalRate
	calls        int
	toolRate     float64
	concurrency  int
	queue        int
	queueTimeout time.Duration
	logArgs      bool
}

// defaultHTTPRate is the per-session rate limit over HTTP: far above what a
// model-driven client does, low enough that one client cannot monopolize
// the server. Over stdio the one client is the operator's, and unlimited.
const defaultHTTPRate = 100

// defaultCalls caps the calls one HTTP client has in flight: below what one
// plugin runs and queues by default (-concurrency, -queue), so that one
// client cannot fill a plugin's queue alone, and above the handful of
// calls a model makes at once. Stdio's one client is never capped.
const defaultCalls = 32

func (a *admissionFlags) register(fs *flag.FlagSet) {
	a.concurrency, a.queue, a.queueTimeout = 8, 64, 30*time.Second
	fs.Var(&a.rate, "rate", "tool calls per second one session may make, `N` (a decimal; bursts of one\n"+
		"second's worth); 0 is unlimited (default 100 with -http, unlimited over stdio)")
	fs.IntVar(&a.calls, "max-calls", defaultCalls, "at most `N` tool calls running or waiting at once per HTTP session (with\n"+
		"OAuth, per principal, all its sessions together); more are refused; 0 is unlimited")
	fs.Float64Var(&a.toolRate, "tool-rate", 0, "tool calls per second one tool may serve, all sessions together, `N`;\n0 is unlimited")
	fs.IntVar(&a.concurrency, "concurrency", a.concurrency, "calls one plugin may run at once; 0 is unlimited")
	fs.IntVar(&a.queue, "queue", a.queue, "calls that may wait for a turn in one plugin; more are refused")
	fs.DurationVar(&a.queueTimeout, "queue-timeout", a.queueTimeout, "longest wait for a turn before the call is refused; 0 waits")
	fs.BoolVar(&a.logArgs, "log-args", false, "put each call's arguments (up to 4KiB) in its audit line")
}

// admission is the host's admission; overHTTP chooses the default -rate.
func (a *admissionFlags) admission(overHTTP bool) (host.Admission, error) {
	rate := a.rate.value
	if !a.rate.set && overHTTP {
		rate = defaultHTTPRate
	}
	switch {
	case rate < 0 || a.toolRate < 0:
		return host.Admission{}, errors.New("-rate and -tool-rate must not be negative")
	case a.concurrency < 0 || a.queue < 0 || a.calls < 0:
		return host.Admission{}, errors.New("-concurrency, -queue and -max-calls must not be negative")
	case a.queueTimeout < 0:
		return host.Admission{}, fmt.Errorf("-queue-timeout must not be negative, got %s", a.queueTimeout)
	}
	return host.Admission{CallerRate: rate, CallerCalls: a.calls, ToolRate: a.toolRate, Concurrency: a.concurrency, Queue: a.queue,
		QueueTimeout: a.queueTimeout}, nil
}

// optionalRate is a rate flag that knows whether it was given, so that its
// default can depend on other flags.
type optionalRate struct {
	value float64
	set   bool
}

func (r *optionalRate) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("%q is not a number of calls per second", s)
	}
	r.value, r.set = v, true
	return nil
}

// String is empty until set, so that the usage text shows no default of its
// own (the flag's text says it).
func (r *optionalRate) String() string {
	if !r.set {
		return ""
	}
	return strconv.FormatFloat(r.value, 'g', -1, 64)
}
