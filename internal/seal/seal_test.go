package seal

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clock is a settable time for a Sealer.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newSealer(t testing.TB, c *clock, keys ...[]byte) *Sealer {
	t.Helper()
	s, err := New(time.Hour, keys...)
	if err != nil {
		t.Fatal(err)
	}
	if c != nil {
		s.now = c.now
	}
	return s
}

var (
	key1 = bytes.Repeat([]byte{1}, KeySize)
	key2 = bytes.Repeat([]byte{2}, KeySize)
	ad   = []byte("tool\x00digest")
)

func TestRoundTrip(t *testing.T) {
	s := newSealer(t, nil, key1)
	for _, payload := range [][]byte{nil, []byte("{}"), bytes.Repeat([]byte("x"), 1<<16)} {
		t.Run(fmt.Sprintf("%d bytes", len(payload)), func(t *testing.T) {
			state := s.Seal(payload, ad)
			if len(state) != SealedLen(len(payload)) {
				t.Errorf("state of %d letters, SealedLen says %d", len(state), SealedLen(len(payload)))
			}
			got, err := s.Open(state, ad)
			if err != nil || !bytes.Equal(got, payload) {
				t.Errorf("Open(Seal(%d bytes)) = %d bytes, %v", len(payload), len(got), err)
			}
		})
	}
	if a, b := s.Seal([]byte("p"), ad), s.Seal([]byte("p"), ad); a == b {
		t.Error("two seals of one payload are equal: the nonce is not random")
	}
}

// Changing any byte of a state, or cutting it short, makes it refused.
func TestTamperEveryByte(t *testing.T) {
	s := newSealer(t, nil, key1)
	raw, _ := base64.RawURLEncoding.DecodeString(s.Seal([]byte(`{"steps":[1,2,3]}`), ad))
	for i := range raw {
		for _, flip := range []byte{0x01, 0x80, 0xff} {
			b := bytes.Clone(raw)
			b[i] ^= flip
			if _, err := s.Open(base64.RawURLEncoding.EncodeToString(b), ad); err == nil {
				t.Fatalf("byte %d xor %#x: opened", i, flip)
			}
		}
	}
	for n := range raw {
		if _, err := s.Open(base64.RawURLEncoding.EncodeToString(raw[:n]), ad); err == nil {
			t.Fatalf("cut to %d bytes: opened", n)
		}
	}
}

func TestRefusals(t *testing.T) {
	c := &clock{time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
	s := newSealer(t, c, key1)
	state := s.Seal([]byte("p"), ad)
	for _, tc := range []struct {
		name  string
		open  func() error
		want  error
		other string
	}{
		{"other key", func() error { _, err := newSealer(t, c, key2).Open(state, ad); return err }, ErrUnknownKey, ""},
		{"other associated data", func() error { _, err := s.Open(state, []byte("tool\x00other")); return err }, ErrForged, ""},
		{"no associated data", func() error { _, err := s.Open(state, nil); return err }, ErrForged, ""},
		{"not base64", func() error { _, err := s.Open("!!", ad); return err }, ErrMalformed, ""},
		{"empty", func() error { _, err := s.Open("", ad); return err }, ErrMalformed, "the shortest"},
		{"other version", func() error {
			raw, _ := base64.RawURLEncoding.DecodeString(state)
			raw[0] = 2
			_, err := s.Open(base64.RawURLEncoding.EncodeToString(raw), ad)
			return err
		}, ErrMalformed, "version 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.open()
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.other) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
		})
	}
}

func TestStale(t *testing.T) {
	c := &clock{time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
	s := newSealer(t, c, key1)
	state := s.Seal([]byte("p"), ad)
	c.t = c.t.Add(time.Hour)
	if _, err := s.Open(state, ad); err != nil {
		t.Errorf("at the maximum age: %v", err)
	}
	c.t = c.t.Add(time.Second)
	if _, err := s.Open(state, ad); !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "1h0m1s ago") {
		t.Errorf("past the maximum age: %v, want stale", err)
	}
	// Sealed by a replica whose clock runs ahead.
	c.t = c.t.Add(-time.Hour - time.Second - maxSkew)
	if _, err := s.Open(state, ad); err != nil {
		t.Errorf("sealed %s in the future: %v", maxSkew, err)
	}
	c.t = c.t.Add(-time.Second)
	if _, err := s.Open(state, ad); !errors.Is(err, ErrStale) {
		t.Errorf("sealed further in the future: %v, want stale", err)
	}
}

