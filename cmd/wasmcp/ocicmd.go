package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/oci"
)

// registryFlags say how registries are spoken to, for every command that
// takes a reference.
type registryFlags struct {
	plainHTTP bool
	timeout   time.Duration
	maxSize   size
}

func (r *registryFlags) register(fs *flag.FlagSet) {
	r.timeout = oci.DefaultTimeout
	r.maxSize = oci.DefaultMaxModuleSize
	fs.BoolVar(&r.plainHTTP, "plain-http", false, "speak HTTP, not HTTPS, to registries (loopback registries always get HTTP)")
	fs.DurationVar(&r.timeout, "registry-timeout", r.timeout, "deadline of one registry operation (a resolve, a pull, a push)")
	fs.Var(&r.maxSize, "max-module-size", "largest module pulled from a registry, a `size`")
}

// client returns a registry client with Docker's credentials.
func (r *registryFlags) client() (*oci.Client, error) {
	if r.timeout <= 0 {
		return nil, usageErrorf("-registry-timeout must be positive, got %s", r.timeout)
	}
	if r.maxSize == 0 {
		return nil, usageErrorf("-max-module-size must be positive")
	}
	cred, err := oci.DockerCredentials()
	if err != nil {
		return nil, err
	}
	return oci.NewClient(oci.Options{PlainHTTP: r.plainHTTP, Timeout: r.timeout, MaxModuleSize: int64(r.maxSize), Credential: cred}), nil
}

// fetcher returns a Fetcher into the module cache: oci/ under the cache
// directory. Without one (-cache-dir ""), a temporary directory that
// cleanup removes. It fetches the signatures that pol requires.
func (r *registryFlags) fetcher(l *limitFlags, pol *policyFlags) (f *oci.Fetcher, cleanup func(), err error) {
	c, err := r.client()
	if err != nil {
		return nil, nil, err
	}
	dir, cleanup := l.cacheDir, func() {}
	if !l.cacheDirSet {
		base, err := os.UserCacheDir()
		if err == nil {
			dir = filepath.Join(base, "wasmcp")
		}
	}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "wasmcp-oci-")
		if err != nil {
			return nil, nil, err
		}
		dir, cleanup = tmp, func() { os.RemoveAll(tmp) }
	}
	cache, err := oci.OpenCache(filepath.Join(dir, "oci"))
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return &oci.Fetcher{Client: c, Cache: cache, Signatures: pol.keys != "", Sigstore: pol.policy}, cleanup, nil
}

// isReference tells a module reference from a file name: an argument that
// names no file, does not end in .wasm, and has a registry host before a
// repository.
func isReference(arg string) bool {
	if _, err := os.Stat(arg); err == nil || strings.HasSuffix(arg, ".wasm") {
		return false
	}
	_, err := oci.ParseReference(arg, false)
	return err == nil
}

// moduleFile returns the file of the module arg names: arg itself, or,
// for a reference, its cached copy, fetched first if need be.
func moduleFile(ctx context.Context, arg string, reg *registryFlags, l *limitFlags, pol *policyFlags, logger *slog.Logger) (path string, cleanup func(), err error) {
	if !isReference(arg) {
		return arg, func() {}, nil
	}
	f, cleanup, err := reg.fetcher(l, pol)
	if err != nil {
		return "", nil, err
	}
	got, err := f.Fetch(ctx, arg)
	if err != nil {
		cleanup()
		return "", nil, err
	}
	if got.Stale != nil {
		logger.Warn("using the cached copy: the registry could not be asked", "ref", arg, "manifest", got.Manifest, "err", got.Stale)
	}
	return got.Path, cleanup, nil
}

var pushCmd = command{
	name:    "push",
	summary: "[flags] FILE.wasm REF",
	doc:     helpText("push"),
	setup: func(fs *flag.FlagSet, std streams) func(context.Context, []string) error {
		var (
			reg    registryFlags
			source string
		)
		reg.register(fs)
		fs.StringVar(&source, "source", "", "`URL` of the module's source, for the org.opencontainers.image.source annotation")
		return func(ctx context.Context, args []string) error {
			if len(args) != 2 {
				return usageErrorf("want FILE.wasm REF, got %d arguments", len(args))
			}
			file, ref := args[0], args[1]
			c, err := reg.client()
			if err != nil {
				return err
			}
			r, err := host.Inspect(ctx, host.NewConfig().WithLogger(slog.New(slog.DiscardHandler)), file)
			if err != nil {
				return err
			}
			if !r.Loadable {
				return fmt.Errorf("push %s: the module does not load: %s", file, r.Problem)
			}
			wasm, err := os.ReadFile(file)
			if err != nil {
				return err
			}
			names := make([]string, len(r.Tools))
			for i, t := range r.Tools {
				names[i] = t.Name
			}
			ann := map[string]string{
				"org.opencontainers.image.title": filepath.Base(file),
				oci.AnnotationTools:              strings.Join(names, ","),
				oci.AnnotationABI:                strconv.FormatUint(uint64(r.ABIVersion), 10),
			}
			if source != "" {
				ann["org.opencontainers.image.source"] = source
			}
			desc, err := c.Push(ctx, ref, wasm, ann)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(std.out, desc.Digest)
			return err
		}
	},
}

var pullCmd = command{
	name:    "pull",
	summary: "[flags] REF -o FILE",
	doc:     helpText("pull"),
	setup: func(fs *flag.FlagSet, std streams) func(context.Context, []string) error {
		var (
			reg registryFlags
			out string
		)
		reg.register(fs)
		fs.StringVar(&out, "o", "", "`FILE` to write the module to (required)")
		return func(ctx context.Context, args []string) error {
			if len(args) != 1 || out == "" {
				return usageErrorf("want REF and -o FILE")
			}
			ref, err := oci.ParseReference(args[0], false)
			if err != nil {
				return err
			}
			c, err := reg.client()
			if err != nil {
				return err
			}
			a, err := c.Pull(ctx, ref)
			if err != nil {
				return err
			}
			if err := os.WriteFile(out, a.Wasm, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(std.err, "pulled %s (%s) -> %s\n", ref, a.Manifest.Digest, out)
			return nil
		}
	},
}
