package ocitest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
)

// Media types of Docker's image format, as "docker build" pushes it.
const (
	DockerManifest  = "application/vnd.docker.distribution.manifest.v2+json"
	DockerConfig    = "application/vnd.docker.container.image.v1+json"
	DockerLayerGzip = "application/vnd.docker.image.rootfs.diff.tar.gzip"
)

// File is an entry of a tar layer: a regular file with Data, or, when
// Link is set, a symbolic link to it.
type File struct {
	Name string
	Data []byte
	Link string
}

// Blob is a document and its descriptor.
type Blob struct {
	Desc ocispec.Descriptor
	Data []byte
}

// Tar returns a tar stream of files, gzip'd when gz: the layer that a
// Dockerfile's COPY makes.
func Tar(files []File, gz bool) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.Name, Mode: 0o644, Size: int64(len(f.Data)), Typeflag: tar.TypeReg}
		if f.Link != "" {
			h = &tar.Header{Name: f.Name, Mode: 0o777, Linkname: f.Link, Typeflag: tar.TypeSymlink}
		}
		if err := tw.WriteHeader(h); err != nil {
			panic(err)
		}
		if f.Link == "" {
			tw.Write(f.Data)
		}
	}
	tw.Close()
	if !gz {
		return buf.Bytes()
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(buf.Bytes())
	zw.Close()
	return z.Bytes()
}

// NewBlob describes data as a document of mediaType.
func NewBlob(mediaType string, data []byte) Blob {
	return Blob{Desc: content.NewDescriptorFromBytes(mediaType, data), Data: data}
}

// Layer is a tar+gzip layer of files in Docker's media type, as "docker
// build" pushes it.
func Layer(files ...File) Blob { return NewBlob(DockerLayerGzip, Tar(files, true)) }

// DockerImage is the image "docker build" pushes for hyper-mcp's plugin
// Dockerfiles (FROM scratch, COPY plugin.wasm /): a Docker manifest, a
// linux/amd64 config, one tar+gzip layer holding /plugin.wasm.
func DockerImage(wasm []byte) (config, layer Blob) {
	layer = Layer(File{Name: "plugin.wasm", Data: wasm})
	diffID := digest.FromBytes(Tar([]File{{Name: "plugin.wasm", Data: wasm}}, false))
	cfg, _ := json.Marshal(map[string]any{
		"architecture": "amd64", "os": "linux",
		"config": map[string]any{"WorkingDir": "/"},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{diffID.String()}},
	})
	return NewBlob(DockerConfig, cfg), layer
}

// repository is ref's repository, spoken to in plain HTTP.
func repository(ref string) (*remote.Repository, registry.Reference, error) {
	r, err := registry.ParseReference(ref)
	if err != nil {
		return nil, r, err
	}
	repo, err := remote.NewRepository(r.Registry + "/" + r.Repository)
	if err != nil {
		return nil, r, err
	}
	repo.PlainHTTP = true
	return repo, r, nil
}

// PushImage stores config and layers, and a manifest of mediaType (OCI's or
// Docker's) naming them, at ref (host/repo:tag), and returns the manifest.
func PushImage(ctx context.Context, ref, mediaType string, config Blob, layers ...Blob) (Blob, error) {
	m := ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: mediaType, Config: config.Desc}
	for _, l := range layers {
		m.Layers = append(m.Layers, l.Desc)
	}
	data, err := json.Marshal(m)
	if err != nil {
		return Blob{}, err
	}
	manifest := NewBlob(mediaType, data)
	return manifest, Push(ctx, ref, manifest, append([]Blob{config}, layers...)...)
}

// PushIndex stores an index of manifests at ref; each manifest must have
// been pushed to the repository already.
func PushIndex(ctx context.Context, ref string, manifests ...ocispec.Descriptor) (Blob, error) {
	data, err := json.Marshal(ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: manifests})
	if err != nil {
		return Blob{}, err
	}
	index := NewBlob(ocispec.MediaTypeImageIndex, data)
	return index, Push(ctx, ref, index)
}

