// Package seal protects state that a server hands to a client and takes back
// later, such as the requestState of the Model Context Protocol's
// multi-round-trip requests: a client cannot read it, change it, move it to
// another context, or use it after it has gone stale.
//
// A Sealer holds a ring of keys. The first seals; every one opens, so that
// replicas keep opening what the others sealed while a new key is rolled out
// (add it second, then first, then drop the old one). Sealing is AES-256-GCM
// with a random nonce; the time of sealing travels inside the sealed text,
// and the caller's associated data (what the state is for) is bound to it
// without travelling.
package seal

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// KeySize is the size of a key: AES-256.
const KeySize = 32

// version tags the layout of a sealed state, which is
//
//	version (1) | key id (4) | nonce (12) | AES-GCM(issued (8) | payload)
//
// base64url without padding. The version and key id are authenticated as
// part of the associated data.
const version = 1

const (
	idSize     = 4
	headerSize = 1 + idSize
	nonceSize  = 12
	issuedSize = 8
	// overhead is what sealing adds to a payload, before base64.
	overhead = headerSize + nonceSize + issuedSize + 16
)

// maxSkew is how far in the future a state may have been sealed: replicas'
// clocks differ a little.
const maxSkew = time.Minute

// The ways Open refuses a state. Errors from Open wrap one of them.
var (
	// ErrMalformed: not a sealed state at all (not base64, too short, an
	// unknown version).
	ErrMalformed = errors.New("not a sealed state")
	// ErrUnknownKey: sealed under a key the Sealer does not hold: by another
	// server, or by this one before a restart that changed its key.
	ErrUnknownKey = errors.New("sealed under a key this server does not hold")
	// ErrForged: it does not open under the key it names: altered, forged,
	// or sealed for other associated data.
	ErrForged = errors.New("altered, forged, or sealed for another use")
	// ErrStale: authentic, but sealed longer ago than the Sealer's maximum
	// age (or too far in the future).
	ErrStale = errors.New("stale")
)

// A Sealer seals and opens states. It is safe for concurrent use, SetKeys
// included.
type Sealer struct {
	ring   atomic.Pointer[ring]
	maxAge time.Duration
	now    func() time.Time // time.Now; tests set it
}

// ring is the keys of a Sealer; the first seals.
type ring struct {
	ids   [][idSize]byte
	aeads []cipher.AEAD
}

// New returns a Sealer of keys (each KeySize bytes; the first seals) that
// refuses states sealed more than maxAge ago.
func New(maxAge time.Duration, keys ...[]byte) (*Sealer, error) {
	if maxAge <= 0 {
		return nil, fmt.Errorf("seal: maximum age must be positive, got %s", maxAge)
	}
	s := &Sealer{maxAge: maxAge, now: time.Now}
	if err := s.SetKeys(keys...); err != nil {
		return nil, err
	}
	return s, nil
}

// NewKey returns a random key.
func NewKey() []byte {
	k := make([]byte, KeySize)
	rand.Read(k) // never fails (crypto/rand)
	return k
}

