// Package trust decides whether a module file may load in locked-down mode:
// its SHA-256 must be pinned in a lock file and, when trusted keys are
// configured, the file must carry an Ed25519 signature from one of them.
// Everything is verified in-process with the standard library.
//
// # Lock file
//
// A lock file is what sha256sum prints: one line per module, 64 hex digits
// of the SHA-256 of the file, two spaces (or a space and "*", binary mode)
// and the file name.
//
//	# wasmcp.lock
//	8ed3f6ad685b959ead7022518e1af76cd816f8e8ec7ccdda1ed4018e8f2223f8  hello.wasm
//	f44e64e75f3948e9f73f8dfa94721c4ce8cbb4f265c4790c702b2d41cfbf2753  text.wasm
//
// so that an operator writes it with
//
//	cd plugins && sha256sum *.wasm > ../wasmcp.lock
//
// and checks a directory against it with sha256sum -c. Blank lines and lines
// starting with "#" are ignored. A module is allowed when a line names its
// file and its digest. Only the base name of a line's file counts, so the
// output of sha256sum plugins/*.wasm works as well; a name may appear on
// several lines to allow several versions during an upgrade. Lines that
// sha256sum escapes (a leading backslash, for names holding a backslash or
// a newline) are understood. LockLine writes one line.
//
// # Trusted keys
//
// A keys file lists the Ed25519 public keys whose signatures are accepted,
// one per line: the 32-byte key in standard base64 or in hex, optionally
// followed by whitespace and a label that errors and logs use. Blank lines
// and lines starting with "#" are ignored.
//
//	# wasmcp.keys
//	mcCsXW9xB7x4WCSTbz9gK6ggVxuMMGzJ2wGJP1EZsNc=  release-2026
//
// KeyLine writes a line. With OpenSSL, the line of a key made by
// openssl genpkey -algorithm ed25519 -out key.pem is
//
//	openssl pkey -in key.pem -pubout -outform DER | tail -c 32 | base64
//
// # Signatures
//
// The signature of NAME.wasm is the file NAME.wasm.sig beside it (SigPath).
// It holds a pure Ed25519 signature (RFC 8032) of the module's raw bytes,
// in standard base64 on a line of its own; several lines may hold several
// signatures, one of which must verify, so that a module can be signed by
// both the old and the new key while keys rotate. A file of exactly 64
// bytes is taken as one raw signature, as OpenSSL writes it:
//
//	openssl pkeyutl -sign -rawin -inkey key.pem -in NAME.wasm -out NAME.wasm.sig
//
// Sign writes the base64 form.
//
// The signature covers the module's bytes, not their SHA-256. Ed25519 hashes
// what it signs with SHA-512 itself, so signing the bytes is the standard
// use, needs no convention about how a digest is encoded, keeps the
// signature's security independent of SHA-256, and is what OpenSSL produces
// with -rawin. Verifying costs one SHA-512 pass over the module per
// signature and key tried, a millisecond or so per megabyte, small beside
// compiling it.
//
// # Signatures the file does not carry
//
// A Verifier's Attestor vouches for modules by signatures the host cannot
// see beside the file: wasmcp serve's is internal/oci's, which judges the
// modules it pulled by the Sigstore (cosign) signatures of their OCI
// manifests. It is a trusted signer beside the keys: a module it attests
// needs no signature file, and a module it requires a signature of (one
// served by reference under a Sigstore policy) is refused unless it or a
// trusted key signed it. The lock holds for every module either way.
//
// # Where the check belongs
//
// Verifier.ReadModule reads a module and returns its bytes only when the
// policy allows them. A host must compile exactly the bytes that were
// checked, never read the file a second time, or a file replaced between
// the check and the compile would load unchecked.
package trust
