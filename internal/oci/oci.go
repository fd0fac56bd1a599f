package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/wasmcp/wasmcp/host/netguard"
)

// Media types of the CNCF Wasm artifact layout, and of wasmcp's signatures.
const (
	ConfigMediaType = "application/vnd.wasm.config.v0+json"
	LayerMediaType  = "application/wasm"
	// SignatureArtifactType is the artifactType of a signature manifest: a
	// referrer of the module's manifest whose one layer is a signature file
	// as host/trust reads it (SignatureMediaType).
	SignatureArtifactType = "application/vnd.wasmcp.signature.v1"
	SignatureMediaType    = "application/vnd.wasmcp.signature.v1+base64"
)

// Annotations Push sets on the manifest, beside the OCI ones (title,
// source).
const (
	AnnotationTools = "io.wasmcp.tools"       // comma-separated tool names
	AnnotationABI   = "io.wasmcp.abi.version" // the module's wasmcp_abi_version
)

// Defaults of Options.
const (
	DefaultTimeout       = 60 * time.Second
	DefaultMaxModuleSize = 128 << 20
)

// Bounds of the documents read besides the module.
const (
	maxManifestSize  = 4 << 20
	maxSignatureSize = 4 << 10
	// maxSignatures is as many as a signature file may hold (host/trust).
	maxSignatures = 16
)

// wasmMagic starts every WebAssembly binary.
var wasmMagic = []byte("\x00asm")

// Options configure a Client. The zero value is usable.
type Options struct {
	// PlainHTTP speaks HTTP to every registry. Without it, only loopback
	// registries (localhost, 127.0.0.0/8, ::1) are spoken to in HTTP, as
	// Docker does; every other in HTTPS.
	PlainHTTP bool
	// Timeout bounds each operation (a push, a pull, a resolve) as a whole;
	// 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxModuleSize is the largest module accepted; 0 means
	// DefaultMaxModuleSize.
	MaxModuleSize int64
	// Credential gives the credentials of a registry (host:port); nil is
	// anonymous. DockerCredentials reads them as Docker does.
	Credential auth.CredentialFunc
	// Resolver looks up host names. Nil means net.DefaultResolver; tests
	// give their own.
	Resolver netguard.Resolver
}

// Client pushes and pulls Wasm artifacts. It is safe for concurrent use.
//
// It connects to the registry a reference names wherever that is, and to
// any other host a registry sends it to — a redirect, a token realm — only
// if the host is at a globally reachable address (see guard), following
// at most 5 redirects. Credentials go to the registry and, for a token, to
// the realm it names; oras-go drops them from a redirect that leaves the
// request's origin.
type Client struct {
	opts  Options
	cache auth.Cache
	// classify and envProxy are netguard.Classify and
	// http.ProxyFromEnvironment; tests replace them (export_test.go).
	classify func(netip.Addr) string
	envProxy func(*http.Request) (*url.URL, error)
	mu       sync.Mutex
	// clients are the clients of each registry, by host[:port].
	clients map[string]*auth.Client
}

// NewClient returns a Client with opts.
func NewClient(opts Options) *Client {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxModuleSize <= 0 {
		opts.MaxModuleSize = DefaultMaxModuleSize
	}
	return &Client{opts: opts, cache: auth.NewCache(), classify: netguard.Classify, envProxy: http.ProxyFromEnvironment,
		clients: map[string]*auth.Client{}}
}

// client returns the client of registry (host[:port]).
func (c *Client) client(registry string, plain bool) *auth.Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.clients[registry]; ok {
		return a
	}
	// No retries: a registry that is down is reported at once, and serve
	// falls back to its cached copy.
	a := &auth.Client{
		Client:     c.httpClient(registry, plain),
		Cache:      c.cache,
		Credential: c.opts.Credential,
		// None: oras-go's own check of a realm's addresses looks the name
		// up before the request does (and allows private addresses); the
		// guard checks every address where it connects.
		BlockedRealmPrefixes: []netip.Prefix{},
	}
	c.clients[registry] = a
	return a
}

