package oci_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/wasmcp/wasmcp/internal/egresstest"
	"github.com/wasmcp/wasmcp/internal/oci"
	"github.com/wasmcp/wasmcp/internal/ocitest"
)

// guarded starts a fake registry holding the echo module at team/echo:v1,
// and returns it, the reference to the module by the name registry.test
// (which resolves to the registry's loopback address: the operator may
// name a registry anywhere), a plain-HTTP client that resolves names with names
// plus registry.test, and a server no request may reach, which counts its
// connections.
func guarded(t *testing.T, names egresstest.Resolver) (*fakeRegistry, oci.Reference, *oci.Client, *egresstest.Server) {
	t.Helper()
	f := newFakeRegistry(t)
	f.put(t, "v1", ocispec.MediaTypeImageManifest, wasmConfig(), wasmLayer(echoWasm(t)))
	sink := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {})
	_, port, _ := strings.Cut(f.host(), ":")
	all := egresstest.Resolver{
		"registry.test": {netip.MustParseAddr("127.0.0.1")},
		"metadata.test": {netip.MustParseAddr("169.254.169.254")},
		"private.test":  {netip.MustParseAddr("10.1.2.3")},
		"sink.test":     {netip.MustParseAddr("127.0.0.1")},
	}
	for name, addrs := range names {
		all[name] = addrs
	}
	ref, err := oci.ParseReference("registry.test:"+port+"/team/echo:v1", false)
	if err != nil {
		t.Fatal(err)
	}
	return f, ref, oci.NewClient(oci.Options{PlainHTTP: true, Resolver: all}), sink
}

// refusedTargets are where a hostile registry sends the client, and what
// the refusal says: the metadata address, names resolving to it, to a
// private address and to loopback, the registry's own address on another
// port, an address embedding the metadata address.
func refusedTargets(sink *egresstest.Server) []struct{ name, url, want string } {
	return []struct{ name, url, want string }{
		{"metadata", "http://169.254.169.254/latest/meta-data/", "169.254.169.254 is not a public address (link-local)"},
		{"metadata name", "http://metadata.test/computeMetadata/v1/", "metadata.test resolves to 169.254.169.254, which is not a public address (link-local)"},
		{"private name", "http://private.test/", "private.test resolves to 10.1.2.3, which is not a public address (private-use)"},
		{"loopback name", "http://sink.test:" + sink.Port + "/", "sink.test resolves to 127.0.0.1, which is not a public address (loopback)"},
		{"loopback", sink.URL + "/", "127.0.0.1 is not a public address (loopback)"},
		{"SIIT", "http://[::ffff:0:a9fe:a9fe]/", "::ffff:0:a9fe:a9fe is not a public address (IPv4-translated (SIIT), embedding link-local 169.254.169.254)"},
	}
}

// redirector has a fake registry answer requests whose path holds
// "/KIND/" (manifests, blobs) with a redirect to where, unless where is ""
// or the request has a query; "self" sends them back to the registry, with
// a query.
type redirector struct {
	mu          sync.Mutex
	kind, where string
}

func (d *redirector) set(kind, where string) {
	d.mu.Lock()
	d.kind, d.where = kind, where
	d.mu.Unlock()
}

func (d *redirector) serve(w http.ResponseWriter, r *http.Request) bool {
	d.mu.Lock()
	kind, where := d.kind, d.where
	d.mu.Unlock()
	if where == "" || r.URL.RawQuery != "" || !strings.Contains(r.URL.Path, "/"+kind+"/") {
		return false
	}
	if where == "self" {
		where = "http://" + r.Host + r.URL.Path + "?again=1"
	}
	http.Redirect(w, r, where, http.StatusTemporaryRedirect)
	return true
}

// A registry that redirects a manifest or a blob request to an internal
// address is refused before anything connects there, with an error naming
// the reference and the address; one that redirects to itself is
// followed.
func TestRegistryRedirectsGuarded(t *testing.T) {
	f, ref, c, sink := guarded(t, nil)
	ctx := context.Background()
	if _, err := c.Pull(ctx, ref); err != nil {
		t.Fatalf("the registry the reference names, at a loopback address: %v", err)
	}
	d := &redirector{}
	f.setBefore(d.serve)
	for _, kind := range []string{"manifests", "blobs"} {
		t.Run(kind, func(t *testing.T) {
			for _, tc := range refusedTargets(sink) {
				t.Run(tc.name, func(t *testing.T) {
					d.set(kind, tc.url)
					_, err := c.Pull(ctx, ref)
					if err == nil || !strings.Contains(err.Error(), ref.String()) || !strings.Contains(err.Error(), tc.want) {
						t.Errorf("%s sent to %s: got %v, want an error naming %s saying %q", kind, tc.url, err, ref, tc.want)
					}
				})
			}
			d.set(kind, "self")
			if _, err := c.Pull(ctx, ref); err != nil {
				t.Errorf("%s sent back to the registry: %v", kind, err)
			}
		})
	}
	if n := sink.Conns(); n != 0 {
		t.Errorf("the refused targets had %d connections", n)
	}
}

// A registry that redirects without end is left after 5 redirects.
func TestRegistryRedirectCap(t *testing.T) {
	f, ref, c, _ := guarded(t, nil)
	var hops atomic.Int64
	f.setBefore(func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.Contains(r.URL.Path, "/blobs/") {
			return false
		}
		n := hops.Add(1)
		http.Redirect(w, r, fmt.Sprintf("%s?hop=%d", r.URL.Path, n), http.StatusTemporaryRedirect)
		return true
	})
	_, err := c.Pull(context.Background(), ref)
	if err == nil || !strings.Contains(err.Error(), ref.String()) || !strings.Contains(err.Error(), "stopped after 5 redirects") {
		t.Fatalf("got %v", err)
	}
	if n := hops.Load(); n != 6 {
		t.Errorf("%d blob requests, want the first and 5 redirects", n)
	}
}

