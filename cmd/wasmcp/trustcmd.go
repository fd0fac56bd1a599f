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
)

var lockCmd = command{
	name:    "lock",
	summary: "[-o FILE] DIR",
	doc: `Print a lock file pinning the SHA-256 of every *.wasm module in DIR, in
sha256sum's format, for "serve -lock FILE". With -o, write it to FILE instead.`,
	setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
		var out string
		fs.StringVar(&out, "o", "", "write the lock file to `FILE` instead of stdout")
		return func(_ context.Context, args []string) error {
			if len(args) != 1 {
				return usageErrorf("want one DIR, got %d arguments", len(args))
			}
			paths, err := host.PluginFiles(args[0])
			if err != nil {
				return err
			}
			var b strings.Builder
			for _, path := range paths {
				wasm, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				b.WriteString(trust.LockLine(path, wasm))
			}
			if out == "" {
				_, err = fmt.Fprint(stdout, b.String())
				return err
			}
			return os.WriteFile(out, []byte(b.String()), 0o644)
		}
	},
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
	summary: "-key KEYFILE FILE.wasm...",
	doc: `Sign modules with the Ed25519 private key in KEYFILE (as "wasmcp keygen" or
openssl genpkey -algorithm ed25519 writes it): each FILE.wasm gets FILE.wasm.sig
beside it, which "serve -trusted-keys" verifies.`,
	setup: func(fs *flag.FlagSet) func(context.Context, []string) error {
		var keyFile string
		fs.StringVar(&keyFile, "key", "", "private key `FILE` (required)")
		return func(_ context.Context, args []string) error {
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
