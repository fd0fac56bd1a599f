package oci_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/wasmcp/wasmcp/host/trust"
	"github.com/wasmcp/wasmcp/internal/oci"
	"github.com/wasmcp/wasmcp/internal/ocitest"
	"github.com/wasmcp/wasmcp/internal/sigstore"
	"github.com/wasmcp/wasmcp/internal/sigstore/sigstoretest"
)

// sigstorePolicy writes a policy trusting the identity of sigstoretest
// under s's trusted root, and loads it.
func sigstorePolicy(t *testing.T, s *sigstoretest.Sigstore) *sigstore.Policy {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "root.json"), s.TrustedRoot(t), 0o600); err != nil {
		t.Fatal(err)
	}
	doc := `{"identities": [{"issuer": "` + sigstoretest.Issuer + `", "subject": "` + sigstoretest.Subject + `"}], "trustedRoot": "root.json"}`
	if err := os.WriteFile(filepath.Join(dir, "sigstore.json"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := sigstore.Load(filepath.Join(dir, "sigstore.json"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSigstoreSignatures signs hyper-mcp images in a real registry as
// cosign 3 (a bundle referrer) and cosign 2 (the sha256-HEX.sig tag) do,
// fetches them with the modules, and judges the cached modules as the
// host does; a warm fetch asks the registry for no signature.
func TestSigstoreSignatures(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{})
	ctx := context.Background()
	s := sigstoretest.New(t)
	p := sigstorePolicy(t, s)
	wasm := rstimeWasm(t)

	// Each image holds a module of its own: a custom section names it.
	image := func(t *testing.T, repo string, module []byte) (string, ocispec.Descriptor) {
		ref := reg.Ref(repo, "latest")
		module = append(append(slices.Clip(module), 0, byte(len(repo)+1), byte(len(repo))), repo...)
		config, layer := ocitest.DockerImage(module)
		m, err := ocitest.PushImage(ctx, ref, ocitest.DockerManifest, config, layer)
		if err != nil {
			t.Fatal(err)
		}
		return ref, m.Desc
	}
	bundled, bdesc := image(t, "team/bundled", wasm)
	if err := ocitest.AttachBundle(ctx, bundled, bdesc, s.Bundle(t, sigstoretest.Subject, sigstoretest.Issuer, bdesc.Digest)); err != nil {
		t.Fatal(err)
	}
	legacy, ldesc := image(t, "team/legacy", wasm)
	payload, ann := s.Legacy(t, sigstoretest.Subject, sigstoretest.Issuer, ldesc.Digest)
	if err := ocitest.PushLegacySignatures(ctx, legacy, ldesc.Digest, ocitest.Simple{Payload: payload, Annotations: ann}); err != nil {
		t.Fatal(err)
	}
	unsigned, _ := image(t, "team/unsigned", wasm)
	stranger, sdesc := image(t, "team/stranger", wasm)
	if err := ocitest.AttachBundle(ctx, stranger, sdesc, s.Bundle(t, "mallory@example.com", sigstoretest.Issuer, sdesc.Digest)); err != nil {
		t.Fatal(err)
	}
	// A signature of another image, attached to this one.
	other, odesc := image(t, "team/other", echoWasm(t))
	if err := ocitest.AttachBundle(ctx, other, odesc, s.Bundle(t, sigstoretest.Subject, sigstoretest.Issuer, bdesc.Digest)); err != nil {
		t.Fatal(err)
	}

	cache, err := oci.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &oci.Fetcher{Client: oci.NewClient(oci.Options{}), Cache: cache, Sigstore: func() *sigstore.Policy { return p }}
	v := &trust.Verifier{Attestor: oci.NewAttestor(p)}
	for _, tc := range []struct {
		ref  string
		want error // nil: allowed
		why  string
	}{
		{bundled, nil, ""},
		{legacy, nil, ""},
		{unsigned, trust.ErrUnsigned, "no Sigstore signature"},
		{stranger, trust.ErrBadSignature, "mallory@example.com"},
		{other, trust.ErrBadSignature, "does not match"},
	} {
		t.Run(tc.ref[strings.LastIndex(tc.ref, "/")+1:], func(t *testing.T) {
			got, err := f.Fetch(ctx, tc.ref)
			if err != nil {
				t.Fatal(err)
			}
			_, err = v.ReadModule(got.Path)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("got %v, want %v saying %q", err, tc.want, tc.why)
			}
		})
	}

	// Warm: the registry is gone, the cached verdicts stand.
	reg.Stop()
	got, err := f.Fetch(ctx, bundled)
	if err != nil {
		t.Fatal(err)
	}
	module, err := os.ReadFile(got.Path)
	if err != nil {
		t.Fatal(err)
	}
	signer, required, err := oci.NewAttestor(p).Attest(got.Path, sha256.Sum256(module))
	if err != nil || !required || !strings.Contains(signer, sigstoretest.Subject) {
		t.Fatalf("warm: %q %v %v", signer, required, err)
	}
	// Under another policy, the cached signatures are judged again.
	if _, _, err := oci.NewAttestor(sigstorePolicy(t, sigstoretest.New(t))).Attest(got.Path, sha256.Sum256(module)); err == nil {
		t.Fatal("a verdict of one policy served another")
	}
	// A file outside a cache is not the Attestor's to judge.
	if _, required, _ := oci.NewAttestor(p).Attest(filepath.Join(t.TempDir(), "x.wasm"), [32]byte{}); required {
		t.Error("a directory's module required a Sigstore signature")
	}
	// Nor does a module pass for another's cache entry.
	if _, _, err := oci.NewAttestor(p).Attest(got.Path, sha256.Sum256([]byte("other"))); err == nil {
		t.Error("a module attested under another's digest")
	}
}