// A token realm is a host the registry sends the client to: one at an
// internal address is refused before anything connects there, and so
// before any credential is sent.
func TestTokenRealmGuarded(t *testing.T) {
	f, ref, c, sink := guarded(t, nil)
	var realm atomic.Value
	f.setBefore(func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("WWW-Authenticate", `Bearer realm="`+realm.Load().(string)+`",service="fake"`)
		w.WriteHeader(http.StatusUnauthorized)
		return true
	})
	for _, tc := range refusedTargets(sink) {
		t.Run(tc.name, func(t *testing.T) {
			realm.Store(tc.url + "token")
			_, err := c.Pull(context.Background(), ref)
			if err == nil || !strings.Contains(err.Error(), ref.String()) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("realm %stoken: got %v, want an error naming %s saying %q", tc.url, err, ref, tc.want)
			}
		})
	}
	if n := sink.Conns(); n != 0 {
		t.Errorf("the refused realms had %d connections", n)
	}
}

// A proxy the environment names is the operator's: it is reached at a
// loopback address, and resolves names itself; a token realm at an
// address is still refused before it is sent there.
func TestProxyFromTheEnvironment(t *testing.T) {
	f, ref, c, sink := guarded(t, nil)
	var proxied atomic.Int64
	proxy := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		f.Config.Handler.ServeHTTP(w, r) // the registry answers through it
	})
	u, _ := url.Parse(proxy.URL)
	oci.UseProxy(c, u)
	if _, err := c.Pull(context.Background(), ref); err != nil || proxied.Load() == 0 {
		t.Fatalf("through the proxy: %v, %d requests proxied", err, proxied.Load())
	}
	f.setBefore(func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("WWW-Authenticate", `Bearer realm="http://169.254.169.254/token",service="fake"`)
		w.WriteHeader(http.StatusUnauthorized)
		return true
	})
	n := proxied.Load()
	_, err := c.Pull(context.Background(), ref)
	if want := "169.254.169.254 is not a public address (link-local)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a token realm at the metadata address through the proxy: got %v, want %q", err, want)
	}
	if proxied.Load() != n+1 {
		t.Errorf("the proxy had %d requests, want the registry's one", proxied.Load()-n)
	}
	if sink.Conns() != 0 {
		t.Error("the sink was reached")
	}
}

// Credentials go to the registry and to the token realm it names, never
// to a host a registry redirects a request to, even at the registry's
// host name on another port. The redirect target and the realm are on
// loopback here, counted as public for the test.
func TestCredentialsStayWithTheRegistry(t *testing.T) {
	wasm := echoWasm(t)
	var mu sync.Mutex
	seen := map[string][]string{} // Authorization headers, by server
	record := func(server string, r *http.Request) {
		mu.Lock()
		seen[server] = append(seen[server], r.Header.Get("Authorization"))
		mu.Unlock()
	}
	target := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		record("target", r)
		w.Write(wasm)
	})
	realm := egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		record("realm", r)
		fmt.Fprint(w, `{"token":"t0ken"}`)
	})
	for _, scheme := range []string{"Basic", "Bearer"} {
		t.Run(scheme, func(t *testing.T) {
			clear(seen)
			f := newFakeRegistry(t)
			f.put(t, "v1", ocispec.MediaTypeImageManifest, wasmConfig(), wasmLayer(wasm))
			want := map[string]string{"Basic": "Basic " + basic(ocitest.User, ocitest.Password), "Bearer": "Bearer t0ken"}[scheme]
			f.setBefore(func(w http.ResponseWriter, r *http.Request) bool {
				record("registry", r)
				switch {
				case r.Header.Get("Authorization") != want && scheme == "Basic":
					w.Header().Set("WWW-Authenticate", `Basic realm="fake"`)
				case r.Header.Get("Authorization") != want:
					w.Header().Set("WWW-Authenticate", `Bearer realm="`+realm.URL+`/token",service="fake"`)
				case strings.Contains(r.URL.Path, "/blobs/"):
					http.Redirect(w, r, target.URL+"/blob", http.StatusTemporaryRedirect)
					return true
				default:
					return false
				}
				w.WriteHeader(http.StatusUnauthorized)
				return true
			})
			dir := t.TempDir()
			config := `{"auths":{"` + f.host() + `":{"auth":"` + basic(ocitest.User, ocitest.Password) + `"}}}`
			if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("DOCKER_CONFIG", dir)
			cred, err := oci.DockerCredentials()
			if err != nil {
				t.Fatal(err)
			}
			c := oci.NewClient(oci.Options{Credential: cred})
			oci.TreatAsPublic(c, netip.MustParseAddr("127.0.0.1"))
			ref, _ := oci.ParseReference(f.host()+"/team/echo:v1", false)
			a, err := c.Pull(context.Background(), ref)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Wasm, wasm) {
				t.Fatal("pulled other bytes")
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.Contains(seen["registry"], want) {
				t.Errorf("the registry never saw %q: %q", want, seen["registry"])
			}
			if scheme == "Bearer" && !slices.Equal(seen["realm"], []string{"Basic " + basic(ocitest.User, ocitest.Password)}) {
				t.Errorf("the realm saw %q", seen["realm"])
			}
			if !slices.Equal(seen["target"], []string{""}) {
				t.Errorf("the redirect target saw %q", seen["target"])
			}
		})
	}
}
