package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
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
	doc:     helpText("lock"),
	setup: func(fs *flag.FlagSet, std streams) func(context.Context, []string) error {
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
				_, err := fmt.Fprint(std.out, b.String())
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
	doc:     helpText("keygen"),
	setup: func(fs *flag.FlagSet, std streams) func(context.Context, []string) error {
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
			_, err = fmt.Fprint(std.out, trust.KeyLine(pub, label))
			return err
		}
	},
}

var signCmd = command{
	name:    "sign",
	summary: "-key KEYFILE FILE.wasm|REF...",
	doc:     helpText("sign"),
	setup: func(fs *flag.FlagSet, std streams) func(context.Context, []string) error {
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
					if err := signReference(ctx, std.err, path, priv, &reg); err != nil {
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
				fmt.Fprintf(std.err, "signed %s -> %s\n", path, filepath.Base(trust.SigPath(path)))
			}
			return nil
		}
	},
}

// signReference attaches the signature of ref's module as a referrer.
func signReference(ctx context.Context, w io.Writer, ref string, priv ed25519.PrivateKey, reg *registryFlags) error {
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
	fmt.Fprintf(w, "signed %s (%s) -> referrer %s\n", ref, a.Manifest.Digest, desc.Digest)
	return nil
}
