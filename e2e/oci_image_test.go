package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/wasmcp/wasmcp/internal/ocitest"
	"github.com/wasmcp/wasmcp/internal/sigstore/sigstoretest"
)

// rstime is hyper-mcp's published rstime plugin; named, it is that module
// with a custom section holding name, so that each image holds a module
// of its own.
func rstime(t *testing.T, name string) []byte {
	t.Helper()
	wasm, err := os.ReadFile(filepath.Join("..", "host", "testdata", "thirdparty", "rstime.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if name == "" {
		return wasm
	}
	return append(append(slices.Clip(wasm), 0, byte(len(name)+1), byte(len(name))), name...)
}

// pushImage pushes module as "docker build" does hyper-mcp's plugin
// Dockerfiles (FROM scratch, COPY plugin.wasm /) and returns its manifest.
func pushImage(t *testing.T, ref string, module []byte) ocispec.Descriptor {
	t.Helper()
	config, layer := ocitest.DockerImage(module)
	m, err := ocitest.PushImage(context.Background(), ref, ocitest.DockerManifest, config, layer)
	if err != nil {
		t.Fatal(err)
	}
	return m.Desc
}

// hyper-mcp's plugin images, signed with cosign as its release workflow
// does, served by reference under a Sigstore policy of the workflow's
// identity: the signed one serves and runs, with its clock granted by the
// policy file; one signed by someone else, one signed as cosign 2 did by
// the wrong issuer, and an unsigned one are each one log line naming the
// reference and why. With -trusted-keys too, the Sigstore signature
// stands in for an Ed25519 one; with -lock, the lock holds as well.
func TestServeSignedImages(t *testing.T) {
	dockerConfig(t)
	reg := ocitest.Start(t, ocitest.Options{})
	ctx := context.Background()
	s := sigstoretest.New(t)
	signed, stranger, issuer, unsigned := reg.Ref("tuananh/time-plugin", "nightly"), reg.Ref("tuananh/hash-plugin", "nightly"),
		reg.Ref("tuananh/qr-plugin", "nightly"), reg.Ref("tuananh/myip-plugin", "nightly")
	desc := pushImage(t, signed, rstime(t, ""))
	if err := ocitest.AttachBundle(ctx, signed, desc, s.Bundle(t, sigstoretest.Subject, sigstoretest.Issuer, desc.Digest)); err != nil {
		t.Fatal(err)
	}
	desc = pushImage(t, stranger, rstime(t, "hash"))
	if err := ocitest.AttachBundle(ctx, stranger, desc, s.Bundle(t, "https://github.com/mallory/fork/.github/workflows/nightly.yml@refs/heads/main", sigstoretest.Issuer, desc.Digest)); err != nil {
		t.Fatal(err)
	}
	desc = pushImage(t, issuer, rstime(t, "qr"))
	payload, ann := s.Legacy(t, sigstoretest.Subject, "https://accounts.example.com", desc.Digest)
	if err := ocitest.PushLegacySignatures(ctx, issuer, desc.Digest, ocitest.Simple{Payload: payload, Annotations: ann}); err != nil {
		t.Fatal(err)
	}
	pushImage(t, unsigned, rstime(t, "myip"))

	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("trusted_root.json", string(s.TrustedRoot(t)))
	sig := write("sigstore.json", `{"identities": [{"issuer": "`+sigstoretest.Issuer+`", "subject": "`+sigstoretest.Subject+`"}], "trustedRoot": "trusted_root.json"}`)
	config := write("policy.json", `{"sources": ["`+signed+`", "`+stranger+`", "`+issuer+`", "`+unsigned+`"], "plugins": {"time-plugin": {"clock": true}}}`)
	args := []string{"--log-format", "json", "--config", config, "--sigstore", sig}

	srv := startServer(t, t.TempDir(), serverOptions{protocol: legacyProtocol, args: args})
	if _, ok := srv.tools(t)["get_time"]; !ok {
		t.Fatalf("get_time not served\nlog:\n%s", srv.stderr)
	}
	if res := srv.call(t, "get_time", `{"timezone":"UTC"}`); res.IsError || text(res) == "" || strings.Contains(text(res), "2022") {
		t.Errorf("get_time = %s", text(res))
	}
	srv.waitLog(t, 0, "plugin not loaded", logField("ref", stranger), "no valid signature", "mallory")
	srv.waitLog(t, 0, "plugin not loaded", logField("ref", issuer), "no valid signature", "https://accounts.example.com")
	srv.waitLog(t, 0, "plugin not loaded", logField("ref", unsigned), "not signed", "no Sigstore signature")
	srv.waitLog(t, 0, "plugin from registry", logField("ref", signed))

	// With trusted Ed25519 keys too: the Sigstore signature is enough.
	keyDir := t.TempDir()
	trusted := wasmcpOK(t, "keygen", "-o", filepath.Join(keyDir, "key.pem"))
	keys := write("wasmcp.keys", trusted)
	srv = startServer(t, t.TempDir(), serverOptions{protocol: legacyProtocol, args: append(args, "--trusted-keys", keys)})
	if _, ok := srv.tools(t)["get_time"]; !ok {
		t.Fatalf("get_time not served with -trusted-keys\nlog:\n%s", srv.stderr)
	}
	srv.waitLog(t, 0, "plugin not loaded", logField("ref", unsigned), "not signed", "nor by Sigstore")

	// And the lock holds: a signed module it does not pin is refused.
	lock := write("wasmcp.lock", wasmcpOK(t, "lock", stranger))
	srv = startServer(t, t.TempDir(), serverOptions{protocol: legacyProtocol, args: append(args, "--lock", lock)})
	srv.waitLog(t, 0, "plugin not loaded", logField("ref", signed), "not pinned")
	if _, ok := srv.tools(t)["get_time"]; ok {
		t.Error("get_time served though the lock does not pin it")
	}
}

// hyper-mcp's image layouts by reference, without signatures: its Docker
// image, and an index of the image and its build attestation as buildx
// pushes it, serve the plugin; a component image is one log line saying
// what it is.
func TestServeImageLayouts(t *testing.T) {
	dockerConfig(t)
	reg := ocitest.Start(t, ocitest.Options{})
	ctx := context.Background()
	docker := reg.Ref("tuananh/time-plugin", "latest")
	pushImage(t, docker, rstime(t, ""))
	buildx := reg.Ref("tuananh/rstime", "latest")
	image := pushImage(t, reg.Ref("tuananh/rstime", "image"), rstime(t, ""))
	att, err := ocitest.PushImage(ctx, reg.Ref("tuananh/rstime", "att"), ocispec.MediaTypeImageManifest,
		ocitest.NewBlob(ocispec.MediaTypeImageConfig, []byte(`{}`)), ocitest.Layer(ocitest.File{Name: "provenance.json", Data: []byte("{}")}))
	if err != nil {
		t.Fatal(err)
	}
	attestation := att.Desc
	image.Platform = &ocispec.Platform{OS: "linux", Architecture: "amd64"}
	attestation.Platform = &ocispec.Platform{OS: "unknown", Architecture: "unknown"}
	attestation.Annotations = map[string]string{"vnd.docker.reference.type": "attestation-manifest"}
	if _, err := ocitest.PushIndex(ctx, buildx, image, attestation); err != nil {
		t.Fatal(err)
	}
	component := reg.Ref("team/component", "latest")
	pushImage(t, component, []byte("\x00asm\x0d\x00\x01\x00"))

	srv := startServer(t, t.TempDir(), serverOptions{protocol: legacyProtocol,
		args: []string{"--log-format", "json", "--plugin", buildx, "--plugin", component}})
	if _, ok := srv.tools(t)["parse_time"]; !ok {
		t.Fatalf("rstime not served from buildx's index\nlog:\n%s", srv.stderr)
	}
	if res := srv.call(t, "parse_time", `{"time":"Tue, 1 Jul 2003 10:52:37 +0200"}`); res.IsError || !strings.Contains(text(res), "1057049557") {
		t.Errorf("parse_time = %s", text(res))
	}
	srv.waitLog(t, 0, "plugin not loaded", logField("ref", component), "a WebAssembly component, not a core module")

	srv = startServer(t, t.TempDir(), serverOptions{protocol: legacyProtocol, args: []string{"--plugin", docker}})
	if _, ok := srv.tools(t)["get_time"]; !ok {
		t.Fatalf("rstime not served from its Docker image\nlog:\n%s", srv.stderr)
	}
}
