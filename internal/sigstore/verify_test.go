package sigstore_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"

	"github.com/wasmcp/wasmcp/internal/sigstore"
	"github.com/wasmcp/wasmcp/internal/sigstore/sigstoretest"
)

var (
	manifest = digest.FromString("the manifest")
	other    = digest.FromString("another manifest")
)

// policy writes a policy file of doc beside the trusted root and key
// files given, and loads it.
func policy(t *testing.T, doc string, files map[string][]byte) (*sigstore.Policy, error) {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "sigstore.json")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return sigstore.Load(path)
}

func mustPolicy(t *testing.T, doc string, files map[string][]byte) *sigstore.Policy {
	t.Helper()
	p, err := policy(t, doc, files)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const identity = `{"identities": [{"issuer": "` + sigstoretest.Issuer + `", "subject": "` + sigstoretest.Subject + `"}], "trustedRoot": "root.json"}`

// TestVerify signs as cosign 3 and cosign 2 do, keyless and with a key,
// and checks what verifies and what is refused.
func TestVerify(t *testing.T) {
	s := sigstoretest.New(t)
	files := map[string][]byte{"root.json": s.TrustedRoot(t)}
	p := mustPolicy(t, identity, files)
	key := sigstoretest.NewKey(t)
	files["cosign.pub"] = key.PublicPEM(t)
	keyed := mustPolicy(t, `{"keys": ["cosign.pub"], "trustedRoot": "root.json"}`, files)
	regexp := mustPolicy(t, `{"identities": [{"issuerRegexp": "https://token\\.actions\\.githubusercontent\\.com", "subjectRegexp": "https://github\\.com/tuananh/hyper-mcp/.*"}], "trustedRoot": "root.json"}`, files)

	bundle := func(subject, issuer string, d digest.Digest) sigstore.Signature {
		return sigstore.Signature{Bundle: s.Bundle(t, subject, issuer, d)}
	}
	legacy := func(subject, issuer string, d digest.Digest) sigstore.Signature {
		payload, ann := s.Legacy(t, subject, issuer, d)
		return sigstore.Signature{Payload: payload, Annotations: ann}
	}
	good := bundle(sigstoretest.Subject, sigstoretest.Issuer, manifest)
	want := sigstoretest.Subject + " (issuer " + sigstoretest.Issuer + ")"
	for _, tc := range []struct {
		name   string
		policy *sigstore.Policy
		sigs   []sigstore.Signature
		signer string // "" for a refusal
		why    string
	}{
		{"bundle", p, []sigstore.Signature{good}, want, ""},
		{"legacy", p, []sigstore.Signature{legacy(sigstoretest.Subject, sigstoretest.Issuer, manifest)}, want, ""},
		{"regexp", regexp, []sigstore.Signature{good}, want, ""},
		{"one of several", p, []sigstore.Signature{bundle("someone@example.com", sigstoretest.Issuer, manifest), good}, want, ""},
		{"key bundle", keyed, []sigstore.Signature{{Bundle: key.Bundle(t, manifest)}}, "key cosign.pub", ""},
		{"key legacy", keyed, []sigstore.Signature{func() sigstore.Signature {
			payload, ann := key.Legacy(t, manifest)
			return sigstore.Signature{Payload: payload, Annotations: ann}
		}()}, "key cosign.pub", ""},

		{"unsigned", p, nil, "", "no Sigstore signature found"},
		{"wrong identity", p, []sigstore.Signature{bundle("mallory@example.com", sigstoretest.Issuer, manifest)}, "", "mallory@example.com"},
		{"wrong issuer", p, []sigstore.Signature{bundle(sigstoretest.Subject, "https://accounts.example.com", manifest)}, "", "https://accounts.example.com"},
		{"regexp is anchored", regexp, []sigstore.Signature{bundle("https://evil.example/?https://github.com/tuananh/hyper-mcp/x", sigstoretest.Issuer, manifest)}, "", "signed by https://evil.example/?https://github.com/tuananh/hyper-mcp/x (issuer https://token.actions.githubusercontent.com), whom none of the policy's identities accepts"},
		{"another digest", p, []sigstore.Signature{bundle(sigstoretest.Subject, sigstoretest.Issuer, other)}, "", "digest"},
		{"legacy, another digest", p, []sigstore.Signature{legacy(sigstoretest.Subject, sigstoretest.Issuer, other)}, "", "a signature of " + other.String()},
		{"tampered bundle", p, []sigstore.Signature{{Bundle: tamper(t, good.Bundle)}}, "", "failed to verify"},
		{"another predicate", p, []sigstore.Signature{{Bundle: s.BundleOf(t, sigstoretest.Subject, sigstoretest.Issuer,
			[]byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"x","digest":{"sha256":"`+manifest.Encoded()+`"}}],"predicateType":"https://slsa.dev/provenance/v1","predicate":{}}`))}}, "", "not cosign's image signature"},
		{"key not trusted", keyed, []sigstore.Signature{{Bundle: sigstoretest.NewKey(t).Bundle(t, manifest)}}, "", "key cosign.pub"},
		{"keyless under a key policy", keyed, []sigstore.Signature{good}, "", "names no identities"},
		{"key under an identity policy", p, []sigstore.Signature{{Bundle: key.Bundle(t, manifest)}}, "", "names no keys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			signer, err := tc.policy.Verify(manifest, tc.sigs)
			if tc.signer != "" {
				if err != nil || signer != tc.signer {
					t.Fatalf("got %q, %v; want %q", signer, err, tc.signer)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("got %q, %v; want a refusal saying %q", signer, err, tc.why)
			}
		})
	}
}

// tamper changes the statement the bundle's envelope holds, keeping its
// subject and predicate.
func tamper(t *testing.T, bundle []byte) []byte {
	var b map[string]any
	if err := json.Unmarshal(bundle, &b); err != nil {
		t.Fatal(err)
	}
	env := b["dsseEnvelope"].(map[string]any)
	payload, _ := base64.StdEncoding.DecodeString(env["payload"].(string))
	env["payload"] = base64.StdEncoding.EncodeToString([]byte(strings.Replace(string(payload), `"name":"image"`, `"name":"imagf"`, 1)))
	data, _ := json.Marshal(b)
	return data
}

// An expired certificate without a timestamp is refused: keyless
// signatures are judged at a time the log or a timestamp authority
// vouches for, never at the clock's.
func TestExpiredCertificateWithoutTimestamp(t *testing.T) {
	rootCert, rootKey, err := ca.GenerateRootCa()
	if err != nil {
		t.Fatal(err)
	}
	interCert, interKey, err := ca.GenerateFulcioIntermediate(rootCert, rootKey)
	if err != nil {
		t.Fatal(err)
	}
	leafKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf, err := ca.GenerateLeafCert(sigstoretest.Subject, sigstoretest.Issuer, time.Now().Add(-time.Hour), leafKey, interCert, interKey)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, []root.CertificateAuthority{&root.FulcioCertificateAuthority{
		Root: rootCert, Intermediates: []*x509.Certificate{interCert}, ValidityPeriodStart: time.Now().Add(-24 * time.Hour),
	}}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rootJSON, err := tr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	p := mustPolicy(t, identity, map[string][]byte{"root.json": rootJSON})
	payload := sigstoretest.Payload(manifest)
	sum := sha256.Sum256(payload)
	sig, _ := ecdsa.SignASN1(rand.Reader, leafKey, sum[:])
	_, err = p.Verify(manifest, []sigstore.Signature{{Payload: payload, Annotations: map[string]string{
		"dev.cosignproject.cosign/signature": base64.StdEncoding.EncodeToString(sig),
		"dev.sigstore.cosign/certificate":    string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leaf.Raw})),
	}}})
	if err == nil || !strings.Contains(err.Error(), "without a transparency log entry or a signed timestamp") {
		t.Fatalf("got %v", err)
	}
}

// TestPolicyFile checks that a policy names who may sign, fully.
func TestPolicyFile(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{}`, "no identities and no keys"},
		{`{"identities": [{"issuer": "https://accounts.google.com"}]}`, "no subject"},
		{`{"identities": [{"subject": "me@example.com"}]}`, "no issuer"},
		{`{"identities": [{"issuer": "https://accounts.google.com", "subjectRegexp": ".*"}]}`, "matches the empty string"},
		{`{"identities": [{"issuer": "https://accounts.google.com", "issuerRegexp": "x", "subject": "me@example.com"}]}`, "both issuer and issuerRegexp"},
		{`{"identities": [{"issuer": "https://accounts.google.com", "subjectRegexp": "("}]}`, "subjectRegexp"},
		{`{"keys": ["missing.pub"]}`, "missing.pub"},
		{`{"identities": [], "issuer": "x"}`, "unknown field"},
	} {
		if _, err := policy(t, tc.doc, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.doc, err, tc.want)
		}
	}
	// The embedded public-good root: the virtual Sigstore's signatures
	// chain to none of its authorities.
	p := mustPolicy(t, `{"identities": [{"issuer": "`+sigstoretest.Issuer+`", "subject": "`+sigstoretest.Subject+`"}]}`, nil)
	s := sigstoretest.New(t)
	if _, err := p.Verify(manifest, []sigstore.Signature{{Bundle: s.Bundle(t, sigstoretest.Subject, sigstoretest.Issuer, manifest)}}); err == nil {
		t.Fatal("a virtual Sigstore's signature verified against the public-good root")
	}
}

func BenchmarkVerify(b *testing.B) {
	s := sigstoretest.New(b)
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "root.json"), s.TrustedRoot(b), 0o600)
	os.WriteFile(filepath.Join(dir, "p.json"), []byte(identity), 0o600)
	p, err := sigstore.Load(filepath.Join(dir, "p.json"))
	if err != nil {
		b.Fatal(err)
	}
	sigs := []sigstore.Signature{{Bundle: s.Bundle(b, sigstoretest.Subject, sigstoretest.Issuer, manifest)}}
	for b.Loop() {
		if _, err := p.Verify(manifest, sigs); err != nil {
			b.Fatal(err)
		}
	}
}
