package sigstore

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
)

// publicGood is Sigstore's public-good trusted root: the trusted_root.json
// target of its TUF repository (root-signing), read once when this file
// was committed; its SHA-256 is in the package documentation.
//
//go:embed trusted_root.json
var publicGood []byte

// publicGoodRoot parses publicGood once.
var publicGoodRoot = sync.OnceValues(func() (*root.TrustedRoot, error) {
	return root.NewTrustedRootFromJSON(publicGood)
})

// Policy says who may sign a module's manifest: certificate identities
// (keyless signing through Fulcio) and public keys, against a trusted root.
// It is immutable and safe for concurrent use.
type Policy struct {
	identities []verify.CertificateIdentity
	names      []string // of the identities, for messages
	keys       []publicKey
	root       *root.TrustedRoot
	// requireSCT: the root names certificate transparency logs, so that a
	// certificate must carry a timestamp from one, as Fulcio's do.
	requireSCT bool
	// fingerprint is the SHA-256 of everything the policy was read from.
	fingerprint [32]byte
}

// Fingerprint is the SHA-256 of what p was read from: its file, its keys'
// and its trusted root's. Two policies with the same fingerprint admit the
// same signers.
func (p *Policy) Fingerprint() [32]byte { return p.fingerprint }

type publicKey struct {
	name     string
	verifier signature.Verifier
}

// file is the JSON document of a policy file.
type file struct {
	Identities []struct {
		Issuer        string `json:"issuer"`
		IssuerRegexp  string `json:"issuerRegexp"`
		Subject       string `json:"subject"`
		SubjectRegexp string `json:"subjectRegexp"`
	} `json:"identities"`
	Keys        []string `json:"keys"`
	TrustedRoot string   `json:"trustedRoot"`
}

// Load reads the policy file at path. Relative paths in it are relative to
// its directory.
func Load(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load sigstore policy: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("load sigstore policy %s: %w", path, err)
	}
	p, err := Parse(data, filepath.Dir(abs))
	if err != nil {
		return nil, fmt.Errorf("load sigstore policy %s: %w", path, err)
	}
	return p, nil
}

// Parse parses a policy document; relative paths are relative to dir.
func Parse(data []byte, dir string) (*Policy, error) {
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	if len(f.Identities) == 0 && len(f.Keys) == 0 {
		return nil, errors.New("no identities and no keys: name who may sign")
	}
	p := &Policy{}
	h := sha256.New()
	h.Write(data)
	for i, id := range f.Identities {
		issuer, err := matcher("issuer", id.Issuer, id.IssuerRegexp)
		if err != nil {
			return nil, fmt.Errorf("identities[%d]: %w", i, err)
		}
		subject, err := matcher("subject", id.Subject, id.SubjectRegexp)
		if err != nil {
			return nil, fmt.Errorf("identities[%d]: %w", i, err)
		}
		ci, err := verify.NewShortCertificateIdentity(id.Issuer, issuer, id.Subject, subject)
		if err != nil {
			return nil, fmt.Errorf("identities[%d]: %w", i, err)
		}
		p.identities = append(p.identities, ci)
		p.names = append(p.names, fmt.Sprintf("%s (issuer %s)", id.Subject+id.SubjectRegexp, id.Issuer+id.IssuerRegexp))
	}
	for i, k := range f.Keys {
		key, pem, err := loadKey(resolve(dir, k))
		if err != nil {
			return nil, fmt.Errorf("keys[%d]: %w", i, err)
		}
		p.keys = append(p.keys, key)
		h.Write(pem)
	}
	rootJSON, err := publicGood, error(nil)
	if f.TrustedRoot == "" {
		p.root, err = publicGoodRoot()
	} else if rootJSON, err = os.ReadFile(resolve(dir, f.TrustedRoot)); err == nil {
		p.root, err = root.NewTrustedRootFromJSON(rootJSON)
	}
	if err != nil {
		return nil, fmt.Errorf("trusted root: %w", err)
	}
	h.Write(rootJSON)
	h.Sum(p.fingerprint[:0])
	p.requireSCT = len(p.root.CTLogs()) > 0
	return p, nil
}

// matcher checks that a field is given once, exactly or as a regular
// expression, and returns the expression anchored to the whole value:
// cosign's unanchored "github.com/org/" would match any URL holding it.
// An expression that matches the empty string matches every signer, and is
// refused.
func matcher(field, exact, expr string) (string, error) {
	switch {
	case exact != "" && expr != "":
		return "", fmt.Errorf("both %s and %sRegexp: give one", field, field)
	case exact == "" && expr == "":
		return "", fmt.Errorf("no %s: an identity needs both an issuer and a subject", field)
	case exact != "":
		return "", nil
	}
	anchored := `^(?:` + expr + `)$`
	re, err := regexp.Compile(anchored)
	if err != nil {
		return "", fmt.Errorf("%sRegexp: %w", field, err)
	}
	if re.MatchString("") {
		return "", fmt.Errorf("%sRegexp %q matches the empty string: it would admit any signer", field, expr)
	}
	return anchored, nil
}

func resolve(dir, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

// loadKey reads a PEM public key, as "cosign generate-key-pair" writes
// cosign.pub.
func loadKey(path string) (publicKey, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return publicKey{}, nil, err
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(data)
	if err != nil {
		return publicKey{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	v, err := signature.LoadVerifier(pub, crypto.SHA256)
	if err != nil {
		return publicKey{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	return publicKey{name: filepath.Base(path), verifier: v}, data, nil
}
