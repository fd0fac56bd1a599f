package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/trust"
	"github.com/wasmcp/wasmcp/internal/oci"
)

var lockCmd = command{
	name:    "lock",
	summary: "[-o FILE] DIR|REF...",
	doc: `Print a lock file pinning the SHA-256 of every *.wasm module in each DIR, in
sha256sum's format, for "serve -lock FILE". With -o, write it to FILE instead.

A REF (host[:port]/repository:tag or @sha256:DIGEST) pins the module it names
now, by the digest of its bytes, under its plugin name (the repository's last
component), after a comment line with the reference and its manifest digest:
a tag moved later to another module is refused until it is locked again.`,
	setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
		var (
			out string
			reg registryFlags
		)
		fs.StringVar(&out, "o", "", "write the lock file to `FILE` instead of stdout")
		reg.register(fs)
		return func(ctx context.Context, args []string) error {
			if len(args) == 0 {
				return usageErrorf("want at least one DIR or REF")
			}
			var b strings.Builder
			for _, arg := range args {
				if err := lockLines(ctx, &b, arg, &reg); err != nil {
					return err
				}
			}
			if out == "" {
				_, err := fmt.Fprint(stdout, b.String())
				return err
			}
			return os.WriteFile(out, []byte(b.String()), 0o644)
		}
	},
}

// lockLines writes the lock lines of arg, a directory or a reference.
func lockLines(ctx context.Context, b *strings.Builder, arg string, reg *registryFlags) error {
	if _, err := os.Stat(arg); err != nil && isReference(arg) {
		a, err := pullReference(ctx, arg, reg)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "# %s %s\n", a.Ref, a.Manifest.Digest)
		b.WriteString(trust.LockLine(a.Ref.Name()+".wasm", a.Wasm))
		return nil
	}
	paths, err := host.PluginFiles(arg)
	if err != nil {
		return err
	}
	for _, path := range paths {
		wasm, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b.WriteString(trust.LockLine(path, wasm))
	}
	return nil
}

// pullReference pulls the module ref names.
func pullReference(ctx context.Context, ref string, reg *registryFlags) (*oci.Artifact, error) {
	r, err := oci.ParseReference(ref, false)
	if err != nil {
		return nil, err
	}
	c, err := reg.client()
	if err != nil {
		return nil, err
	}
	return c.Pull(ctx, r)
}

var keygenCmd = command{
	name:    "keygen",
	summary: "-o KEYFILE [-label LABEL]",
	doc: `Make an Ed25519 key pair for signing modules. The private key is written to
KEYFILE (PEM, PKCS #8, mode 0600; OpenSSL reads it); the line of the public key
for a -trusted-keys file is printed on stdout.`,
	setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
		var out, label string
		fs.StringVar(&out, "o", "", "private key `FILE` to create (required; never overwritten)")
		fs.StringVar(&label, "label", "", "`LABEL` of the public key line, used in logs")
		return func(_ context.Context, args []string) error {
			if len(args) != 0 || out == "" {
				return usageErrorf("want -o KEYFILE and no arguments")
			}
			pub, priv, err := ed25519.GenerateKey(rand.Reader)
			if err != nil {
				return err
			}
			pem, err := trust.MarshalPrivateKey(priv)
			if err != nil {
				return err
			}
			f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				return err
			}
			if _, err := f.Write(pem); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
			_, err = fmt.Fprint(stdout, trust.KeyLine(pub, label))
			return err
		}
	},
}

var signCmd = command{
	name:    "sign",
	summary: "-key KEYFILE FILE.wasm|REF...",
	doc: `Sign modules with the Ed25519 private key in KEYFILE (as "wasmcp keygen" or
openssl genpkey -algorithm ed25519 writes it): each FILE.wasm gets FILE.wasm.sig
beside it, which "serve -trusted-keys" verifies.

A REF (host[:port]/repository:tag or @sha256:DIGEST) is signed in its
registry: the signature of the module's bytes is attached to its manifest as
an OCI referrer (artifact type application/vnd.wasmcp.signature.v1; the
referrers API, or the tag schema where the registry lacks it), and
"serve -trusted-keys" fetches it by the manifest's digest.`,
	setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
		var (
			keyFile string
			reg     registryFlags
		)
		fs.StringVar(&keyFile, "key", "", "private key `FILE` (required)")
		reg.register(fs)
		return func(ctx context.Context, args []string) error {
			if keyFile == "" || len(args) == 0 {
				return usageErrorf("want -key KEYFILE and at least one FILE.wasm")
			}
			data, err := os.ReadFile(keyFile)
			if err != nil {
				return err
			}
			priv, err := trust.ParsePrivateKey(data)
			if err != nil {
				return fmt.Errorf("%s: %w", keyFile, err)
			}
			for _, path := range args {
				if _, err := os.Stat(path); err != nil && isReference(path) {
					if err := signReference(ctx, path, priv, &reg); err != nil {
						return err
					}
					continue
				}
				wasm, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				if err := os.WriteFile(trust.SigPath(path), trust.Sign(priv, wasm), 0o644); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "signed %s -> %s\n", path, filepath.Base(trust.SigPath(path)))
			}
			return nil
		}
	},
}

// signReference attaches the signature of ref's module as a referrer.
func signReference(ctx context.Context, ref string, priv ed25519.PrivateKey, reg *registryFlags) error {
	a, err := pullReference(ctx, ref, reg)
	if err != nil {
		return err
	}
	c, err := reg.client()
	if err != nil {
		return err
	}
	desc, err := c.Attach(ctx, a, trust.Sign(priv, a.Wasm))
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "signed %s (%s) -> referrer %s\n", ref, a.Manifest.Digest, desc.Digest)
	return nil
}
