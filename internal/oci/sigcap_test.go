package oci_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/wasmcp/wasmcp/internal/oci"
)

// TestSignaturesCapCountsLayers checks that the cap on signatures counts
// signature documents, not referrers: one referrer listing many layers
// would otherwise have the client fetch and keep each of them.
func TestSignaturesCapCountsLayers(t *testing.T) {
	reg, c, a := pushedEcho(t)
	ctx := context.Background()
	repo, err := remote.NewRepository(reg.Host + "/team/echo")
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	var layers []ocispec.Descriptor
	for i := range 40 {
		sig := fmt.Appendf(nil, "c2lnbmF0dXJl%04d\n", i)
		d := content.NewDescriptorFromBytes(oci.SignatureMediaType, sig)
		if err := repo.Push(ctx, d, strings.NewReader(string(sig))); err != nil {
			t.Fatal(err)
		}
		layers = append(layers, d)
	}
	if _, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, oci.SignatureArtifactType,
		oras.PackManifestOptions{Subject: &a.Manifest, Layers: layers}); err != nil {
		t.Fatal(err)
	}
	sigs, err := c.Signatures(ctx, a)
	if n := len(strings.Fields(string(sigs))); err == nil && n > 16 {
		t.Fatalf("%d signatures fetched and returned, over the cap of 16", n)
	}
}
