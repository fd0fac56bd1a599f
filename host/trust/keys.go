package trust

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Keys is a set of trusted Ed25519 public keys. It is immutable and safe for
// concurrent use.
type Keys struct {
	keys []trustedKey
}

// trustedKey is one line of a keys file.
type trustedKey struct {
	pub   ed25519.PublicKey
	label string // the line's label, or a fingerprint of the key
}

// LoadKeys reads the keys file at path (see the package documentation for
// its format). A file without keys is an error: requiring signatures from
// nobody would refuse every module.
func LoadKeys(path string) (*Keys, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load keys file: %w", err)
	}
	k, err := ParseKeys(data)
	if err != nil {
		return nil, fmt.Errorf("load keys file %s: %w", path, err)
	}
	return k, nil
}

// ParseKeys parses the contents of a keys file.
func ParseKeys(data []byte) (*Keys, error) {
	k := &Keys{}
	for n, line := range lines(data) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		pub, err := parseKey(fields[0])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		label := strings.Join(fields[1:], " ")
		if label == "" {
			label = fingerprint(pub)
		}
		k.keys = append(k.keys, trustedKey{pub, label})
	}
	if len(k.keys) == 0 {
		return nil, errors.New("no keys")
	}
	return k, nil
}

// parseKey decodes a public key written in base64 or hex.
func parseKey(text string) (ed25519.PublicKey, error) {
	b, err := hex.DecodeString(text)
	if err != nil {
		b, err = base64.StdEncoding.DecodeString(text)
	}
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%q is not a %d-byte Ed25519 public key in base64 or hex", text, ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// fingerprint names an unlabelled key: the first 8 bytes of its SHA-256.
func fingerprint(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return "key " + hex.EncodeToString(sum[:8])
}

// Len is the number of keys.
func (k *Keys) Len() int { return len(k.keys) }

// verify returns the label of a key that signed wasm with one of sigs, or
// false.
func (k *Keys) verify(wasm []byte, sigs [][]byte) (string, bool) {
	for _, sig := range sigs {
		for _, key := range k.keys {
			if ed25519.Verify(key.pub, wasm, sig) {
				return key.label, true
			}
		}
	}
	return "", false
}

// KeyLine returns the keys file line, with its newline, that trusts pub,
// labelled label (which may be empty).
func KeyLine(pub ed25519.PublicKey, label string) string {
	line := base64.StdEncoding.EncodeToString(pub)
	if label = strings.Join(strings.Fields(label), " "); label != "" {
		line += "  " + label
	}
	return line + "\n"
}
