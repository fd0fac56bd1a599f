package oci_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/wasmcp/wasmcp/internal/egresstest"
	"github.com/wasmcp/wasmcp/internal/oci"
	"github.com/wasmcp/wasmcp/internal/ocitest"
)

// echoWasm is a small wasmcp module.
func echoWasm(t *testing.T) []byte {
	t.Helper()
	wasm, err := os.ReadFile(filepath.Join("..", "..", "host", "testdata", "echo.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	return wasm
}

// pushedEcho starts a registry, pushes the echo module to it as
// team/echo:v1 and returns the registry, a client and the pulled artifact.
func pushedEcho(t *testing.T) (*ocitest.Registry, *oci.Client, *oci.Artifact) {
	t.Helper()
	reg := ocitest.Start(t, ocitest.Options{})
	c := oci.NewClient(oci.Options{})
	ref, _ := oci.ParseReference(reg.Ref("team/echo", "v1"), false)
	if _, err := c.Push(context.Background(), ref.String(), echoWasm(t), nil); err != nil {
		t.Fatal(err)
	}
	a, err := c.Pull(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	return reg, c, a
}

func TestPushPull(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{})
	c := oci.NewClient(oci.Options{})
	ctx := context.Background()
	wasm := echoWasm(t)
	ref := reg.Ref("team/echo", "v1")
	ann := map[string]string{oci.AnnotationTools: "echo", oci.AnnotationABI: "1"}
	desc, err := c.Push(ctx, ref, wasm, ann)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Push(ctx, ref, wasm, ann)
	if err != nil || again.Digest != desc.Digest {
		t.Fatalf("second push: %v, %s want %s", err, again.Digest, desc.Digest)
	}
	for _, tc := range []struct{ name, ref string }{{"tag", ref}, {"digest", reg.Ref("team/echo", desc.Digest.String())}} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.ref
			parsed, err := oci.ParseReference(r, false)
			if err != nil {
				t.Fatal(err)
			}
			a, err := c.Pull(ctx, parsed)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Wasm, wasm) {
				t.Errorf("%s: pulled %d bytes, not the %d pushed", r, len(a.Wasm), len(wasm))
			}
			if a.Manifest.Digest != desc.Digest || a.Annotations[oci.AnnotationTools] != "echo" {
				t.Errorf("%s: manifest %s annotations %v", r, a.Manifest.Digest, a.Annotations)
			}
		})
	}

	// The manifest as the registry stores it: the CNCF Wasm layout.
	req, _ := http.NewRequest(http.MethodGet, "http://"+reg.Host+"/v2/team/echo/manifests/v1", nil)
	req.Header.Set("Accept", ocispec.MediaTypeImageManifest)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m ocispec.Manifest
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.MediaType != ocispec.MediaTypeImageManifest || m.Config.MediaType != "application/vnd.wasm.config.v0+json" ||
		len(m.Layers) != 1 || m.Layers[0].MediaType != "application/wasm" || m.Layers[0].Digest != digest.FromBytes(wasm) {
		t.Errorf("manifest: %+v", m)
	}
}

func TestSignatures(t *testing.T) {
	_, c, a := pushedEcho(t)
	ctx := context.Background()
	if sigs, err := c.Signatures(ctx, a); err != nil || sigs != nil {
		t.Fatalf("unsigned: %q, %v", sigs, err)
	}
	// distribution 2.8 has no referrers API: this is the tag schema.
	for _, sig := range []string{"c2lnbmF0dXJlIG9uZQ==\n", "c2lnbmF0dXJlIHR3bw==\n"} {
		if _, err := c.Attach(ctx, a, []byte(sig)); err != nil {
			t.Fatal(err)
		}
	}
	sigs, err := c.Signatures(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(sigs)); len(got) != 2 {
		t.Errorf("signatures: %q", sigs)
	}
}

func TestBasicAuthFromDockerConfig(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{Auth: true})
	ctx := context.Background()
	ref := reg.Ref("team/echo", "v1")
	if _, err := oci.NewClient(oci.Options{}).Push(ctx, ref, echoWasm(t), nil); err == nil ||
		!strings.Contains(err.Error(), ref) {
		t.Fatalf("anonymous push: %v, want an error naming %s", err, ref)
	}
	dir := t.TempDir()
	config := `{"auths":{"` + reg.Host + `":{"auth":"` + basic(ocitest.User, ocitest.Password) + `"}}}`
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dir)
	cred, err := oci.DockerCredentials()
	if err != nil {
		t.Fatal(err)
	}
	c := oci.NewClient(oci.Options{Credential: cred})
	if _, err := c.Push(ctx, ref, echoWasm(t), nil); err != nil {
		t.Fatal(err)
	}
	parsed, _ := oci.ParseReference(ref, false)
	if _, err := c.Pull(ctx, parsed); err != nil {
		t.Fatal(err)
	}
}

func basic(user, password string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
}