// SetKeys replaces the Sealer's keys; states sealed from then on use the
// first.
func (s *Sealer) SetKeys(keys ...[]byte) error {
	if len(keys) == 0 {
		return errors.New("seal: no key")
	}
	r := &ring{}
	for i, k := range keys {
		if len(k) != KeySize {
			return fmt.Errorf("seal: key %d has %d bytes, want %d", i+1, len(k), KeySize)
		}
		block, err := aes.NewCipher(k)
		if err != nil {
			return fmt.Errorf("seal: key %d: %w", i+1, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return fmt.Errorf("seal: key %d: %w", i+1, err)
		}
		r.ids = append(r.ids, keyID(k))
		r.aeads = append(r.aeads, aead)
	}
	s.ring.Store(r)
	return nil
}

// keyID names a key in a sealed state, so that Open tries the one key that
// sealed it and can tell a key it lacks from an altered state. It says
// nothing useful about the key itself.
func keyID(k []byte) [idSize]byte {
	h := sha256.New()
	h.Write([]byte("wasmcp seal key id\x00"))
	h.Write(k)
	var id [idSize]byte
	copy(id[:], h.Sum(nil))
	return id
}

// Seal returns payload sealed for ad, as a string of base64url letters.
// Open must be given the same ad.
func (s *Sealer) Seal(payload, ad []byte) string {
	r := s.ring.Load()
	out := make([]byte, headerSize+nonceSize, overhead+len(payload))
	out[0] = version
	copy(out[1:headerSize], r.ids[0][:])
	rand.Read(out[headerSize:]) // the nonce
	plain := make([]byte, issuedSize, issuedSize+len(payload))
	binary.BigEndian.PutUint64(plain, uint64(s.now().Unix()))
	plain = append(plain, payload...)
	out = r.aeads[0].Seal(out, out[headerSize:], plain, associated(out[:headerSize], ad))
	return base64.RawURLEncoding.EncodeToString(out)
}

// Open returns the payload of a state Seal made for ad, or an error that
// wraps ErrMalformed, ErrUnknownKey, ErrForged or ErrStale.
func (s *Sealer) Open(state string, ad []byte) ([]byte, error) {
	raw, err := base64.RawURLEncoding.DecodeString(state)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	case len(raw) < overhead:
		return nil, fmt.Errorf("%w: %d bytes, the shortest is %d", ErrMalformed, len(raw), overhead)
	case raw[0] != version:
		return nil, fmt.Errorf("%w: version %d, want %d", ErrMalformed, raw[0], version)
	}
	r := s.ring.Load()
	var aead cipher.AEAD
	for i, id := range r.ids {
		if bytes.Equal(id[:], raw[1:headerSize]) {
			aead = r.aeads[i]
			break
		}
	}
	if aead == nil {
		return nil, ErrUnknownKey
	}
	nonce, sealed := raw[headerSize:headerSize+nonceSize], raw[headerSize+nonceSize:]
	plain, err := aead.Open(nil, nonce, sealed, associated(raw[:headerSize], ad))
	if err != nil {
		return nil, ErrForged
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(plain)), 0)
	now := s.now()
	if age := now.Sub(issued); age > s.maxAge || age < -maxSkew {
		return nil, fmt.Errorf("%w: sealed at %s, %s ago; states last %s", ErrStale,
			issued.UTC().Format(time.RFC3339), now.Sub(issued).Round(time.Second), s.maxAge)
	}
	return plain[issuedSize:], nil
}

// associated is the associated data of a state: its header, so that neither
// the version nor the key id can be changed, and the caller's.
func associated(header, ad []byte) []byte {
	return append(append(make([]byte, 0, len(header)+len(ad)), header...), ad...)
}

// SealedLen is the length of the string Seal returns for a payload of n
// bytes.
func SealedLen(n int) int { return base64.RawURLEncoding.EncodedLen(overhead + n) }

// ParseKeys reads a key file: one key a line, KeySize bytes in standard or
// URL base64 (as "head -c 32 /dev/urandom | base64" writes), the first
// sealing; blank lines and lines starting with # are skipped.
func ParseKeys(text []byte) ([][]byte, error) {
	var keys [][]byte
	for i, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, err := decodeKey(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, errors.New("no key (make one with: head -c 32 /dev/urandom | base64)")
	}
	return keys, nil
}

func decodeKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil {
			if len(k) != KeySize {
				return nil, fmt.Errorf("a key of %d bytes, want %d (make one with: head -c 32 /dev/urandom | base64)", len(k), KeySize)
			}
			return k, nil
		}
	}
	return nil, errors.New("not base64 (make a key with: head -c 32 /dev/urandom | base64)")
}

// LoadKeys reads the key file at path (ParseKeys). other reports whether
// users other than its owner may read it.
func LoadKeys(path string) (keys [][]byte, other bool, err error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, false, fmt.Errorf("state key file: %w", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false, fmt.Errorf("state key file: %w", err)
	}
	if keys, err = ParseKeys(b); err != nil {
		return nil, false, fmt.Errorf("state key file %s: %w", path, err)
	}
	return keys, info.Mode().Perm()&0o077 != 0, nil
}