// A key rolled out second opens what the first sealed, and the old key,
// kept second, opens what was sealed before the change.
func TestRotation(t *testing.T) {
	old := newSealer(t, nil, key1)
	before := old.Seal([]byte("before"), ad)
	s := newSealer(t, nil, key1, key2)
	if _, err := s.Open(before, ad); err != nil {
		t.Fatalf("with the new key added: %v", err)
	}
	if err := s.SetKeys(key2, key1); err != nil {
		t.Fatal(err)
	}
	after := s.Seal([]byte("after"), ad)
	if _, err := s.Open(before, ad); err != nil {
		t.Errorf("the previous key no longer opens: %v", err)
	}
	if got, err := newSealer(t, nil, key1, key2).Open(after, ad); err != nil || string(got) != "after" {
		t.Errorf("a replica not rotated yet opens %q, %v", got, err)
	}
	if _, err := old.Open(after, ad); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("a replica without the new key: %v, want ErrUnknownKey", err)
	}
	if err := s.SetKeys(key2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(before, ad); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("the retired key still opens: %v", err)
	}
}

func TestBadKeys(t *testing.T) {
	for i, keys := range [][][]byte{nil, {key1[:16]}, {key1, nil}} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if _, err := New(time.Hour, keys...); err == nil {
				t.Errorf("New with keys of %d bytes: no error", len(keys))
			}
		})
	}
	if _, err := New(0, key1); err == nil {
		t.Error("New with no maximum age: no error")
	}
}

func TestParseKeys(t *testing.T) {
	std, url := base64.StdEncoding.EncodeToString(key1), base64.RawURLEncoding.EncodeToString(key2)
	keys, err := ParseKeys([]byte("# rotated 2026-07-28\n" + std + "\n\n  " + url + "  \n"))
	if err != nil || len(keys) != 2 || !bytes.Equal(keys[0], key1) || !bytes.Equal(keys[1], key2) {
		t.Errorf("ParseKeys = %x, %v", keys, err)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "no key"},
		{"comment", "# only a comment\n", "no key"},
		{"not base64", std + "\nnot-base64!", "line 2: not base64"},
		{"short key", base64.StdEncoding.EncodeToString(key1[:16]), "line 1: a key of 16 bytes, want 32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseKeys([]byte(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseKeys(%q): %v, want %q", tc.text, err, tc.want)
			}
		})
	}
}

func TestLoadKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.key")
	if err := os.WriteFile(path, []byte(base64.StdEncoding.EncodeToString(key1)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	keys, other, err := LoadKeys(path)
	if err != nil || len(keys) != 1 || !other {
		t.Errorf("LoadKeys of a 0644 file = %d keys, readable by others %v, %v", len(keys), other, err)
	}
	if _, _, err := LoadKeys(path + ".missing"); err == nil || !strings.Contains(err.Error(), "state key file") {
		t.Errorf("missing file: %v", err)
	}
}

// FuzzOpen feeds Open what a client controls. It must refuse without
// failing, and what it opens can only be what Seal sealed: the one payload
// of the seeds. (Each fuzzing process seals its own seed, with its own
// nonce, so the state itself is not compared.)
func FuzzOpen(f *testing.F) {
	s := newSealer(f, &clock{time.Unix(1_800_000_000, 0)}, key1, key2)
	valid := s.Seal([]byte(`{"v":1}`), ad)
	for _, seed := range []string{valid, valid[:len(valid)-1], "", "AQ", "!!", strings.Repeat("A", 60)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, state string) {
		payload, err := s.Open(state, ad)
		if err == nil && string(payload) != `{"v":1}` {
			t.Fatalf("opened a state Seal did not make: %q = %q", state, payload)
		}
	})
}
