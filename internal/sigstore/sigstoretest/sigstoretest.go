// Package sigstoretest signs OCI manifests as cosign does, offline, with
// sigstore-go's virtual Sigstore (a Fulcio, a Rekor log and a timestamp
// authority of throwaway keys), for tests. Its trusted root replaces the
// public-good one in a policy file.
package sigstoretest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"time"

	"github.com/opencontainers/go-digest"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
)

// Issuer and Subject are a keyless signer's identity, as GitHub Actions
// gives one.
const (
	Issuer  = "https://token.actions.githubusercontent.com"
	Subject = "https://github.com/tuananh/hyper-mcp/.github/workflows/nightly.yml@refs/heads/main"
)

// TB is the part of testing.TB the package uses, so that the benchmark
// command can sign too.
type TB interface {
	Helper()
	Fatal(args ...any)
}

// Sigstore is a virtual Sigstore.
type Sigstore struct{ vs *ca.VirtualSigstore }

// New starts a virtual Sigstore.
func New(tb TB) *Sigstore {
	tb.Helper()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		tb.Fatal(err)
	}
	return &Sigstore{vs: vs}
}

// TrustedRoot is s's trusted root, in the trusted_root.json format: its
// Fulcio, timestamp authority and Rekor log. It names no CT log: the
// virtual Fulcio's certificates carry no SCT.
func (s *Sigstore) TrustedRoot(tb TB) []byte {
	tb.Helper()
	logs := map[string]*root.TransparencyLog{}
	for id, l := range s.vs.RekorLogs() {
		raw, err := hex.DecodeString(id)
		if err != nil {
			tb.Fatal(err)
		}
		c := *l
		c.ID = raw // the virtual log's is the hex text
		logs[id] = &c
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, s.vs.FulcioCertificateAuthorities(), nil, s.vs.TimestampingAuthorities(), logs)
	if err != nil {
		tb.Fatal(err)
	}
	data, err := tr.MarshalJSON()
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// Statement is the in-toto statement cosign 3 signs for an image.
func Statement(manifest digest.Digest) []byte {
	data, _ := json.Marshal(map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"name": "image", "digest": map[string]string{"sha256": manifest.Encoded()}}},
		"predicateType": "https://sigstore.dev/cosign/sign/v1",
		"predicate":     map[string]any{},
	})
	return data
}

// Bundle signs manifest as cosign 3 does, as subject of issuer: a v0.3
// bundle of a DSSE envelope holding Statement, with a Rekor entry (its
// inclusion proof and signed entry timestamp) and an RFC 3161 timestamp.
func (s *Sigstore) Bundle(tb TB, subject, issuer string, manifest digest.Digest) []byte {
	return s.BundleOf(tb, subject, issuer, Statement(manifest))
}

// BundleOf is Bundle of any in-toto statement.
func (s *Sigstore) BundleOf(tb TB, subject, issuer string, statement []byte) []byte {
	tb.Helper()
	e, err := s.vs.AttestAtTime(subject, issuer, statement, time.Now().Add(time.Minute), true)
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := e.SignatureContent()
	if err != nil {
		tb.Fatal(err)
	}
	env := sc.EnvelopeContent().RawEnvelope()
	payload, _ := base64.StdEncoding.DecodeString(env.Payload)
	sig, _ := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
	vc, err := e.VerificationContent()
	if err != nil {
		tb.Fatal(err)
	}
	b := &protobundle.Bundle{
		MediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
		VerificationMaterial: &protobundle.VerificationMaterial{
			Content:     &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: vc.Certificate().Raw}},
			TlogEntries: s.entries(tb, e, "intoto", "0.0.2"),
		},
		Content: &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{
			Payload: payload, PayloadType: env.PayloadType, Signatures: []*protodsse.Signature{{Sig: sig}},
		}},
	}
	b.VerificationMaterial.TimestampVerificationData = timestamps(tb, e)
	return marshal(tb, b)
}

// entries are e's Rekor entries as a bundle holds them.
func (s *Sigstore) entries(tb TB, e *ca.TestEntity, kind, version string) []*protorekor.TransparencyLogEntry {
	tb.Helper()
	entries, err := e.TlogEntries()
	if err != nil {
		tb.Fatal(err)
	}
	var out []*protorekor.TransparencyLogEntry
	for _, entry := range entries {
		tle := entry.TransparencyLogEntry()
		tle.KindVersion = &protorekor.KindVersion{Kind: kind, Version: version}
		tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: s.set(tb, tle)}
		out = append(out, tle)
	}
	return out
}

