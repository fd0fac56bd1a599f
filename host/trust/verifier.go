package trust

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Reasons a module is refused, wrapped by RefusedError.
var (
	// ErrNotPinned: the lock file does not pin the file to its digest.
	ErrNotPinned = errors.New("not pinned")
	// ErrUnsigned: trusted keys are configured and the module has no
	// signature file.
	ErrUnsigned = errors.New("not signed")
	// ErrBadSignature: no signature of the module's signature file verifies
	// with a trusted key.
	ErrBadSignature = errors.New("no valid signature from a trusted key")
)

// RefusedError is the error of a module that a Verifier refuses. It names the
// file and its digest, which is what an operator pins to allow it.
type RefusedError struct {
	// Name is the module's file name as the caller gave it.
	Name string
	// Digest is the SHA-256 of the module's bytes.
	Digest [32]byte
	// Err says why, wrapping ErrNotPinned, ErrUnsigned or ErrBadSignature.
	Err error
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("module %s (%s) refused: %v", e.Name, digestString(e.Digest), e.Err)
}

func (e *RefusedError) Unwrap() error { return e.Err }

// Verifier checks what locked-down mode requires of a module: pinned by a
// lock, signed by a trusted signer. The zero Verifier allows every module.
// A Verifier is safe for concurrent use.
type Verifier struct {
	// Lock, when not nil, allows only the modules it pins.
	Lock *Lock
	// Keys, when not nil, requires each module to be signed by one of them,
	// or else attested by Attestor.
	Keys *Keys
	// Attestor, when not nil, vouches for modules with signatures their
	// files do not carry, and says which modules must carry one.
	Attestor Attestor
}

// Attestor vouches for a module with a signature its file does not carry:
// a Sigstore signature of the OCI manifest that a module served by
// reference was pulled from (internal/oci). It is a trusted signer beside
// the Ed25519 keys: a module it attests needs no signature file.
type Attestor interface {
	// Attest returns who signed the module read from path, whose SHA-256
	// is digest, or "" with the reason in err. required reports whether
	// the module must be so signed when no trusted key signed it (a module
	// served by reference under a Sigstore policy).
	Attest(path string, digest [32]byte) (signer string, required bool, err error)
}

// Locked reports whether p restricts anything.
func (p *Verifier) Locked() bool { return p.Lock != nil || p.Keys != nil || p.Attestor != nil }

// Verify returns nil when p allows the module wasm from the file name (only
// its base name counts), whose signature file holds sig (nil when there is
// none). Otherwise it returns a *RefusedError. The lock is checked first.
func (p *Verifier) Verify(name string, wasm, sig []byte) error {
	if !p.Locked() {
		return nil
	}
	digest := sha256.Sum256(wasm)
	if p.Lock != nil {
		if err := p.Lock.Allows(name, digest); err != nil {
			return err
		}
	}
	refuse := func(err error) error { return &RefusedError{Name: name, Digest: digest, Err: err} }
	// unattested is why the Attestor vouched for no signature of a module
	// it requires one of: it is the refusal without keys, and is added to
	// the keys' refusal with them.
	var unattested error
	if p.Attestor != nil {
		signer, required, err := p.Attestor.Attest(name, digest)
		if signer != "" {
			return nil
		}
		switch {
		case !required:
		case err == nil:
			unattested = ErrUnsigned
		case errors.Is(err, ErrUnsigned) || errors.Is(err, ErrBadSignature):
			unattested = err
		default:
			unattested = fmt.Errorf("%w: %v", ErrBadSignature, err)
		}
	}
	if p.Keys == nil {
		if unattested != nil {
			return refuse(unattested)
		}
		return nil
	}
	also := ""
	if unattested != nil {
		also = fmt.Sprintf("; nor by Sigstore: %v", unattested)
	}
	if sig == nil {
		return refuse(fmt.Errorf("%w: no signature file %s%s", ErrUnsigned, SigPath(name), also))
	}
	sigs, err := parseSignatures(sig)
	if err != nil {
		return refuse(fmt.Errorf("%w: %s: %v%s", ErrBadSignature, SigPath(name), err, also))
	}
	if _, ok := p.Keys.verify(wasm, sigs); !ok {
		return refuse(fmt.Errorf("%w in %s (%d signatures, %d keys)%s", ErrBadSignature, SigPath(name), len(sigs), p.Keys.Len(), also))
	}
	return nil
}

// ReadModule reads the module file at path and, when p has keys, its
// signature file, and returns the module's bytes if p allows them. The
// caller must use these very bytes: reading the file again could load
// another content than the one verified. A refusal is a *RefusedError.
func (p *Verifier) ReadModule(path string) ([]byte, error) {
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sig []byte
	if p.Keys != nil {
		sig, err = os.ReadFile(SigPath(path))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if err := p.Verify(path, wasm, sig); err != nil {
		return nil, err
	}
	return wasm, nil
}

// SigPath is the signature file of the module file at path: path + ".sig".
func SigPath(path string) string { return path + ".sig" }

// maxSignatures bounds the signatures a file may hold: each one is tried
// with every key, and each try hashes the whole module.
const maxSignatures = 16

// parseSignatures decodes a signature file: exactly 64 bytes is one raw
// signature; anything else is lines of base64 signatures.
func parseSignatures(data []byte) ([][]byte, error) {
	if len(data) == ed25519.SignatureSize {
		return [][]byte{data}, nil
	}
	var sigs [][]byte
	for n, line := range lines(data) {
		line := bytes.TrimSpace([]byte(line))
		if len(line) == 0 {
			continue
		}
		sig, err := base64.StdEncoding.DecodeString(string(line))
		if err != nil || len(sig) != ed25519.SignatureSize {
			return nil, fmt.Errorf("line %d is not a base64 Ed25519 signature", n)
		}
		sigs = append(sigs, sig)
	}
	switch {
	case len(sigs) == 0:
		return nil, errors.New("no signature in the file")
	case len(sigs) > maxSignatures:
		return nil, fmt.Errorf("%d signatures, more than %d", len(sigs), maxSignatures)
	}
	return sigs, nil
}
