package oci

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/wasmcp/wasmcp/internal/sigstore"
)

// Cache keeps pulled modules on disk, content-addressed:
//
//	DIR/blobs/sha256/HEX/NAME.wasm      the module whose SHA-256 is HEX
//	DIR/blobs/sha256/HEX/NAME.wasm.sig  its signatures, when fetched
//	DIR/refs/HASH.json                  what a reference, or a plugin name
//	                                    and manifest digest, resolved to
//
// The module is served from its cached file under its plugin name, so that
// the host, its lock and its signature checks treat it as any file. Its
// content is verified against its digest whenever it is read from the
// cache.
type Cache struct{ dir string }

// OpenCache returns the cache in dir, creating it (0700).
func OpenCache(dir string) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("module cache: %w", err)
	}
	return &Cache{dir: dir}, nil
}

// Module is a module in the cache.
type Module struct {
	// Reference is the reference it was fetched by.
	Reference string `json:"reference"`
	// Name is its plugin name (the repository's last component).
	Name string `json:"name"`
	// Manifest is the digest of its manifest.
	Manifest digest.Digest `json:"manifest"`
	// Layer is the digest of the module's bytes: of the artifact's layer,
	// or of the file an image's layers hold.
	Layer digest.Digest `json:"layer"`
}

// Path is the cached module file.
func (c *Cache) Path(m Module) string {
	return filepath.Join(c.dir, "blobs", m.Layer.Algorithm().String(), m.Layer.Encoded(), m.Name+".wasm")
}

// Store writes a's module, and sigs (a signature file, or nil), to the
// cache, and records that a.Ref resolved to it.
func (c *Cache) Store(a *Artifact, sigs []byte) (Module, error) {
	m := Module{Reference: a.Ref.String(), Name: a.Ref.Name(), Manifest: a.Manifest.Digest, Layer: digest.FromBytes(a.Wasm)}
	p := c.Path(m)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return Module{}, fmt.Errorf("cache %s: %w", m.Reference, err)
	}
	if err := writeFile(p, a.Wasm); err != nil {
		return Module{}, fmt.Errorf("cache %s: %w", m.Reference, err)
	}
	if err := c.storeSignatures(m, sigs); err != nil {
		return Module{}, err
	}
	return m, c.record(m)
}

// storeSignatures replaces the module's cached signature file with sigs;
// nil removes it.
func (c *Cache) storeSignatures(m Module, sigs []byte) error {
	p := c.Path(m) + ".sig"
	var err error
	if sigs == nil {
		if err = os.Remove(p); errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
	} else {
		err = writeFile(p, sigs)
	}
	if err != nil {
		return fmt.Errorf("cache %s: signatures: %w", m.Reference, err)
	}
	return nil
}

// record remembers that m's reference, and its manifest digest under its
// name, resolve to m.
func (c *Cache) record(m Module) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(c.dir, "refs"), 0o700); err != nil {
		return fmt.Errorf("cache %s: %w", m.Reference, err)
	}
	for _, key := range []string{m.Reference, manifestKey(m.Name, m.Manifest)} {
		if err := writeFile(c.refPath(key), data); err != nil {
			return fmt.Errorf("cache %s: %w", m.Reference, err)
		}
	}
	return nil
}

// manifestKey is the key of a manifest digest served under a plugin name:
// the same manifest pushed to two repositories is cached under both names.
func manifestKey(name string, manifest digest.Digest) string { return name + "@" + manifest.String() }

func (c *Cache) refPath(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(c.dir, "refs", hex.EncodeToString(sum[:])+".json")
}

