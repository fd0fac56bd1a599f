package trust

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
)

// Sign returns the contents of a signature file (SigPath) for the module
// wasm: its Ed25519 signature by priv, in base64, on one line.
func Sign(priv ed25519.PrivateKey, wasm []byte) []byte {
	return []byte(base64.StdEncoding.EncodeToString(ed25519.Sign(priv, wasm)) + "\n")
}

// pemPrivateKey is the PEM block type of a PKCS #8 private key.
const pemPrivateKey = "PRIVATE KEY"

// MarshalPrivateKey encodes priv as a PEM "PRIVATE KEY" block (PKCS #8),
// the format of openssl genpkey -algorithm ed25519. The result is secret:
// write it to a file only its owner can read.
func MarshalPrivateKey(priv ed25519.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("marshal private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemPrivateKey, Bytes: der}), nil
}

// ParsePrivateKey decodes an Ed25519 private key from a PEM "PRIVATE KEY"
// block, as MarshalPrivateKey and OpenSSL write it.
func ParsePrivateKey(data []byte) (ed25519.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != pemPrivateKey {
		return nil, errors.New("parse private key: no PEM PRIVATE KEY block")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parse private key: %w", err)
	}
	priv, ok := key.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("parse private key: a %T, not an Ed25519 key", key)
	}
	return priv, nil
}