// DockerCredentials reads credentials as Docker does: the config file in
// $DOCKER_CONFIG, else ~/.docker/config.json, and the credential helpers it
// names. A registry it has nothing for is accessed anonymously.
func DockerCredentials() (auth.CredentialFunc, error) {
	store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{})
	if err != nil {
		return nil, fmt.Errorf("docker credentials: %w", err)
	}
	return credentials.Credential(store), nil
}

// Reference is a parsed reference: host[:port]/repository followed by
// :tag or @sha256:digest.
type Reference struct{ registry.Reference }

// ParseReference parses ref. It must name a tag or a digest unless
// bare is true (a push by digest only).
func ParseReference(ref string, bare bool) (Reference, error) {
	r, err := registry.ParseReference(ref)
	if err != nil {
		return Reference{}, fmt.Errorf("reference %q: %w", ref, err)
	}
	if r.Reference == "" && !bare {
		return Reference{}, fmt.Errorf("reference %q names no :tag or @sha256:digest", ref)
	}
	return Reference{r}, nil
}

// Name is the plugin name of the module the reference names: the last
// component of its repository.
func (r Reference) Name() string { return path.Base(r.Repository) }

// IsDigest reports whether the reference names a digest, not a tag.
func (r Reference) IsDigest() bool {
	_, err := r.Digest()
	return err == nil
}

// At returns the reference to digest in the same repository.
func (r Reference) At(digest string) Reference {
	r.Reference.Reference = digest
	return r
}

// loopback reports whether host (host or host:port) is a loopback
// registry.
func loopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

func (c *Client) repository(r Reference) *remote.Repository {
	plain := c.opts.PlainHTTP || loopback(r.Registry)
	return &remote.Repository{
		Client:    c.client(r.Registry, plain),
		Reference: r.Reference,
		PlainHTTP: plain,
		// The default Accept list asks for manifests of every type, so
		// that one of another type is refused by name rather than as "not
		// found". Bounds against a registry that pages without end.
		MaxMetadataBytes:     maxManifestSize,
		ReferrerListMaxPages: 4,
		TagListMaxPages:      4,
	}
}

// Artifact is a module pulled from a registry.
type Artifact struct {
	Ref Reference
	// Manifest is what Ref resolves to: the manifest, or the index, that
	// signatures are attached to and judged by.
	Manifest ocispec.Descriptor
	// Image is the manifest the module was read from: Manifest, or the
	// entry of the index chosen for its platform.
	Image       ocispec.Descriptor
	Layout      Layout
	Annotations map[string]string
	Wasm        []byte
	// Digest is the SHA-256 of Wasm.
	Digest digest.Digest
}

// Push stores wasm at ref (host/repo:tag, or host/repo to push by digest
// only) in the CNCF Wasm layout with annotations on its manifest, and
// returns the manifest's descriptor. The manifest is the same for the
// same module and annotations, so pushing twice gives one digest.
func (c *Client) Push(ctx context.Context, ref string, wasm []byte, annotations map[string]string) (ocispec.Descriptor, error) {
	r, err := ParseReference(ref, true)
	if err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("push: %w", err)
	}
	if r.IsDigest() {
		return ocispec.Descriptor{}, fmt.Errorf("push %s: push to a tag, or to the repository alone; the digest is the registry's to give", ref)
	}
	if !bytes.HasPrefix(wasm, wasmMagic) {
		return ocispec.Descriptor{}, fmt.Errorf("push %s: not a WebAssembly binary", ref)
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	repo := c.repository(r)
	layer := content.NewDescriptorFromBytes(LayerMediaType, wasm)
	config, err := json.Marshal(wasmConfig{Architecture: "wasm", OS: "wasip1", LayerDigests: []string{layer.Digest.String()}})
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	configDesc := content.NewDescriptorFromBytes(ConfigMediaType, config)
	for _, b := range []struct {
		desc ocispec.Descriptor
		data []byte
	}{{configDesc, config}, {layer, wasm}} {
		if err := pushBlob(ctx, repo, b.desc, b.data); err != nil {
			return ocispec.Descriptor{}, fmt.Errorf("push %s: %w", ref, err)
		}
	}
	manifest, err := json.Marshal(ocispec.Manifest{
		Versioned:   specs.Versioned{SchemaVersion: 2},
		MediaType:   ocispec.MediaTypeImageManifest,
		Config:      configDesc,
		Layers:      []ocispec.Descriptor{layer},
		Annotations: annotations,
	})
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	desc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, manifest)
	if r.Reference.Reference == "" {
		err = repo.Push(ctx, desc, bytes.NewReader(manifest))
	} else {
		err = repo.PushReference(ctx, desc, bytes.NewReader(manifest), r.Reference.Reference)
	}
	if err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("push %s: manifest: %w", ref, err)
	}
	return desc, nil
}

