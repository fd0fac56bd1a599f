package trust_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host/trust"
)

// key returns a key pair derived from seed, so that tests are repeatable.
func key(seed byte) (ed25519.PublicKey, ed25519.PrivateKey) {
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
	return priv.Public().(ed25519.PublicKey), priv
}

func keys(t *testing.T, pubs ...ed25519.PublicKey) *trust.Keys {
	t.Helper()
	var text strings.Builder
	for _, pub := range pubs {
		text.WriteString(trust.KeyLine(pub, ""))
	}
	k, err := trust.ParseKeys([]byte(text.String()))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestParseKeys(t *testing.T) {
	pub1, _ := key(1)
	pub2, _ := key(2)
	text := "# trusted\n\n" + strings.TrimSuffix(trust.KeyLine(pub1, "release 2026"), "\n") + "\t\n" +
		"  " + hex.EncodeToString(pub2) + "\n"
	k, err := trust.ParseKeys([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if k.Len() != 2 {
		t.Errorf("Len = %d", k.Len())
	}
	if got, want := trust.KeyLine(pub1, " release\t2026 "), base64.StdEncoding.EncodeToString(pub1)+"  release 2026\n"; got != want {
		t.Errorf("KeyLine = %q, want %q", got, want)
	}
	bad := []struct{ text, want string }{
		{"", "no keys"},
		{"# only a comment\n", "no keys"},
		{"\nAAAA\n", `line 2: "AAAA" is not a 32-byte Ed25519 public key in base64 or hex`},
		{hex.EncodeToString(pub1)[:62], "line 1: "},
		{base64.StdEncoding.EncodeToString(pub1)[:43], "line 1: "},
		{"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5", `line 1: "ssh-ed25519" is not`},
	}
	for i, tt := range bad {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if _, err := trust.ParseKeys([]byte(tt.text)); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("ParseKeys(%q) = %v, want %q", tt.text, err, tt.want)
			}
		})
	}
	if _, err := trust.LoadKeys(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadKeys(missing) = %v", err)
	}
}

func TestVerify(t *testing.T) {
	wasm := []byte("\x00asm\x01\x00\x00\x00 a module")
	pub1, priv1 := key(1)
	pub2, priv2 := key(2)
	_, untrusted := key(3)
	lock, err := trust.ParseLock([]byte(trust.LockLine("a.wasm", wasm)))
	if err != nil {
		t.Fatal(err)
	}
	signed := trust.Sign(priv1, wasm)
	raw := ed25519.Sign(priv2, wasm)
	rotated := append(trust.Sign(untrusted, wasm), trust.Sign(priv2, wasm)...)

	tests := []struct {
		name   string
		policy trust.Verifier
		file   string
		wasm   []byte
		sig    []byte
		want   error // nil, ErrNotPinned, ErrUnsigned or ErrBadSignature
	}{
		{"open", trust.Verifier{}, "z.wasm", wasm, nil, nil},
		{"pinned", trust.Verifier{Lock: lock}, "dir/a.wasm", wasm, nil, nil},
		{"not pinned", trust.Verifier{Lock: lock}, "b.wasm", wasm, signed, trust.ErrNotPinned},
		{"changed", trust.Verifier{Lock: lock}, "a.wasm", append(wasm, 0), nil, trust.ErrNotPinned},
		{"signed", trust.Verifier{Keys: keys(t, pub1)}, "b.wasm", wasm, signed, nil},
		{"second key", trust.Verifier{Keys: keys(t, pub1, pub2)}, "b.wasm", wasm, trust.Sign(priv2, wasm), nil},
		{"raw signature", trust.Verifier{Keys: keys(t, pub2)}, "b.wasm", wasm, raw, nil},
		{"rotation", trust.Verifier{Keys: keys(t, pub2)}, "b.wasm", wasm, rotated, nil},
		{"pinned and signed", trust.Verifier{Lock: lock, Keys: keys(t, pub1)}, "a.wasm", wasm, signed, nil},
		{"pinned, unsigned", trust.Verifier{Lock: lock, Keys: keys(t, pub1)}, "a.wasm", wasm, nil, trust.ErrUnsigned},
		{"untrusted key", trust.Verifier{Keys: keys(t, pub1)}, "b.wasm", wasm, trust.Sign(untrusted, wasm), trust.ErrBadSignature},
		{"tampered", trust.Verifier{Keys: keys(t, pub1)}, "b.wasm", append(wasm, 0), signed, trust.ErrBadSignature},
		{"empty signature file", trust.Verifier{Keys: keys(t, pub1)}, "b.wasm", wasm, []byte{}, trust.ErrBadSignature},
		{"not base64", trust.Verifier{Keys: keys(t, pub1)}, "b.wasm", wasm, []byte("not a signature\n"), trust.ErrBadSignature},
		{"short", trust.Verifier{Keys: keys(t, pub1)}, "b.wasm", wasm, []byte("AAAA\n"), trust.ErrBadSignature},
		{"too many", trust.Verifier{Keys: keys(t, pub1)}, "b.wasm", wasm, bytes.Repeat(signed, 17), trust.ErrBadSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.policy.Verify(tt.file, tt.wasm, tt.sig)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Verify = %v", err)
				}
				return
			}
			var refused *trust.RefusedError
			if !errors.Is(err, tt.want) || !errors.As(err, &refused) {
				t.Fatalf("Verify = %v, want a RefusedError wrapping %v", err, tt.want)
			}
			sum := digest(string(tt.wasm))
			if refused.Name != tt.file || refused.Digest != sum ||
				!strings.HasPrefix(err.Error(), "module "+tt.file+" (sha256:"+hex.EncodeToString(sum[:])+") refused: ") {
				t.Errorf("err = %q, want it to name %s and its digest", err, tt.file)
			}
		})
	}
}