// set is the Rekor log's signed entry timestamp of tle.
func (s *Sigstore) set(tb TB, tle *protorekor.TransparencyLogEntry) []byte {
	tb.Helper()
	set, err := s.vs.RekorSignPayload(tlog.RekorPayload{
		Body:           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
		IntegratedTime: tle.IntegratedTime,
		LogIndex:       tle.LogIndex,
		LogID:          hex.EncodeToString(tle.LogId.KeyId),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return set
}

func timestamps(tb TB, e *ca.TestEntity) *protobundle.TimestampVerificationData {
	tss, err := e.Timestamps()
	if err != nil {
		tb.Fatal(err)
	}
	d := &protobundle.TimestampVerificationData{}
	for _, ts := range tss {
		d.Rfc3161Timestamps = append(d.Rfc3161Timestamps, &protocommon.RFC3161SignedTimestamp{SignedTimestamp: ts})
	}
	return d
}

func marshal(tb TB, b *protobundle.Bundle) []byte {
	tb.Helper()
	data, err := (&bundle.Bundle{Bundle: b}).MarshalJSON()
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// Payload is the simple-signing payload cosign 2 signs for manifest.
func Payload(manifest digest.Digest) []byte {
	return fmt.Appendf(nil, `{"critical":{"identity":{"docker-reference":"image"},"image":{"docker-manifest-digest":%q},"type":"cosign container image signature"},"optional":null}`, manifest)
}

// Legacy signs manifest as cosign 2 does, as subject of issuer: a layer
// of the sha256-HEX.sig manifest, Payload with the signature, certificate,
// Rekor bundle and timestamp in its annotations.
func (s *Sigstore) Legacy(tb TB, subject, issuer string, manifest digest.Digest) (payload []byte, annotations map[string]string) {
	tb.Helper()
	payload = Payload(manifest)
	e, err := s.vs.Sign(subject, issuer, payload)
	if err != nil {
		tb.Fatal(err)
	}
	sc, _ := e.SignatureContent()
	vc, _ := e.VerificationContent()
	tle := s.entries(tb, e, "hashedrekord", "0.0.1")[0]
	rb, _ := json.Marshal(map[string]any{
		"SignedEntryTimestamp": tle.InclusionPromise.SignedEntryTimestamp,
		"Payload": map[string]any{
			"body": tle.CanonicalizedBody, "integratedTime": tle.IntegratedTime,
			"logIndex": tle.LogIndex, "logID": hex.EncodeToString(tle.LogId.KeyId),
		},
	})
	ts, _ := json.Marshal(map[string][]byte{"SignedRFC3161Timestamp": timestamps(tb, e).Rfc3161Timestamps[0].SignedTimestamp})
	return payload, map[string]string{
		"dev.cosignproject.cosign/signature":   base64.StdEncoding.EncodeToString(sc.MessageSignatureContent().Signature()),
		"dev.sigstore.cosign/certificate":      string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: vc.Certificate().Raw})),
		"dev.sigstore.cosign/bundle":           string(rb),
		"dev.sigstore.cosign/rfc3161timestamp": string(ts),
	}
}

// Key is a cosign key pair.
type Key struct{ priv *ecdsa.PrivateKey }

// NewKey makes a key pair, as "cosign generate-key-pair" does.
func NewKey(tb TB) *Key {
	tb.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return &Key{priv}
}

// PublicPEM is cosign.pub.
func (k *Key) PublicPEM(tb TB) []byte {
	der, err := x509.MarshalPKIXPublicKey(&k.priv.PublicKey)
	if err != nil {
		tb.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

func (k *Key) sign(tb TB, msg []byte) []byte {
	sum := sha256.Sum256(msg)
	sig, err := ecdsa.SignASN1(rand.Reader, k.priv, sum[:])
	if err != nil {
		tb.Fatal(err)
	}
	return sig
}

// Legacy signs manifest with k as "cosign sign --key --tlog-upload=false"
// does in cosign 2's format.
func (k *Key) Legacy(tb TB, manifest digest.Digest) (payload []byte, annotations map[string]string) {
	payload = Payload(manifest)
	return payload, map[string]string{"dev.cosignproject.cosign/signature": base64.StdEncoding.EncodeToString(k.sign(tb, payload))}
}

// Bundle signs manifest with k as cosign 3 does without a log: a DSSE
// envelope of Statement.
func (k *Key) Bundle(tb TB, manifest digest.Digest) []byte {
	const payloadType = "application/vnd.in-toto+json"
	statement := Statement(manifest)
	pae := fmt.Appendf(nil, "DSSEv1 %d %s %d %s", len(payloadType), payloadType, len(statement), statement)
	return marshal(tb, &protobundle.Bundle{
		MediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
		VerificationMaterial: &protobundle.VerificationMaterial{
			Content: &protobundle.VerificationMaterial_PublicKey{PublicKey: &protocommon.PublicKeyIdentifier{}},
		},
		Content: &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{
			Payload: statement, PayloadType: payloadType, Signatures: []*protodsse.Signature{{Sig: k.sign(tb, pae)}},
		}},
	})
}
