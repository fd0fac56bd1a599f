// Package hyperimages publishes hyper-mcp's rstime plugin to a registry
// as hyper-mcp publishes its plugins, for the end-to-end tests: a Docker
// image signed by the release workflow's identity (a Sigstore bundle of a
// virtual Sigstore, attached as an OCI referrer), one signed by a
// stranger, one signed as cosign 2 did by the wrong issuer, an unsigned
// one, buildx's index of an image and its attestation, a WebAssembly
// component's image, and an ORAS artifact signed by another workflow, as
// hyper-mcp-rs's plugins (Monty's among them) are published. The TypeScript tests, which cannot sign as cosign
// does, run it through its command, cmd/publish.
package hyperimages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/wasmcp/wasmcp/internal/ocitest"
	"github.com/wasmcp/wasmcp/internal/sigstore/sigstoretest"
)

// ORASSubject is the identity that signs the ORAS artifact: Monty's
// plugin's release workflow, which the policy accepts by regular
// expression, as Monty's README verifies it.
const ORASSubject = "https://github.com/pydantic/monty-plugin/.github/workflows/release-oras.yml@refs/tags/v0.1.0"

// Refs are the published references and the Sigstore policy's file.
type Refs struct {
	Signed      string `json:"signed"`      // by sigstoretest.Subject
	Stranger    string `json:"stranger"`    // by another workflow
	WrongIssuer string `json:"wrongIssuer"` // as cosign 2 signed, by another issuer
	Unsigned    string `json:"unsigned"`
	Index       string `json:"index"` // buildx's index, unsigned
	Component   string `json:"component"`
	ORAS        string `json:"oras"`     // as Monty's plugin is published, signed by ORASSubject
	Sigstore    string `json:"sigstore"` // accepts sigstoretest's identity
}

// Publish pushes the images of the module wasm to the registry at host:port
// registry and writes the Sigstore policy that accepts the signed one, and
// its trusted root, into dir.
func Publish(ctx context.Context, registry, dir string, wasm []byte) (Refs, error) {
	ref := func(repo, tag string) string { return registry + "/" + repo + ":" + tag }
	refs := Refs{
		Signed: ref("tuananh/time-plugin", "nightly"), Stranger: ref("tuananh/hash-plugin", "nightly"),
		WrongIssuer: ref("tuananh/qr-plugin", "nightly"),
		Unsigned:    ref("tuananh/myip-plugin", "nightly"), Index: ref("tuananh/rstime", "latest"),
		Component: ref("team/component", "latest"), ORAS: ref("pydantic/monty-plugin", "latest"),
		Sigstore: filepath.Join(dir, "sigstore.json"),
	}
	s := sigstoretest.New(failer{})
	for _, im := range []struct {
		ref, signer string
		module      []byte
	}{
		{refs.Signed, sigstoretest.Subject, wasm},
		{refs.Stranger, "https://github.com/mallory/fork/.github/workflows/nightly.yml@refs/heads/main", named(wasm, "hash")},
		{refs.Unsigned, "", named(wasm, "myip")},
		{refs.Component, "", []byte("\x00asm\x0d\x00\x01\x00")},
	} {
		m, err := pushImage(ctx, im.ref, im.module)
		if err != nil {
			return refs, err
		}
		if im.signer != "" {
			if err := ocitest.AttachBundle(ctx, im.ref, m, s.Bundle(failer{}, im.signer, sigstoretest.Issuer, m.Digest)); err != nil {
				return refs, fmt.Errorf("%s: %w", im.ref, err)
			}
		}
	}
	m, err := pushImage(ctx, refs.WrongIssuer, named(wasm, "qr"))
	if err != nil {
		return refs, err
	}
	payload, ann := s.Legacy(failer{}, sigstoretest.Subject, "https://accounts.example.com", m.Digest)
	if err := ocitest.PushLegacySignatures(ctx, refs.WrongIssuer, m.Digest, ocitest.Simple{Payload: payload, Annotations: ann}); err != nil {
		return refs, fmt.Errorf("%s: %w", refs.WrongIssuer, err)
	}
	desc, err := ocitest.PushFile(ctx, refs.ORAS, ocitest.HyperMCPArtifactType, "plugin.wasm", "application/wasm", named(wasm, "monty"))
	if err != nil {
		return refs, err
	}
	if err := ocitest.AttachBundle(ctx, refs.ORAS, desc, s.Bundle(failer{}, ORASSubject, sigstoretest.Issuer, desc.Digest)); err != nil {
		return refs, fmt.Errorf("%s: %w", refs.ORAS, err)
	}
	if err := pushIndex(ctx, refs.Index, registry+"/tuananh/rstime", wasm); err != nil {
		return refs, err
	}
	for name, data := range map[string][]byte{
		"trusted_root.json": s.TrustedRoot(failer{}),
		"sigstore.json": []byte(`{"identities": [{"issuer": "` + sigstoretest.Issuer + `", "subject": "` + sigstoretest.Subject + `"},
	{"issuer": "` + sigstoretest.Issuer + `", "subjectRegexp": "^https://github\\.com/pydantic/monty-plugin/\\.github/workflows/.+"}],
	"trustedRoot": "trusted_root.json"}`),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return refs, err
		}
	}
	return refs, nil
}

// named is module with a custom section holding name, so that each image
// holds a module of its own.
func named(module []byte, name string) []byte {
	out := append([]byte(nil), module...)
	return append(append(out, 0, byte(len(name)+1), byte(len(name))), name...)
}

// pushImage pushes module as "docker build" does hyper-mcp's plugin
// Dockerfiles (FROM scratch, COPY plugin.wasm /).
func pushImage(ctx context.Context, ref string, module []byte) (ocispec.Descriptor, error) {
	config, layer := ocitest.DockerImage(module)
	m, err := ocitest.PushImage(ctx, ref, ocitest.DockerManifest, config, layer)
	if err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("%s: %w", ref, err)
	}
	return m.Desc, nil
}

// pushIndex pushes at ref an index of the module's image and a build
// attestation, as buildx pushes hyper-mcp's images.
func pushIndex(ctx context.Context, ref, repo string, module []byte) error {
	image, err := pushImage(ctx, repo+":image", module)
	if err != nil {
		return err
	}
	att, err := ocitest.PushImage(ctx, repo+":att", ocispec.MediaTypeImageManifest,
		ocitest.NewBlob(ocispec.MediaTypeImageConfig, []byte(`{}`)), ocitest.Layer(ocitest.File{Name: "provenance.json", Data: []byte("{}")}))
	if err != nil {
		return fmt.Errorf("%s: %w", ref, err)
	}
	attestation := att.Desc
	image.Platform = &ocispec.Platform{OS: "linux", Architecture: "amd64"}
	attestation.Platform = &ocispec.Platform{OS: "unknown", Architecture: "unknown"}
	attestation.Annotations = map[string]string{"vnd.docker.reference.type": "attestation-manifest"}
	if _, err := ocitest.PushIndex(ctx, ref, image, attestation); err != nil {
		return fmt.Errorf("%s: %w", ref, err)
	}
	return nil
}

// failer is sigstoretest.TB outside a test: signing cannot fail but for a
// broken build.
type failer struct{}

func (failer) Helper()           {}
func (failer) Fatal(args ...any) { panic(fmt.Sprint(args...)) }