func TestVerifyMessages(t *testing.T) {
	pub, _ := key(1)
	_, other := key(2)
	p := trust.Verifier{Keys: keys(t, pub)}
	err := p.Verify("dir/a.wasm", []byte("x"), nil)
	if want := "refused: not signed: no signature file dir/a.wasm.sig"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
	err = p.Verify("dir/a.wasm", []byte("x"), trust.Sign(other, []byte("x")))
	if want := "refused: no valid signature from a trusted key in dir/a.wasm.sig (1 signatures, 1 keys)"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
	err = p.Verify("a.wasm", []byte("x"), []byte("\n\n"+base64.StdEncoding.EncodeToString([]byte("short"))+"\n"))
	if want := "a.wasm.sig: line 3 is not a base64 Ed25519 signature"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// ReadModule returns the bytes it verified, reading the signature beside
// the module.
func TestReadModule(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.wasm")
	wasm := []byte("\x00asm\x01\x00\x00\x00")
	pub, priv := key(1)
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("a.wasm", wasm)
	p := trust.Verifier{Keys: keys(t, pub)}
	if _, err := p.ReadModule(path); !errors.Is(err, trust.ErrUnsigned) {
		t.Errorf("unsigned: %v", err)
	}
	write("a.wasm.sig", trust.Sign(priv, wasm))
	got, err := p.ReadModule(path)
	if err != nil || !bytes.Equal(got, wasm) {
		t.Errorf("ReadModule = %q, %v", got, err)
	}
	write("a.wasm", append(wasm, 1))
	if _, err := p.ReadModule(path); !errors.Is(err, trust.ErrBadSignature) {
		t.Errorf("changed after signing: %v", err)
	}
	// Without keys, no signature file is read.
	lock, err := trust.ParseLock([]byte(trust.LockLine(path, append(wasm, 1))))
	if err != nil {
		t.Fatal(err)
	}
	// A signature file that cannot be read (a directory, whoever runs the
	// test) fails a policy with keys, and not one without.
	if err := os.Remove(trust.SigPath(path)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(trust.SigPath(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := (&trust.Verifier{Lock: lock}).ReadModule(path); err != nil {
		t.Errorf("lock only: %v", err)
	}
	if _, err := p.ReadModule(path); err == nil || errors.As(err, new(*trust.RefusedError)) {
		t.Errorf("unreadable signature file: %v, want a read error", err)
	}
	if _, err := p.ReadModule(filepath.Join(dir, "missing.wasm")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing module: %v", err)
	}
}

// Keys and signatures made by OpenSSL 3.0 (testdata: openssl genpkey
// -algorithm ed25519; openssl pkeyutl -sign -rawin; the public key line as
// the package documentation shows) work here, and the other way round:
// Ed25519 signatures are deterministic, so Sign with OpenSSL's key gives
// OpenSSL's signature.
func TestOpenSSLInterop(t *testing.T) {
	read := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	k, err := trust.LoadKeys("testdata/openssl-key.pub")
	if err != nil {
		t.Fatal(err)
	}
	p := trust.Verifier{Keys: k}
	wasm, rawSig := read("module.wasm"), read("module.wasm.sig")
	got, err := p.ReadModule("testdata/module.wasm")
	if err != nil || !bytes.Equal(got, wasm) {
		t.Fatalf("ReadModule = %v", err)
	}
	priv, err := trust.ParsePrivateKey(read("openssl-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	if want := base64.StdEncoding.EncodeToString(rawSig) + "\n"; string(trust.Sign(priv, wasm)) != want {
		t.Errorf("Sign = %q, want OpenSSL's %q", trust.Sign(priv, wasm), want)
	}
}

func TestPrivateKeyPEM(t *testing.T) {
	_, priv := key(7)
	data, err := trust.MarshalPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("-----BEGIN PRIVATE KEY-----\n")) {
		t.Errorf("MarshalPrivateKey = %s", data)
	}
	back, err := trust.ParsePrivateKey(data)
	if err != nil || !back.Equal(priv) {
		t.Errorf("ParsePrivateKey = %v, %v", back, err)
	}

	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range []struct {
		data []byte
		want string
	}{
		{pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), "parse private key: a *ecdsa.PrivateKey, not an Ed25519 key"},
		{pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), "parse private key: no PEM PRIVATE KEY block"},
		{[]byte("not PEM"), "parse private key: no PEM PRIVATE KEY block"},
		{pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2}}), "parse private key: "},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if _, err := trust.ParsePrivateKey(tt.data); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("ParsePrivateKey = %v, want %q", err, tt.want)
			}
		})
	}
}
