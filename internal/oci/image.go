package oci

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"
)

// Media types of Docker's image format, which registries still serve for
// what "docker build" pushes.
const (
	dockerManifest  = "application/vnd.docker.distribution.manifest.v2+json"
	dockerIndex     = "application/vnd.docker.distribution.manifest.list.v2+json"
	dockerLayerGzip = "application/vnd.docker.image.rootfs.diff.tar.gzip"
	dockerLayerTar  = "application/vnd.docker.image.rootfs.diff.tar"
)

// pluginFile is the module's path in an image as hyper-mcp publishes
// them: its Dockerfiles COPY the plugin to /plugin.wasm in a FROM scratch
// image, and its loader takes that file.
const pluginFile = "plugin.wasm"

// maxLayers bounds the layers of an image read for its module (Docker's
// own limit is 127).
const maxLayers = 128

// Layout is the way a manifest holds its module.
type Layout string

const (
	// LayoutArtifact is the CNCF Wasm artifact: a wasm config and one
	// application/wasm layer.
	LayoutArtifact Layout = "wasm artifact"
	// LayoutImage is a container image whose tar layers hold the module
	// as a file, as hyper-mcp publishes plugins.
	LayoutImage Layout = "image"
)

func isIndex(mediaType string) bool {
	return mediaType == ocispec.MediaTypeImageIndex || mediaType == dockerIndex
}

func isManifest(mediaType string) bool {
	return mediaType == ocispec.MediaTypeImageManifest || mediaType == dockerManifest
}

// layerCompression is how a tar layer of each media type is compressed.
// An application/wasm layer is the module itself, as ORAS pushes a file
// (hyper-mcp's plugins are published so: `oras push REF --artifact-type
// application/vnd.hyper-mcp.plugin.v2 plugin.wasm:application/wasm`);
// so is a layer of a tar type that starts as a WebAssembly binary does,
// as ORAS pushes a file given without a media type.
var layerCompression = map[string]string{
	ocispec.MediaTypeImageLayer:     "",
	ocispec.MediaTypeImageLayerGzip: "gzip",
	dockerLayerTar:                  "",
	dockerLayerGzip:                 "gzip",
	LayerMediaType:                  "",
}

// platformEntry chooses the manifest of an index to read: the wasip1/wasm
// platform's (Docker's older wasi/wasm too), or else the one image the
// index lists besides attestations, whatever its platform — a module does
// not depend on it, and hyper-mcp's images are built as linux/amd64.
func platformEntry(data []byte) (ocispec.Descriptor, error) {
	var idx ocispec.Index
	if err := json.Unmarshal(data, &idx); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("index: %w", err)
	}
	var images []ocispec.Descriptor
	var platforms []string
	for _, m := range idx.Manifests {
		if !isManifest(m.MediaType) || m.Annotations["vnd.docker.reference.type"] == "attestation-manifest" {
			continue
		}
		images = append(images, m)
		platforms = append(platforms, platformString(m.Platform))
	}
	for _, os := range []string{"wasip1", "wasi"} {
		for _, m := range images {
			if m.Platform != nil && m.Platform.OS == os && m.Platform.Architecture == "wasm" {
				return m, nil
			}
		}
	}
	switch len(images) {
	case 1:
		return images[0], nil
	case 0:
		return ocispec.Descriptor{}, errors.New("the index lists no image manifest")
	}
	return ocispec.Descriptor{}, fmt.Errorf("the index lists %d images (%s) and none for wasip1/wasm", len(images), strings.Join(platforms, ", "))
}

func platformString(p *ocispec.Platform) string {
	if p == nil {
		return "no platform"
	}
	return p.OS + "/" + p.Architecture
}

