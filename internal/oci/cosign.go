package oci

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/errdef"

	"github.com/wasmcp/wasmcp/host/trust"
	"github.com/wasmcp/wasmcp/internal/sigstore"
)

// maxSigstoreDoc bounds a Sigstore bundle or a legacy signature payload.
const maxSigstoreDoc = 128 << 10

// bundlePrefix starts the media types of Sigstore bundles, every version.
const bundlePrefix = "application/vnd.dev.sigstore.bundle"

// SigstoreSignatures returns the Sigstore signatures of manifest, which
// ref resolved to: the bundles among its referrers (the referrers API or
// its tag schema, sha256-HEX), and the layers of cosign's legacy signature
// manifest, tag sha256-HEX.sig. At most maxSignatures are returned; more
// is an error.
func (c *Client) SigstoreSignatures(ctx context.Context, ref Reference, manifest ocispec.Descriptor) ([]sigstore.Signature, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	repo := c.repository(ref)
	var sigs []sigstore.Signature
	add := func(s sigstore.Signature) error {
		if len(sigs) == maxSignatures {
			return fmt.Errorf("more than %d Sigstore signatures", maxSignatures)
		}
		sigs = append(sigs, s)
		return nil
	}
	var refs []ocispec.Descriptor
	err := repo.Referrers(ctx, manifest, "", func(page []ocispec.Descriptor) error {
		for _, r := range page {
			if strings.HasPrefix(r.ArtifactType, bundlePrefix) {
				refs = append(refs, r)
			}
		}
		if len(refs) > maxSignatures {
			return fmt.Errorf("more than %d Sigstore signatures", maxSignatures)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("signatures of %s: %w", ref, err)
	}
	for _, r := range refs {
		_, data, err := fetchManifest(ctx, repo, r.Digest.String())
		if err != nil {
			return nil, fmt.Errorf("signatures of %s: referrer %s: %w", ref, r.Digest, err)
		}
		var m ocispec.Manifest
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("signatures of %s: referrer %s: %w", ref, r.Digest, err)
		}
		for _, l := range m.Layers {
			if !strings.HasPrefix(l.MediaType, bundlePrefix) || l.Size > maxSigstoreDoc {
				continue
			}
			b, err := fetchAll(ctx, repo, l)
			if err != nil {
				return nil, fmt.Errorf("signatures of %s: bundle %s: %w", ref, l.Digest, err)
			}
			if err := add(sigstore.Signature{Bundle: b}); err != nil {
				return nil, fmt.Errorf("signatures of %s: %w", ref, err)
			}
		}
	}
	tag := manifest.Digest.Algorithm().String() + "-" + manifest.Digest.Encoded() + ".sig"
	_, data, err := fetchManifest(ctx, repo, tag)
	if errors.Is(err, errdef.ErrNotFound) {
		return sigs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("signatures of %s: %s: %w", ref, tag, err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("signatures of %s: %s: %w", ref, tag, err)
	}
	for _, l := range m.Layers {
		if l.MediaType != sigstore.SimpleSigningMediaType || l.Size > maxSigstoreDoc {
			continue
		}
		payload, err := fetchAll(ctx, repo, l)
		if err != nil {
			return nil, fmt.Errorf("signatures of %s: %s: %w", ref, tag, err)
		}
		if err := add(sigstore.Signature{Payload: payload, Annotations: l.Annotations}); err != nil {
			return nil, fmt.Errorf("signatures of %s: %w", ref, err)
		}
	}
	return sigs, nil
}

// sigstorePath is the file of the Sigstore signatures of manifest, for the
// module of the cache directory dir (blobs/sha256/HEX).
func sigstorePath(dir string, manifest digest.Digest) string {
	return filepath.Join(dir, "sigstore-"+manifest.Encoded()+".json")
}

// storeSigstore replaces the cached Sigstore signatures of m's manifest.
func (c *Cache) storeSigstore(m Module, sigs []sigstore.Signature) error {
	data, err := json.Marshal(sigs)
	if err == nil {
		err = writeFile(sigstorePath(filepath.Dir(c.Path(m)), m.Manifest), data)
	}
	if err != nil {
		return fmt.Errorf("cache %s: Sigstore signatures: %w", m.Reference, err)
	}
	return nil
}

// attest returns who signed manifest, whose module is that of the cache
// directory dir, by the signatures cached for it under p. A verdict is
// kept beside them (sigstore-HEX.verified), bound to p's fingerprint and
// to the signatures' bytes, so that a warm start verifies nothing again.
func attest(dir string, manifest digest.Digest, p *sigstore.Policy) (string, error) {
	path := sigstorePath(dir, manifest)
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	fp := p.Fingerprint()
	h := sha256.New()
	h.Write(fp[:])
	h.Write([]byte(manifest))
	h.Write(data)
	key := hex.EncodeToString(h.Sum(nil)) + " "
	verdict := strings.TrimSuffix(path, ".json") + ".verified"
	if v, err := os.ReadFile(verdict); err == nil {
		if signer, ok := bytes.CutPrefix(v, []byte(key)); ok {
			return strings.TrimSpace(string(signer)), nil
		}
	}
	var sigs []sigstore.Signature
	if err := json.Unmarshal(data, &sigs); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if len(sigs) > maxSignatures {
		return "", fmt.Errorf("%s: more than %d signatures", path, maxSignatures)
	}
	signer, err := p.Verify(manifest, sigs)
	if err != nil {
		return "", err
	}
	// A verdict that cannot be written costs the next start a check.
	writeFile(verdict, []byte(key+signer+"\n"))
	return signer, nil
}

// Attestor judges the modules of a Cache by the Sigstore signatures of the
// manifests they were pulled from, for host/trust: a module of the cache
// must be signed under the policy (or by a trusted Ed25519 key); a file
// elsewhere is not its to judge.
type Attestor struct{ policy *sigstore.Policy }

// NewAttestor returns the Attestor of p.
func NewAttestor(p *sigstore.Policy) *Attestor { return &Attestor{policy: p} }

// Attest implements trust.Attestor. A module of a cache is a file of a
// directory blobs/sha256/HEX (Cache.Path); its directory must be named by
// its digest, and it is signed when the Sigstore signatures cached beside
// it, of any manifest it was pulled from, verify.
func (a *Attestor) Attest(path string, sum [32]byte) (string, bool, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false, err
	}
	dir := filepath.Dir(abs)
	if filepath.Base(filepath.Dir(dir)) != "sha256" || filepath.Base(filepath.Dir(filepath.Dir(dir))) != "blobs" {
		return "", false, nil
	}
	if filepath.Base(dir) != hex.EncodeToString(sum[:]) {
		return "", true, fmt.Errorf("%w: the module is not the one its cache entry names", trust.ErrBadSignature)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "sigstore-*.json"))
	if len(files) == 0 {
		return "", true, fmt.Errorf("%w: no Sigstore signature was found for its manifest", trust.ErrUnsigned)
	}
	var why []string
	unsigned := true
	for _, f := range files {
		hexDigest := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "sigstore-"), ".json")
		signer, err := attest(dir, digest.NewDigestFromEncoded(digest.SHA256, hexDigest), a.policy)
		if err == nil {
			return signer, true, nil
		}
		unsigned = unsigned && errors.Is(err, sigstore.ErrNoSignature)
		why = append(why, err.Error())
	}
	if unsigned {
		return "", true, fmt.Errorf("%w: no Sigstore signature was found for its manifest", trust.ErrUnsigned)
	}
	return "", true, fmt.Errorf("%w: %s", trust.ErrBadSignature, strings.Join(why, "; "))
}
