// Package sigstore verifies cosign's signatures of OCI manifests in
// process, with sigstore-go (github.com/sigstore/sigstore-go), and reads
// the operator's policy of who may sign.
//
// # Policy file
//
//	{
//	  "identities": [
//	    {"issuer": "https://token.actions.githubusercontent.com",
//	     "subject": "https://github.com/tuananh/hyper-mcp/.github/workflows/nightly.yml@refs/heads/main"},
//	    {"issuer": "https://accounts.google.com", "subjectRegexp": ".*@example\\.com"}
//	  ],
//	  "keys": ["cosign.pub"],
//	  "trustedRoot": "trusted_root.json"
//	}
//
// An identity is a keyless signer: the OIDC issuer and the subject (an
// e-mail address or a workflow URL) of the Fulcio certificate a signature
// was made with, each given exactly or as a regular expression, and both
// required — a policy never admits any signer. A regular expression must
// match the whole value (it is anchored, unlike cosign's), and one that
// matches the empty string is refused. Keys are PEM public keys, as "cosign
// generate-key-pair" writes cosign.pub. A signature by any identity or key
// is enough. trustedRoot replaces the Sigstore public-good trusted root
// that the binary embeds (trusted_root.json, the target of that name in
// Sigstore's TUF repository, SHA-256 6494e21e…bc0b66): a private Sigstore's,
// in the trusted_root.json format. Relative paths are relative to the
// file. Nothing is fetched at run time.
//
// # What is verified
//
// Signatures are found by internal/oci: Sigstore bundles among the
// manifest's referrers (cosign's new format, the default of cosign 3) and
// the layers of cosign's legacy signature manifest, tag sha256-HEX.sig.
// Each is judged by the digest of the manifest (or index) the reference
// resolved to, which is what cosign signs. A bundle's DSSE envelope must
// hold an in-toto statement of cosign's image-signature predicate whose
// subject is that digest; a legacy payload must name it. With a
// certificate: the chain to the root's Fulcio authorities, its embedded
// certificate-transparency timestamp when the root names CT logs (the
// public-good one does), a time within the certificate's validity from
// the Rekor entry (its inclusion proof or signed entry timestamp) or from
// an RFC 3161 timestamp of a trusted authority, the signature, and one of
// the identities. A certificate with neither log entry nor timestamp is
// refused: nothing shows it was valid when it signed. With a key: the
// signature by one of the keys, and the Rekor entry or timestamp when
// there is one.
package sigstore
