package trust_test

import (
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host/trust"
)

// attestor vouches for the module files named in signed and requires a
// signature of those named in required.
type attestor struct {
	signed, required map[string]bool
}

func (a attestor) Attest(path string, _ [32]byte) (string, bool, error) {
	if a.signed[path] {
		return "release workflow", true, nil
	}
	return "", a.required[path], errors.New("signed by nobody trusted")
}

// An Attestor is a trusted signer beside the keys: what it vouches for
// needs no signature file; what it requires and does not vouch for is
// refused unless a trusted key signed it; the lock holds for all.
func TestAttestor(t *testing.T) {
	wasm := []byte("\x00asm\x01\x00\x00\x00")
	pub, priv := key(1)
	lock, err := trust.ParseLock([]byte(trust.LockLine("ref.wasm", wasm) + trust.LockLine("dir.wasm", wasm)))
	if err != nil {
		t.Fatal(err)
	}
	a := attestor{signed: map[string]bool{"ref.wasm": true, "other.wasm": true}, required: map[string]bool{"unsigned.wasm": true}}
	sig := trust.Sign(priv, wasm)
	for _, tc := range []struct {
		name string
		v    trust.Verifier
		file string
		sig  []byte
		want error
		why  string
	}{
		{"attested", trust.Verifier{Attestor: a}, "ref.wasm", nil, nil, ""},
		{"not required", trust.Verifier{Attestor: a}, "dir.wasm", nil, nil, ""},
		{"required", trust.Verifier{Attestor: a}, "unsigned.wasm", nil, trust.ErrBadSignature, "signed by nobody trusted"},
		{"attested, with keys", trust.Verifier{Attestor: a, Keys: keys(t, pub)}, "ref.wasm", nil, nil, ""},
		{"key instead", trust.Verifier{Attestor: a, Keys: keys(t, pub)}, "unsigned.wasm", sig, nil, ""},
		{"neither", trust.Verifier{Attestor: a, Keys: keys(t, pub)}, "unsigned.wasm", nil, trust.ErrUnsigned, "; nor by Sigstore: "},
		{"directory with keys", trust.Verifier{Attestor: a, Keys: keys(t, pub)}, "dir.wasm", nil, trust.ErrUnsigned, "no signature file"},
		{"lock first", trust.Verifier{Attestor: a, Lock: lock}, "other.wasm", nil, trust.ErrNotPinned, ""},
		{"pinned and attested", trust.Verifier{Attestor: a, Lock: lock}, "ref.wasm", nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.v.Verify(tc.file, wasm, tc.sig)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var refused *trust.RefusedError
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.why) || !errors.As(err, &refused) || refused.Digest != sha256.Sum256(wasm) {
				t.Fatalf("got %v, want %v saying %q", err, tc.want, tc.why)
			}
		})
	}
}