// Push stores blobs, then manifest at ref's tag (or by digest when ref
// names none).
func Push(ctx context.Context, ref string, manifest Blob, blobs ...Blob) error {
	repo, r, err := repository(ref)
	if err != nil {
		return err
	}
	for _, b := range blobs {
		if ok, err := repo.Exists(ctx, b.Desc); err != nil {
			return err
		} else if !ok {
			if err := repo.Push(ctx, b.Desc, bytes.NewReader(b.Data)); err != nil {
				return fmt.Errorf("push %s: blob %s: %w", ref, b.Desc.Digest, err)
			}
		}
	}
	if _, derr := r.Digest(); derr == nil || r.Reference == "" {
		err = repo.Push(ctx, manifest.Desc, bytes.NewReader(manifest.Data))
	} else {
		err = repo.PushReference(ctx, manifest.Desc, bytes.NewReader(manifest.Data), r.Reference)
	}
	if err != nil {
		return fmt.Errorf("push %s: manifest: %w", ref, err)
	}
	return nil
}

// HyperMCPArtifactType is the artifactType of hyper-mcp's plugins as its
// release workflows push them with ORAS.
const HyperMCPArtifactType = "application/vnd.hyper-mcp.plugin.v2"

// PushFile pushes data to ref as "oras push REF --artifact-type
// artifactType NAME:mediaType" does: an OCI 1.1 manifest of artifactType
// with the empty config and one layer titled name. It returns the
// manifest's descriptor.
func PushFile(ctx context.Context, ref, artifactType, name, mediaType string, data []byte) (ocispec.Descriptor, error) {
	repo, r, err := repository(ref)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	layer := content.NewDescriptorFromBytes(mediaType, data)
	layer.Annotations = map[string]string{ocispec.AnnotationTitle: name}
	if err := repo.Push(ctx, layer, bytes.NewReader(data)); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("push %s: layer: %w", ref, err)
	}
	desc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, artifactType, oras.PackManifestOptions{Layers: []ocispec.Descriptor{layer}})
	if err != nil {
		return desc, fmt.Errorf("push %s: manifest: %w", ref, err)
	}
	if err := repo.Tag(ctx, desc, r.Reference); err != nil {
		return desc, fmt.Errorf("push %s: tag: %w", ref, err)
	}
	return desc, nil
}

// BundleType is the artifactType and layer media type of cosign 3's
// signatures: a Sigstore bundle.
const BundleType = "application/vnd.dev.sigstore.bundle.v0.3+json"

// AttachBundle attaches a Sigstore bundle to subject, a manifest of ref's
// repository, as cosign 3 does: a referrer of artifactType BundleType,
// through the referrers API or, where the registry lacks it, its tag schema.
func AttachBundle(ctx context.Context, ref string, subject ocispec.Descriptor, bundle []byte) error {
	repo, _, err := repository(ref)
	if err != nil {
		return err
	}
	layer := NewBlob(BundleType, bundle)
	if err := repo.Push(ctx, layer.Desc, bytes.NewReader(bundle)); err != nil {
		return err
	}
	_, err = oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, BundleType, oras.PackManifestOptions{
		Subject: &subject, Layers: []ocispec.Descriptor{layer.Desc},
	})
	return err
}

// Simple is a layer of cosign 2's signature manifest: a simple-signing
// payload and the annotations that sign it.
type Simple struct {
	Payload     []byte
	Annotations map[string]string
}

// PushLegacySignatures stores cosign 2's signature manifest of subject, a
// manifest of ref's repository: tag sha256-HEX.sig, a layer per signature.
func PushLegacySignatures(ctx context.Context, ref string, subject digest.Digest, sigs ...Simple) error {
	var layers []Blob
	for _, s := range sigs {
		b := NewBlob("application/vnd.dev.cosign.simplesigning.v1+json", s.Payload)
		b.Desc.Annotations = s.Annotations
		layers = append(layers, b)
	}
	r, err := registry.ParseReference(ref)
	if err != nil {
		return err
	}
	r.Reference = subject.Algorithm().String() + "-" + subject.Encoded() + ".sig"
	_, err = PushImage(ctx, r.String(), ocispec.MediaTypeImageManifest, NewBlob(ocispec.MediaTypeImageConfig, []byte(`{"rootfs":{"type":"layers"}}`)), layers...)
	return err
}
