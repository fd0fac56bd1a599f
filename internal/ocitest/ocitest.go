// Package ocitest runs a real OCI registry for tests: Debian's
// docker-registry, the CNCF distribution server, on a random loopback port
// with a temporary storage directory.
package ocitest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/internal/testenv"
)

// Binary is the registry server's command.
const Binary = "docker-registry"

// Registry is a running registry.
type Registry struct {
	// Host is its host:port, the first component of its references.
	Host string

	cmd     *exec.Cmd
	done    chan struct{}
	log     *bytes.Buffer
	mu      sync.Mutex
	stopped bool
}

// Options of Start and Run.
type Options struct {
	// Auth puts the registry behind basic authentication (htpasswd) with
	// one account, User and Password.
	Auth bool
}

// The account of a registry started with Options.Auth. The htpasswd entry
// is the bcrypt hash of Password, made once with golang.org/x/crypto/bcrypt
// (cost 4): distribution reads only bcrypt entries, and a fixed one spares
// the module a dependency for tests.
const (
	User     = "wasmcp"
	Password = "wasmcp-test-password"
	htpasswd = User + ":$2a$04$RkUk1c7UkebTs0hcoXCSuOoPsVCMZ4u18tRWp7OfhpL0Jegpauh0K\n"
)

// Start starts a registry with its storage in a temporary directory,
// skipping tb (failing it in CI) when docker-registry is not installed. It
// is stopped when tb ends.
func Start(tb testing.TB, opts Options) *Registry {
	tb.Helper()
	if _, err := exec.LookPath(Binary); err != nil {
		testenv.Missing(tb, "%s not found: install Debian's docker-registry package (make deps does, as root)", Binary)
	}
	r, err := Run(tb.TempDir(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(r.Stop)
	return r
}

// Run starts a registry on a free loopback port with its configuration and
// storage in dir, and waits until it answers. The caller stops it.
func Run(dir string, opts Options) (*Registry, error) {
	bin, err := exec.LookPath(Binary)
	if err != nil {
		return nil, err
	}
	auth := ""
	if opts.Auth {
		path := filepath.Join(dir, "htpasswd")
		if err := os.WriteFile(path, []byte(htpasswd), 0o600); err != nil {
			return nil, err
		}
		auth = fmt.Sprintf("auth:\n  htpasswd:\n    realm: wasmcp-test\n    path: %s\n", path)
	}
	config := filepath.Join(dir, "config.yml")
	// A port taken between choosing it and the server binding it fails the
	// start; try again with another.
	for attempt := 0; ; attempt++ {
		host, err := freePort()
		if err != nil {
			return nil, err
		}
		text := fmt.Sprintf("version: 0.1\nlog:\n  level: warn\n  accesslog:\n    disabled: true\n"+
			"storage:\n  filesystem:\n    rootdirectory: %s\n  delete:\n    enabled: true\n"+
			"http:\n  addr: %s\n%s", filepath.Join(dir, "storage"), host, auth)
		if err := os.WriteFile(config, []byte(text), 0o600); err != nil {
			return nil, err
		}
		r := &Registry{Host: host, log: new(bytes.Buffer), cmd: exec.Command(bin, "serve", config)}
		r.cmd.Stdout, r.cmd.Stderr = r.log, r.log
		if err := r.cmd.Start(); err != nil {
			return nil, fmt.Errorf("start %s: %w", Binary, err)
		}
		r.done = make(chan struct{})
		go func() { r.cmd.Wait(); close(r.done) }()
		if r.ready() {
			return r, nil
		}
		r.Stop()
		if attempt == 2 {
			return nil, fmt.Errorf("%s did not start on %s:\n%s", Binary, host, r.log)
		}
	}
}

// ready waits, within a bounded number of tries, until the registry
// answers /v2/, and reports whether it did.
func (r *Registry) ready() bool {
	client := &http.Client{Timeout: time.Second}
	for range 200 {
		select {
		case <-r.done:
			return false
		default:
		}
		resp, err := client.Get("http://" + r.Host + "/v2/")
		if err == nil {
			resp.Body.Close()
			return true // 200, or 401 behind authentication
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// Stop stops the registry; its storage stays. Stop is idempotent.
func (r *Registry) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return
	}
	r.stopped = true
	r.cmd.Process.Kill()
	<-r.done
}

// Ref is a reference to repo:tag (or repo@digest, when tag starts with
// "sha256:") in the registry.
func (r *Registry) Ref(repo, tag string) string {
	if len(tag) > 7 && tag[:7] == "sha256:" {
		return r.Host + "/" + repo + "@" + tag
	}
	return r.Host + "/" + repo + ":" + tag
}

// freePort returns 127.0.0.1:PORT with a port free a moment ago.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
