package sigstore

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// Media types and annotations of cosign's signatures.
const (
	// BundleArtifactType is the artifactType of a referrer holding a
	// Sigstore bundle (cosign's new format, and the default of cosign 3);
	// its layer has the same media type.
	BundleArtifactType = "application/vnd.dev.sigstore.bundle.v0.3+json"
	// SimpleSigningMediaType is the media type of a layer of cosign's
	// legacy signature manifest, tagged sha256-HEX.sig: a simple-signing
	// payload naming the manifest digest, signed in its annotations.
	SimpleSigningMediaType = "application/vnd.dev.cosign.simplesigning.v1+json"

	annotationSignature   = "dev.cosignproject.cosign/signature"
	annotationCertificate = "dev.sigstore.cosign/certificate"
	annotationBundle      = "dev.sigstore.cosign/bundle"
	annotationTimestamp   = "dev.sigstore.cosign/rfc3161timestamp"

	// signPredicate is the predicate type of the in-toto statement that
	// cosign 3 signs for an image.
	signPredicate = "https://sigstore.dev/cosign/sign/v1"
	// simpleSigningType is the critical.type of a legacy payload.
	simpleSigningType = "cosign container image signature"
)

// Signature is one signature document found for a manifest: a Sigstore
// bundle, or one layer of cosign's legacy signature manifest — its payload
// and the annotations that carry the signature, the certificate, the Rekor
// entry and the timestamp.
type Signature struct {
	Bundle      json.RawMessage   `json:"bundle,omitempty"`
	Payload     []byte            `json:"payload,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ErrNoSignature is the error of Verify given no signatures.
var ErrNoSignature = errors.New("no Sigstore signature found for the manifest")

// Verify returns who signed manifest, the digest of an OCI manifest or
// index, with one of sigs: the certificate's subject and issuer, or the
// key's file name. Otherwise the error says why each signature failed.
func (p *Policy) Verify(manifest digest.Digest, sigs []Signature) (string, error) {
	if len(sigs) == 0 {
		return "", ErrNoSignature
	}
	if manifest.Algorithm() != digest.SHA256 || manifest.Validate() != nil {
		return "", fmt.Errorf("manifest digest %q is not sha256", manifest)
	}
	var why []string
	for i, s := range sigs {
		signer, err := p.verifyOne(manifest, s)
		if err == nil {
			return signer, nil
		}
		why = append(why, fmt.Sprintf("signature %d: %v", i+1, err))
	}
	return "", fmt.Errorf("no signature of %s by a trusted signer: %s", manifest, strings.Join(why, "; "))
}

func (p *Policy) verifyOne(manifest digest.Digest, s Signature) (string, error) {
	sum, _ := hex.DecodeString(manifest.Encoded())
	var (
		b        *bundle.Bundle
		artifact verify.ArtifactPolicyOption
		err      error
	)
	if s.Bundle != nil {
		b = &bundle.Bundle{}
		if err := b.UnmarshalJSON(s.Bundle); err != nil {
			return "", fmt.Errorf("bundle: %w", err)
		}
		if err := checkStatement(b); err != nil {
			return "", err
		}
		// For a DSSE envelope, sigstore-go checks that the statement's
		// subject is this digest; for a message signature, that it signed
		// the manifest's bytes.
		artifact = verify.WithArtifactDigest("sha256", sum)
	} else {
		if b, err = legacyBundle(s); err != nil {
			return "", fmt.Errorf("cosign signature: %w", err)
		}
		artifact = verify.WithArtifact(bytes.NewReader(s.Payload))
	}
	signer, err := p.verifyBundle(b, artifact)
	if err != nil {
		return "", err
	}
	if s.Bundle == nil {
		// The payload is what was signed; it must name this manifest.
		if err := checkPayload(s.Payload, manifest); err != nil {
			return "", err
		}
	}
	return signer, nil
}

// checkStatement refuses a DSSE envelope that is not cosign's image
// signature: an attestation of another kind (an SBOM, provenance) by the
// same signer says something else than "I publish this image".
func checkStatement(b *bundle.Bundle) error {
	env, err := b.Envelope()
	if err != nil || env == nil {
		return nil // a message signature
	}
	st, err := env.Statement()
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	if st.PredicateType != signPredicate {
		return fmt.Errorf("an attestation of predicate type %q, not cosign's image signature (%s)", st.PredicateType, signPredicate)
	}
	return nil
}

// verifyBundle verifies b under p: with a certificate, its chain to the
// root's Fulcio, a time for it from the transparency log or a timestamp
// authority, and one of p's identities; with a key, one of p's keys.
func (p *Policy) verifyBundle(b *bundle.Bundle, artifact verify.ArtifactPolicyOption) (string, error) {
	vc, err := b.VerificationContent()
	if err != nil {
		return "", err
	}
	entries, _ := b.TlogEntries()
	stamps, _ := b.Timestamps()
	var opts []verify.VerifierOption
	switch {
	case len(entries) > 0:
		opts = append(opts, verify.WithTransparencyLog(1), verify.WithObserverTimestamps(1))
	case len(stamps) > 0:
		opts = append(opts, verify.WithSignedTimestamps(1))
	case vc.PublicKey() != nil:
		// A key has no validity period: the signature needs no time.
		opts = append(opts, verify.WithNoObserverTimestamps())
	default:
		return "", errors.New("a certificate without a transparency log entry or a signed timestamp: nothing shows the signature was made while the certificate was valid")
	}
	if vc.PublicKey() != nil {
		if len(p.keys) == 0 {
			return "", errors.New("signed with a key, and the policy names no keys")
		}
		var why []string
		for _, k := range p.keys {
			material := root.TrustedMaterialCollection{p.root, keyMaterial(k)}
			v, err := verify.NewVerifier(material, opts...)
			if err != nil {
				return "", err
			}
			if _, err = v.Verify(b, verify.NewPolicy(artifact, verify.WithKey())); err == nil {
				return "key " + k.name, nil
			}
			why = append(why, fmt.Sprintf("key %s: %v", k.name, err))
		}
		return "", errors.New(strings.Join(why, "; "))
	}
	if len(p.identities) == 0 {
		return "", errors.New("signed with a certificate, and the policy names no identities")
	}
	if p.requireSCT {
		opts = append(opts, verify.WithSignedCertificateTimestamps(1))
	}
	v, err := verify.NewVerifier(p.root, opts...)
	if err != nil {
		return "", err
	}
	ids := make([]verify.PolicyOption, len(p.identities))
	for i, id := range p.identities {
		ids[i] = verify.WithCertificateIdentity(id)
	}
	res, err := v.Verify(b, verify.NewPolicy(artifact, ids...))
	if _, ok := errors.AsType[*verify.ErrNoMatchingCertificateIdentity](err); ok {
		// sigstore-go names only its last identity's mismatch; the
		// operator needs who signed and whom the policy accepts.
		if sum, serr := certificate.SummarizeCertificate(vc.Certificate()); serr == nil {
			return "", fmt.Errorf("signed by %s (issuer %s), whom none of the policy's identities accepts: %s",
				sum.SubjectAlternativeName, sum.Issuer, strings.Join(p.names, ", "))
		}
	}
	if err != nil {
		return "", err
	}
	c := res.Signature.Certificate
	return fmt.Sprintf("%s (issuer %s)", c.SubjectAlternativeName, c.Issuer), nil
}

// keyMaterial trusts k for whatever key hint a signature gives: a legacy
// signature gives none.
func keyMaterial(k publicKey) root.TrustedMaterial {
	key := root.NewExpiringKey(k.verifier, time.Time{}, time.Time{})
	return root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) { return key, nil })
}

// legacyBundle turns a layer of cosign's legacy signature manifest into the
// bundle that holds the same: a message signature of the payload, the
// certificate or the key it was made with, the Rekor entry with its signed
// entry timestamp, and the RFC 3161 timestamp.
func legacyBundle(s Signature) (*bundle.Bundle, error) {
	sig, err := base64.StdEncoding.DecodeString(s.Annotations[annotationSignature])
	if err != nil || len(sig) == 0 {
		return nil, errors.New("no signature annotation")
	}
	sum := sha256.Sum256(s.Payload)
	material := &protobundle.VerificationMaterial{
		Content: &protobundle.VerificationMaterial_PublicKey{PublicKey: &protocommon.PublicKeyIdentifier{}},
	}
	if c := s.Annotations[annotationCertificate]; c != "" {
		block, _ := pem.Decode([]byte(c))
		if block == nil {
			return nil, errors.New("the certificate annotation holds no PEM certificate")
		}
		material.Content = &protobundle.VerificationMaterial_X509CertificateChain{
			X509CertificateChain: &protocommon.X509CertificateChain{Certificates: []*protocommon.X509Certificate{{RawBytes: block.Bytes}}},
		}
	}
	if rb := s.Annotations[annotationBundle]; rb != "" {
		entry, err := rekorEntry(rb)
		if err != nil {
			return nil, fmt.Errorf("rekor bundle annotation: %w", err)
		}
		material.TlogEntries = []*protorekor.TransparencyLogEntry{entry}
	}
	if ts := s.Annotations[annotationTimestamp]; ts != "" {
		var t struct{ SignedRFC3161Timestamp []byte }
		if err := json.Unmarshal([]byte(ts), &t); err != nil {
			return nil, fmt.Errorf("timestamp annotation: %w", err)
		}
		material.TimestampVerificationData = &protobundle.TimestampVerificationData{
			Rfc3161Timestamps: []*protocommon.RFC3161SignedTimestamp{{SignedTimestamp: t.SignedRFC3161Timestamp}},
		}
	}
	return bundle.NewBundle(&protobundle.Bundle{
		MediaType:            "application/vnd.dev.sigstore.bundle+json;version=0.1",
		VerificationMaterial: material,
		Content: &protobundle.Bundle_MessageSignature{MessageSignature: &protocommon.MessageSignature{
			MessageDigest: &protocommon.HashOutput{Algorithm: protocommon.HashAlgorithm_SHA2_256, Digest: sum[:]},
			Signature:     sig,
		}},
	})
}

// rekorEntry reads cosign's Rekor bundle annotation: the entry's body,
// integrated time, index and log, and the log's signed entry timestamp.
func rekorEntry(annotation string) (*protorekor.TransparencyLogEntry, error) {
	var rb struct {
		SignedEntryTimestamp []byte
		Payload              struct {
			Body           []byte `json:"body"`
			IntegratedTime int64  `json:"integratedTime"`
			LogIndex       int64  `json:"logIndex"`
			LogID          string `json:"logID"`
		}
	}
	if err := json.Unmarshal([]byte(annotation), &rb); err != nil {
		return nil, err
	}
	logID, err := hex.DecodeString(rb.Payload.LogID)
	if err != nil {
		return nil, fmt.Errorf("logID: %w", err)
	}
	var kind struct{ Kind, APIVersion string }
	if err := json.Unmarshal(rb.Payload.Body, &kind); err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	return &protorekor.TransparencyLogEntry{
		LogIndex:          rb.Payload.LogIndex,
		LogId:             &protocommon.LogId{KeyId: logID},
		KindVersion:       &protorekor.KindVersion{Kind: kind.Kind, Version: kind.APIVersion},
		IntegratedTime:    rb.Payload.IntegratedTime,
		InclusionPromise:  &protorekor.InclusionPromise{SignedEntryTimestamp: rb.SignedEntryTimestamp},
		CanonicalizedBody: rb.Payload.Body,
	}, nil
}

// checkPayload checks that a verified simple-signing payload is cosign's
// signature of manifest.
func checkPayload(payload []byte, manifest digest.Digest) error {
	var p struct {
		Critical struct {
			Image struct {
				Digest string `json:"docker-manifest-digest"`
			} `json:"image"`
			Type string `json:"type"`
		} `json:"critical"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	if p.Critical.Type != simpleSigningType {
		return fmt.Errorf("payload of type %q, not %q", p.Critical.Type, simpleSigningType)
	}
	if p.Critical.Image.Digest != manifest.String() {
		return fmt.Errorf("a signature of %s, not of %s", p.Critical.Image.Digest, manifest)
	}
	return nil
}