// imageModule reads the module of an image: the file /plugin.wasm of its
// layers, or else the one .wasm file they hold. Nothing is written to
// disk: the layers are read as streams, and only .wasm files are kept.
// budget bounds the layers' bytes, compressed as the manifest claims them
// and uncompressed as read.
func (c *Client) imageModule(ctx context.Context, repo *remote.Repository, m ocispec.Manifest) ([]byte, error) {
	if len(m.Layers) == 0 {
		return nil, errors.New("an image without layers")
	}
	if len(m.Layers) > maxLayers {
		return nil, fmt.Errorf("%d layers, over the cap of %d", len(m.Layers), maxLayers)
	}
	budget := 2 * c.opts.MaxModuleSize
	var claimed int64
	for _, l := range m.Layers {
		if _, ok := layerCompression[l.MediaType]; !ok {
			return nil, fmt.Errorf("layer %s of media type %q: neither a module (%s) nor a tar or tar+gzip layer",
				l.Digest, l.MediaType, LayerMediaType)
		}
		if l.Size < 0 || l.Size > budget-claimed {
			return nil, fmt.Errorf("layers of more than %d bytes, over twice the %d-byte cap on modules", budget, c.opts.MaxModuleSize)
		}
		claimed += l.Size
	}
	s := &imageScan{max: c.opts.MaxModuleSize, budget: budget}
	for _, l := range m.Layers {
		if err := s.layer(ctx, repo, l); err != nil {
			return nil, fmt.Errorf("layer %s: %w", l.Digest, err)
		}
	}
	return s.module()
}

// imageScan is the reading of an image's layers for its module.
type imageScan struct {
	max    int64 // the cap on the module's size
	budget int64 // uncompressed bytes left to read
	// seen are the .wasm files read, by path.
	seen map[string]bool
	// plugin is /plugin.wasm, other the first other .wasm file.
	plugin, other []byte
	otherName     string
	names         []string // every .wasm file's path, as errors list them
}

func (s *imageScan) layer(ctx context.Context, repo *remote.Repository, l ocispec.Descriptor) error {
	rc, err := repo.Fetch(ctx, l)
	if err != nil {
		return err
	}
	defer rc.Close()
	vr := content.NewVerifyReader(rc, l)
	br := bufio.NewReader(vr)
	var r io.Reader = br
	head, _ := br.Peek(len(wasmMagic))
	switch {
	case bytes.Equal(head, wasmMagic):
		if err := s.raw(l, br); err != nil {
			return err
		}
		return vr.Verify()
	case l.MediaType == LayerMediaType:
		return fmt.Errorf("a layer of media type %s that is not a WebAssembly binary", LayerMediaType)
	case layerCompression[l.MediaType] == "gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return err
		}
		// One gzip member: the layer's digest covers whatever follows, and
		// is checked below.
		zr.Multistream(false)
		r = zr
	}
	budget := &io.LimitedReader{R: r, N: s.budget + 1}
	err = s.tar(budget)
	if budget.N <= 0 {
		return fmt.Errorf("more than %d bytes once uncompressed, over twice the %d-byte cap on modules", 2*s.max, s.max)
	}
	if err != nil {
		return err
	}
	s.budget = budget.N - 1
	// The rest of the blob — tar padding, trailing bytes — is read to check
	// its digest; its size is the manifest's, already bounded.
	if _, err := io.Copy(io.Discard, vr); err != nil {
		return err
	}
	return vr.Verify()
}

// tar reads one tar stream, keeping the .wasm files that may be the
// module.
func (s *imageScan) tar(r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name, err := entryPath(h.Name)
		if err != nil {
			return err
		}
		base := path.Base(name)
		if target, ok := strings.CutPrefix(base, ".wh."); ok && strings.HasSuffix(target, ".wasm") {
			return fmt.Errorf("entry %q deletes %s of an earlier layer: push an image whose layers hold one module", h.Name, path.Join(path.Dir(name), target))
		}
		if !strings.HasSuffix(base, ".wasm") {
			continue
		}
		switch h.Typeflag {
		case tar.TypeReg, tar.TypeRegA:
		case tar.TypeSymlink, tar.TypeLink:
			return fmt.Errorf("entry %q is a link to %q: a module must be a regular file", h.Name, h.Linkname)
		default:
			continue
		}
		want, err := s.found(name, h.Size)
		if err != nil {
			return fmt.Errorf("entry %q: %w", h.Name, err)
		}
		if !want {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return fmt.Errorf("entry %q: %w", h.Name, err)
		}
		s.keep(name, data)
	}
}