// Lookup returns the module key (a reference, or a manifestKey) last
// resolved to, once its file has been verified against its digest.
func (c *Cache) Lookup(key string) (Module, error) {
	data, err := os.ReadFile(c.refPath(key))
	if err != nil {
		return Module{}, err
	}
	var m Module
	if err := json.Unmarshal(data, &m); err != nil {
		return Module{}, fmt.Errorf("cache entry of %s: %w", key, err)
	}
	if err := m.Layer.Validate(); err != nil || m.Layer.Algorithm() != digest.SHA256 || strings.ContainsAny(m.Name, `/\`) {
		return Module{}, fmt.Errorf("cache entry of %s is corrupt", key)
	}
	return m, c.Verify(m)
}

// Verify checks that m's cached file holds the bytes of its digest.
func (c *Cache) Verify(m Module) error {
	data, err := os.ReadFile(c.Path(m))
	if err != nil {
		return err
	}
	if got := digest.FromBytes(data); got != m.Layer {
		return fmt.Errorf("cached %s: %s holds %s, not %s", m.Reference, c.Path(m), got, m.Layer)
	}
	return nil
}

// writeFile replaces path with data atomically: a reader sees the old
// content or the new, never a part.
func writeFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Fetcher brings modules named by reference into a Cache.
type Fetcher struct {
	Client *Client
	Cache  *Cache
	// Signatures, when set, fetches the signatures attached to each module
	// (serve with trusted keys) into the cache beside it.
	Signatures bool
	// Sigstore, when it returns a policy, has the Sigstore signatures of
	// each module's manifest fetched into the cache beside it, for an
	// Attestor to judge — unless those the cache holds satisfy the policy
	// already.
	Sigstore func() *sigstore.Policy
}

// Fetched is the result of Fetch: the module and, when it is the copy the
// cache held because the registry could not be asked, why.
type Fetched struct {
	Module
	Path  string
	Stale error
}

// Fetch resolves ref and returns the cached file of the module it names,
// pulling it first unless the cache has it. A reference by digest is
// served from the cache without asking the registry. When the registry
// cannot be asked or answers with an error, the module ref resolved to
// last is returned, with the reason in Stale; the error is for a reference
// never fetched before.
func (f *Fetcher) Fetch(ctx context.Context, ref string) (Fetched, error) {
	r, err := ParseReference(ref, false)
	if err != nil {
		return Fetched{}, err
	}
	key := r.String()
	if r.IsDigest() {
		if m, err := f.Cache.Lookup(key); err == nil && (!f.Signatures || f.hasSignatures(m)) && f.attested(m) {
			return f.fetched(m, nil), nil
		}
	}
	got, err := f.fetch(ctx, r)
	if err == nil {
		return got, nil
	}
	if m, lerr := f.Cache.Lookup(key); lerr == nil {
		return f.fetched(m, err), nil
	}
	return Fetched{}, err
}

func (f *Fetcher) fetch(ctx context.Context, r Reference) (Fetched, error) {
	desc, err := f.Client.Resolve(ctx, r)
	if err != nil {
		return Fetched{}, err
	}
	if m, err := f.Cache.Lookup(manifestKey(r.Name(), desc.Digest)); err == nil {
		m.Reference = r.String()
		if err := f.refreshSignatures(ctx, &Artifact{Ref: r, Manifest: desc}, m); err != nil {
			return Fetched{}, err
		}
		if err := f.refreshSigstore(ctx, r, desc, m); err != nil {
			return Fetched{}, err
		}
		return f.fetched(m, nil), f.Cache.record(m)
	}
	// By digest, so that a tag moved since is not half read.
	a, err := f.Client.Pull(ctx, r.At(desc.Digest.String()))
	if err != nil {
		return Fetched{}, err
	}
	a.Ref = r
	var sigs []byte
	if f.Signatures {
		if sigs, err = f.Client.Signatures(ctx, a); err != nil {
			return Fetched{}, err
		}
	}
	m, err := f.Cache.Store(a, sigs)
	if err != nil {
		return Fetched{}, err
	}
	if err := f.refreshSigstore(ctx, r, a.Manifest, m); err != nil {
		return Fetched{}, err
	}
	return f.fetched(m, nil), nil
}

// refreshSigstore fetches the Sigstore signatures of m's manifest, desc,
// unless those cached are signed under the policy already: a warm start
// asks the registry for none.
func (f *Fetcher) refreshSigstore(ctx context.Context, r Reference, desc ocispec.Descriptor, m Module) error {
	if f.attested(m) {
		return nil
	}
	sigs, err := f.Client.SigstoreSignatures(ctx, r, desc)
	if err != nil {
		return err
	}
	return f.Cache.storeSigstore(m, sigs)
}

// attested reports whether m needs no Sigstore signatures fetched: there is
// no policy, or the cached ones of its manifest satisfy it.
func (f *Fetcher) attested(m Module) bool {
	if f.Sigstore == nil || f.Sigstore() == nil {
		return true
	}
	_, err := attest(filepath.Dir(f.Cache.Path(m)), m.Manifest, f.Sigstore())
	return err == nil
}

// refreshSignatures fetches the signatures of a module the cache holds:
// signatures may have been attached since it was pulled.
func (f *Fetcher) refreshSignatures(ctx context.Context, a *Artifact, m Module) error {
	if !f.Signatures {
		return nil
	}
	sigs, err := f.Client.Signatures(ctx, a)
	if err != nil {
		return err
	}
	return f.Cache.storeSignatures(m, sigs)
}

func (f *Fetcher) hasSignatures(m Module) bool {
	_, err := os.Stat(f.Cache.Path(m) + ".sig")
	return err == nil
}

func (f *Fetcher) fetched(m Module, stale error) Fetched {
	return Fetched{Module: m, Path: f.Cache.Path(m), Stale: stale}
}