// wasmConfig is the config of the CNCF Wasm layout (version 0).
type wasmConfig struct {
	Architecture string   `json:"architecture"`
	OS           string   `json:"os"`
	LayerDigests []string `json:"layerDigests"`
}

func pushBlob(ctx context.Context, repo *remote.Repository, desc ocispec.Descriptor, data []byte) error {
	ok, err := repo.Exists(ctx, desc)
	if err != nil || ok {
		return err
	}
	if err := repo.Push(ctx, desc, bytes.NewReader(data)); err != nil {
		return fmt.Errorf("blob %s: %w", desc.Digest, err)
	}
	return nil
}

// Resolve returns the descriptor of the manifest ref names now.
func (c *Client) Resolve(ctx context.Context, ref Reference) (ocispec.Descriptor, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	desc, err := c.repository(ref).Resolve(ctx, ref.Reference.Reference)
	if err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("resolve %s: %w", ref, err)
	}
	return desc, nil
}

// Pull fetches the module ref names, in any layout the package reads
// (doc.go), checking that it is within the size caps, that every document
// matches its digest, and that it is a core WebAssembly module.
func (c *Client) Pull(ctx context.Context, ref Reference) (*Artifact, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	a, err := c.pull(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("pull %s: %w", ref, err)
	}
	return a, nil
}

func (c *Client) pull(ctx context.Context, ref Reference) (*Artifact, error) {
	repo := c.repository(ref)
	top, data, err := fetchManifest(ctx, repo, ref.Reference.Reference)
	if err != nil {
		return nil, err
	}
	image := top
	if isIndex(top.MediaType) {
		entry, err := platformEntry(data)
		if err != nil {
			return nil, fmt.Errorf("index %s: %w", top.Digest, err)
		}
		if image, data, err = fetchManifest(ctx, repo, entry.Digest.String()); err != nil {
			return nil, fmt.Errorf("index %s: %w", top.Digest, err)
		}
		if image.Digest != entry.Digest {
			return nil, fmt.Errorf("index %s: asked for %s, got %s", top.Digest, entry.Digest, image.Digest)
		}
	}
	if !isManifest(image.MediaType) {
		return nil, fmt.Errorf("manifest of media type %q, not an image manifest or index", image.MediaType)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", image.Digest, err)
	}
	a := &Artifact{Ref: ref, Manifest: top, Image: image, Annotations: m.Annotations}
	if m.Config.MediaType == ConfigMediaType {
		a.Layout = LayoutArtifact
		a.Wasm, err = c.artifactModule(ctx, repo, m)
	} else {
		a.Layout = LayoutImage
		a.Wasm, err = c.imageModule(ctx, repo, m)
	}
	if err == nil {
		err = checkModule(a.Wasm)
	}
	if err != nil {
		return nil, fmt.Errorf("manifest %s (%s): %w", image.Digest, a.Layout, err)
	}
	a.Digest = digest.FromBytes(a.Wasm)
	return a, nil
}

// fetchManifest fetches the manifest or index reference (a tag or a digest)
// names, within the cap on manifests, verified against its digest.
func fetchManifest(ctx context.Context, repo *remote.Repository, reference string) (ocispec.Descriptor, []byte, error) {
	desc, rc, err := repo.FetchReference(ctx, reference)
	if err != nil {
		return desc, nil, err
	}
	defer rc.Close()
	if !isManifest(desc.MediaType) && !isIndex(desc.MediaType) {
		return desc, nil, fmt.Errorf("manifest of media type %q, not an image manifest or index", desc.MediaType)
	}
	if desc.Size > maxManifestSize {
		return desc, nil, fmt.Errorf("manifest of %d bytes, over the %d-byte cap", desc.Size, maxManifestSize)
	}
	data, err := content.ReadAll(rc, desc)
	if err != nil {
		return desc, nil, fmt.Errorf("manifest %s: %w", desc.Digest, err)
	}
	return desc, data, nil
}