// TestPullRefuses gives the client what a registry must not serve as a
// module; each error names the reference.
func TestPullRefuses(t *testing.T) {
	wasm := echoWasm(t)
	f := newFakeRegistry(t)
	f.put(t, "docker", "application/vnd.docker.distribution.manifest.v2+json", wasmConfig(), wasmLayer(wasm))
	f.put(t, "config", ocispec.MediaTypeImageManifest,
		blob{desc: ocispec.Descriptor{MediaType: ocispec.MediaTypeImageConfig}, data: []byte(`{}`)}, wasmLayer(wasm))
	f.put(t, "layermedia", ocispec.MediaTypeImageManifest,
		blob{desc: ocispec.Descriptor{MediaType: ocispec.MediaTypeImageConfig}, data: []byte(`{}`)},
		blob{desc: ocispec.Descriptor{MediaType: "application/vnd.example.thing"}, data: []byte("thing")})
	f.put(t, "layertype", ocispec.MediaTypeImageManifest, wasmConfig(),
		blob{desc: ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayerGzip}, data: wasm})
	f.put(t, "notwasm", ocispec.MediaTypeImageManifest, wasmConfig(), wasmLayer([]byte("#!/bin/sh\necho hi\n")))
	f.put(t, "mismatch", ocispec.MediaTypeImageManifest, wasmConfig(),
		blob{desc: ocispec.Descriptor{MediaType: "application/wasm", Digest: digest.FromString("other"), Size: int64(len(wasm))}, data: wasm})
	f.put(t, "large", ocispec.MediaTypeImageManifest, wasmConfig(),
		blob{desc: ocispec.Descriptor{MediaType: "application/wasm", Size: 1 << 40}, data: wasm})
	f.put(t, "twolayers", ocispec.MediaTypeImageManifest, wasmConfig(), wasmLayer(wasm), wasmLayer(wasm))
	f.put(t, "ok", ocispec.MediaTypeImageManifest, wasmConfig(), wasmLayer(wasm))

	c := oci.NewClient(oci.Options{MaxModuleSize: 1 << 20})
	for _, tc := range []struct{ tag, want string }{
		{"layermedia", `media type "application/vnd.example.thing": neither a module (application/wasm) nor a tar or tar+gzip layer`},
		{"layertype", "want application/wasm"},
		{"notwasm", "not a WebAssembly binary"},
		{"mismatch", "mismatched digest"},
		{"large", "over the 1048576-byte cap"},
		{"twolayers", "2 layers"},
		{"missing", "not found"},
	} {
		t.Run(tc.tag, func(t *testing.T) {
			ref, err := oci.ParseReference(f.host()+"/team/echo:"+tc.tag, false)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Pull(context.Background(), ref)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), ref.String()) {
				t.Fatalf("got %v, want an error naming %s saying %q", err, ref, tc.want)
			}
		})
	}
	// Docker's manifest type holds the CNCF layout as well; an
	// application/wasm layer is the module whatever the config, as ORAS
	// pushes a file (read as an image of that one layer).
	for tag, layout := range map[string]oci.Layout{"ok": oci.LayoutArtifact, "docker": oci.LayoutArtifact, "config": oci.LayoutImage} {
		ref, _ := oci.ParseReference(f.host()+"/team/echo:"+tag, false)
		if a, err := c.Pull(context.Background(), ref); err != nil || !bytes.Equal(a.Wasm, wasm) || a.Layout != layout {
			t.Fatalf("%s: %v", tag, err)
		}
	}
}

func TestRegistryDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := ln.Addr().String()
	ln.Close()
	ref, _ := oci.ParseReference(host+"/team/echo:v1", false)
	_, err = oci.NewClient(oci.Options{}).Pull(context.Background(), ref)
	if err == nil || !strings.Contains(err.Error(), ref.String()) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("got %v", err)
	}
}

func TestSlowRegistry(t *testing.T) {
	f := newFakeRegistry(t)
	f.mu.Lock()
	f.stall = make(chan struct{})
	f.mu.Unlock()
	ref, _ := oci.ParseReference(f.host()+"/team/echo:v1", false)
	_, err := oci.NewClient(oci.Options{Timeout: 100 * time.Millisecond}).Pull(context.Background(), ref)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), ref.String()) {
		t.Fatalf("got %v, want the deadline naming %s", err, ref)
	}
}

func TestPlainHTTPOnlyForLoopback(t *testing.T) {
	// A registry that is not loopback is spoken to in HTTPS: its first
	// byte is a TLS handshake record's. The name resolves to a loopback
	// listener, which the client may reach since the reference names it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	first := make(chan byte, 2)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b := make([]byte, 1)
			c.Read(b)
			first <- b[0]
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	names := egresstest.Resolver{"registry.test": {netip.MustParseAddr("127.0.0.1")}}
	ref, _ := oci.ParseReference("registry.test:"+port+"/team/echo:v1", false)
	for _, tc := range []struct {
		plain bool
		want  byte
	}{{false, 0x16}, {true, 'G'}} {
		t.Run(fmt.Sprintf("plain=%v", tc.plain), func(t *testing.T) {
			c := oci.NewClient(oci.Options{PlainHTTP: tc.plain, Resolver: names, Timeout: 5 * time.Second})
			if _, err := c.Pull(context.Background(), ref); err == nil {
				t.Fatal("pulled from a listener that answers nothing")
			}
			if b := <-first; b != tc.want {
				t.Errorf("plain HTTP %v: the first byte is %q, want %q", tc.plain, b, tc.want)
			}
		})
	}
}

// A credential helper named in Docker's config answers for its registry, as
// docker-credential-* helpers do: "get" with the server's address on stdin.
func TestCredentialHelper(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{Auth: true})
	bin := t.TempDir()
	helper := "#!/bin/sh\nread server\n[ \"$1\" = get ] || exit 1\n" +
		`printf '{"ServerURL":"%s","Username":"` + ocitest.User + `","Secret":"` + ocitest.Password + `"}' "$server"` + "\n"
	if err := os.WriteFile(filepath.Join(bin, "docker-credential-wasmcptest"), []byte(helper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"credHelpers":{"`+reg.Host+`":"wasmcptest"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dir)
	cred, err := oci.DockerCredentials()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oci.NewClient(oci.Options{Credential: cred}).Push(context.Background(), reg.Ref("team/echo", "v1"), echoWasm(t), nil); err != nil {
		t.Fatal(err)
	}
}