// raw reads a layer that is a module itself, named by its title
// annotation as ORAS pushes it (or /plugin.wasm without one).
func (s *imageScan) raw(l ocispec.Descriptor, r io.Reader) error {
	name := pluginFile
	if title := l.Annotations[ocispec.AnnotationTitle]; strings.HasSuffix(title, ".wasm") {
		var err error
		if name, err = entryPath(title); err != nil {
			return err
		}
	}
	if _, err := s.found(name, l.Size); err != nil {
		return err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.budget -= int64(len(data))
	s.keep(name, data)
	return nil
}

// found records a .wasm file of size bytes at name (relative to the
// image's root) and says whether its bytes are wanted: /plugin.wasm's,
// and the first other file's, since one other file alone is the module.
func (s *imageScan) found(name string, size int64) (bool, error) {
	if s.seen[name] {
		return false, fmt.Errorf("the image holds /%s twice", name)
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	s.seen[name] = true
	s.names = append(s.names, "/"+name)
	if size > s.max {
		return false, fmt.Errorf("/%s of %d bytes, over the %d-byte cap on modules", name, size, s.max)
	}
	return name == pluginFile || s.other == nil, nil
}

// keep keeps the bytes of a .wasm file that found wanted.
func (s *imageScan) keep(name string, data []byte) {
	if name == pluginFile {
		s.plugin = data
	} else {
		s.other, s.otherName = data, "/"+name
	}
}

// entryPath is a tar entry's path relative to the image's root, refusing
// one that climbs out of it: no file is written, but an image holding such
// an entry is malformed or hostile, and is better refused whole.
func entryPath(name string) (string, error) {
	if slices.Contains(strings.Split(strings.ReplaceAll(name, `\`, "/"), "/"), "..") {
		return "", fmt.Errorf("entry %q climbs out of the image's root (path traversal)", name)
	}
	return strings.TrimPrefix(path.Clean("/"+name), "/"), nil
}

// module is the module the layers held.
func (s *imageScan) module() ([]byte, error) {
	switch {
	case s.plugin != nil:
		return s.plugin, nil
	case len(s.names) == 1:
		return s.other, nil
	case len(s.names) == 0:
		return nil, fmt.Errorf("the image holds no .wasm file (hyper-mcp's images hold /%s)", pluginFile)
	}
	names := s.names
	if len(names) > 5 {
		names = append(names[:5:5], "...")
	}
	return nil, fmt.Errorf("the image holds %d .wasm files (%s) and no /%s: which is the module is not clear",
		len(s.names), strings.Join(names, ", "), pluginFile)
}

// checkModule checks that wasm is a core WebAssembly module, naming a
// component as such: wasmcp runs core modules (wasmcp's ABI and Extism
// plugins), not the component model's binaries that wassette runs.
func checkModule(wasm []byte) error {
	if !bytes.HasPrefix(wasm, wasmMagic) || len(wasm) < 8 {
		return errors.New("not a WebAssembly binary")
	}
	switch version := wasm[4:8]; {
	case bytes.Equal(version, []byte{1, 0, 0, 0}):
		return nil
	case version[2] == 1 && version[3] == 0: // layer 1: the component model
		return errors.New("a WebAssembly component, not a core module: wasmcp runs core WebAssembly modules and Extism plugins")
	default:
		return fmt.Errorf("a WebAssembly binary of version %x, not a core module of version 1", version)
	}
}
