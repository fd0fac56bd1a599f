package oci_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/internal/oci"
	"github.com/wasmcp/wasmcp/internal/ocitest"
)

func TestFetcher(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{})
	ctx := context.Background()
	c := oci.NewClient(oci.Options{})
	wasm := echoWasm(t)
	ref := reg.Ref("team/echo", "v1")
	desc, err := c.Push(ctx, ref, wasm, nil)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := oci.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &oci.Fetcher{Client: c, Cache: cache}
	got, err := f.Fetch(ctx, ref)
	if err != nil || got.Stale != nil {
		t.Fatal(err, got.Stale)
	}
	if got.Name != "echo" || filepath.Base(got.Path) != "echo.wasm" || got.Manifest != desc.Digest {
		t.Errorf("fetched %+v", got)
	}
	if data, _ := os.ReadFile(got.Path); !bytes.Equal(data, wasm) {
		t.Error("cached file differs from the module pushed")
	}
	byDigest := reg.Ref("team/echo", desc.Digest.String())
	if got, err := f.Fetch(ctx, byDigest); err != nil || got.Path != f.Cache.Path(got.Module) {
		t.Fatal(err)
	}

	// Stopped: the tag and the digest are served from the cache.
	reg.Stop()
	stale, err := f.Fetch(ctx, ref)
	if err != nil || stale.Stale == nil || stale.Path != got.Path {
		t.Fatalf("registry down: %+v, %v", stale, err)
	}
	if fresh, err := f.Fetch(ctx, byDigest); err != nil || fresh.Stale != nil {
		t.Fatalf("by digest, registry down: %+v, %v", fresh, err)
	}
	if _, err := f.Fetch(ctx, reg.Ref("team/other", "v1")); err == nil || !strings.Contains(err.Error(), "team/other") {
		t.Fatalf("never fetched: %v", err)
	}

	// A cached file that no longer matches its digest is not served.
	if err := os.WriteFile(got.Path, []byte("\x00asm tampered"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Fetch(ctx, ref); err == nil {
		t.Fatal("tampered cache served")
	}
	if _, err := f.Fetch(ctx, byDigest); err == nil {
		t.Fatal("tampered cache served by digest")
	}
}

// The same module pushed to two repositories is served under each one's
// name.
func TestFetcherNamesByRepository(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{})
	ctx := context.Background()
	c := oci.NewClient(oci.Options{})
	cache, err := oci.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &oci.Fetcher{Client: c, Cache: cache}
	for _, name := range []string{"echo", "echo2"} {
		t.Run(name, func(t *testing.T) {
			ref := reg.Ref("team/"+name, "v1")
			if _, err := c.Push(ctx, ref, echoWasm(t), nil); err != nil {
				t.Fatal(err)
			}
			got, err := f.Fetch(ctx, ref)
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != name || filepath.Base(got.Path) != name+".wasm" {
				t.Errorf("%s: fetched as %s at %s", ref, got.Name, got.Path)
			}
		})
	}
}