// artifactModule reads the module of a CNCF Wasm artifact: its one layer.
func (c *Client) artifactModule(ctx context.Context, repo *remote.Repository, m ocispec.Manifest) ([]byte, error) {
	switch {
	case len(m.Layers) != 1:
		return nil, fmt.Errorf("%d layers, want one %s layer", len(m.Layers), LayerMediaType)
	case m.Layers[0].MediaType != LayerMediaType:
		return nil, fmt.Errorf("layer of media type %q, want %s", m.Layers[0].MediaType, LayerMediaType)
	case m.Layers[0].Size > c.opts.MaxModuleSize || m.Layers[0].Size < 0:
		return nil, fmt.Errorf("layer of %d bytes, over the %d-byte cap on modules", m.Layers[0].Size, c.opts.MaxModuleSize)
	}
	layer := m.Layers[0]
	wasm, err := fetchAll(ctx, repo, layer)
	if err != nil {
		return nil, fmt.Errorf("layer %s: %w", layer.Digest, err)
	}
	return wasm, nil
}

// fetchAll reads the blob or manifest desc, verifying its size and digest.
func fetchAll(ctx context.Context, repo *remote.Repository, desc ocispec.Descriptor) ([]byte, error) {
	rc, err := repo.Fetch(ctx, desc)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return content.ReadAll(rc, desc)
}

// Attach stores sig, a signature file of a's module, as a referrer of a's
// manifest: the referrers API where the registry has it, else the tag
// schema (a sha256-DIGEST tag holding an index of referrers).
func (c *Client) Attach(ctx context.Context, a *Artifact, sig []byte) (ocispec.Descriptor, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	repo := c.repository(a.Ref)
	layer := content.NewDescriptorFromBytes(SignatureMediaType, sig)
	if err := pushBlob(ctx, repo, layer, sig); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("sign %s: %w", a.Ref, err)
	}
	desc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, SignatureArtifactType, oras.PackManifestOptions{
		Subject: &a.Manifest,
		Layers:  []ocispec.Descriptor{layer},
	})
	if err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("sign %s: %w", a.Ref, err)
	}
	return desc, nil
}

// Signatures returns the signature files attached to a's manifest, joined
// as one signature file (one line each), or nil when there is none.
func (c *Client) Signatures(ctx context.Context, a *Artifact) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	repo := c.repository(a.Ref)
	var refs []ocispec.Descriptor
	err := repo.Referrers(ctx, a.Manifest, SignatureArtifactType, func(page []ocispec.Descriptor) error {
		refs = append(refs, page...)
		if len(refs) > maxSignatures {
			return fmt.Errorf("more than %d signatures", maxSignatures)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("signatures of %s: %w", a.Ref, err)
	}
	var sigs []byte
	n := 0 // signature documents, which a referrer may list many of
	for _, r := range refs {
		if r.Size > maxManifestSize {
			return nil, fmt.Errorf("signatures of %s: manifest %s of %d bytes, over the cap", a.Ref, r.Digest, r.Size)
		}
		data, err := fetchAll(ctx, repo, r)
		if err != nil {
			return nil, fmt.Errorf("signatures of %s: manifest %s: %w", a.Ref, r.Digest, err)
		}
		var m ocispec.Manifest
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("signatures of %s: manifest %s: %w", a.Ref, r.Digest, err)
		}
		for _, l := range m.Layers {
			if l.MediaType != SignatureMediaType || l.Size > maxSignatureSize {
				continue
			}
			if n++; n > maxSignatures {
				return nil, fmt.Errorf("signatures of %s: more than %d signatures", a.Ref, maxSignatures)
			}
			sig, err := fetchAll(ctx, repo, l)
			if err != nil {
				return nil, fmt.Errorf("signatures of %s: %s: %w", a.Ref, l.Digest, err)
			}
			sigs = append(append(sigs, bytes.TrimSpace(sig)...), '\n')
		}
	}
	return sigs, nil
}
