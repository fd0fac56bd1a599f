package oci_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/wasmcp/wasmcp/internal/oci"
	"github.com/wasmcp/wasmcp/internal/ocitest"
)

// rstimeWasm is hyper-mcp's published rstime plugin.
func rstimeWasm(t testing.TB) []byte {
	t.Helper()
	wasm, err := os.ReadFile(filepath.Join("..", "..", "host", "testdata", "thirdparty", "rstime.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	return wasm
}

// component is the smallest WebAssembly component: the magic and the
// component model's version and layer.
var component = []byte("\x00asm\x0d\x00\x01\x00")

func ociConfig() ocitest.Blob {
	return ocitest.NewBlob(ocispec.MediaTypeImageConfig, []byte(`{"architecture":"amd64","os":"linux","rootfs":{"type":"layers"}}`))
}

func linux(desc ocispec.Descriptor, arch string) ocispec.Descriptor {
	desc.Platform = &ocispec.Platform{OS: "linux", Architecture: arch}
	return desc
}

// TestPullImages pulls a module from images as peers publish them, from a
// real registry: hyper-mcp's Docker image, an OCI image with other files
// around the module, indexes by platform.
func TestPullImages(t *testing.T) {
	reg := ocitest.Start(t, ocitest.Options{})
	ctx := context.Background()
	wasm, echo := rstimeWasm(t), echoWasm(t)
	push := func(t *testing.T, tag, mediaType string, config ocitest.Blob, layers ...ocitest.Blob) ocitest.Blob {
		t.Helper()
		m, err := ocitest.PushImage(ctx, reg.Ref("team/rstime", tag), mediaType, config, layers...)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	dockerConfig, dockerLayer := ocitest.DockerImage(wasm)
	docker := push(t, "docker", ocitest.DockerManifest, dockerConfig, dockerLayer)
	push(t, "oci", ocispec.MediaTypeImageManifest, ociConfig(),
		ocitest.NewBlob(ocispec.MediaTypeImageLayer, ocitest.Tar([]ocitest.File{
			{Name: "etc/passwd", Data: []byte("root:x:0:0::/:/bin/sh\n")},
			{Name: "bin/sh", Link: "/bin/busybox"},
			{Name: "./plugin.wasm", Data: wasm},
			{Name: "lib/other.wasm", Data: echo},
		}, false)))
	push(t, "layers", ocispec.MediaTypeImageManifest, ociConfig(),
		ocitest.Layer(ocitest.File{Name: "README", Data: []byte("hi")}),
		ocitest.Layer(ocitest.File{Name: "/app/rstime.wasm", Data: wasm}))
	// Buildx's push: the image and its provenance attestation in an index.
	attestation := push(t, "attestation", ocispec.MediaTypeImageManifest, ociConfig(), ocitest.Layer(ocitest.File{Name: "x.json", Data: []byte("{}")}))
	att := attestation.Desc
	att.Platform = &ocispec.Platform{OS: "unknown", Architecture: "unknown"}
	att.Annotations = map[string]string{"vnd.docker.reference.type": "attestation-manifest"}
	if _, err := ocitest.PushIndex(ctx, reg.Ref("team/rstime", "buildx"), linux(docker.Desc, "amd64"), att); err != nil {
		t.Fatal(err)
	}
	echoImage := push(t, "echo", ocispec.MediaTypeImageManifest, ociConfig(), ocitest.Layer(ocitest.File{Name: "plugin.wasm", Data: echo}))
	wasip1 := docker.Desc
	wasip1.Platform = &ocispec.Platform{OS: "wasip1", Architecture: "wasm"}
	if _, err := ocitest.PushIndex(ctx, reg.Ref("team/rstime", "multi"), linux(echoImage.Desc, "amd64"), wasip1, linux(echoImage.Desc, "arm64")); err != nil {
		t.Fatal(err)
	}

	// hyper-mcp's release workflows: ORAS, the module as its one layer.
	for tag, mediaType := range map[string]string{"oras": oci.LayerMediaType, "orasplain": ocispec.MediaTypeImageLayer} {
		if _, err := ocitest.PushFile(ctx, reg.Ref("team/rstime", tag), ocitest.HyperMCPArtifactType, "plugin.wasm", mediaType, wasm); err != nil {
			t.Fatal(err)
		}
	}

	c := oci.NewClient(oci.Options{})
	for _, tc := range []struct {
		tag   string
		image digest.Digest
	}{
		{"oras", ""},
		{"orasplain", ""},
		{"docker", docker.Desc.Digest},
		{"oci", ""},
		{"layers", ""},
		{"buildx", docker.Desc.Digest},
		{"multi", docker.Desc.Digest},
	} {
		t.Run(tc.tag, func(t *testing.T) {
			ref, _ := oci.ParseReference(reg.Ref("team/rstime", tc.tag), false)
			a, err := c.Pull(ctx, ref)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Wasm, wasm) || a.Digest != digest.FromBytes(wasm) || a.Layout != oci.LayoutImage {
				t.Errorf("pulled %d bytes (%s), layout %s; want rstime's %d", len(a.Wasm), a.Digest, a.Layout, len(wasm))
			}
			if tc.image != "" && a.Image.Digest != tc.image {
				t.Errorf("read manifest %s, want %s", a.Image.Digest, tc.image)
			}
			if desc, err := c.Resolve(ctx, ref); err != nil || a.Manifest.Digest != desc.Digest {
				t.Errorf("manifest %s, the reference resolves to %s (%v)", a.Manifest.Digest, desc.Digest, err)
			}
		})
	}
}

// tarHeaderOnly is a tar+gzip layer whose one entry claims size bytes and
// holds none.
func tarHeaderOnly(name string, size int64) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: size, Typeflag: tar.TypeReg})
	tw.Flush()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(buf.Bytes())
	zw.Close()
	return z.Bytes()
}

// bomb is a tar+gzip layer of a few kilobytes that holds n zero bytes.
func bomb(n int) []byte {
	return ocitest.Tar([]ocitest.File{{Name: "zeros", Data: make([]byte, n)}}, true)
}

// TestPullImageRefuses gives the client the images a hostile or broken
// registry could: each is one error naming the reference and saying why,
// with bounded memory.
func TestPullImageRefuses(t *testing.T) {
	wasm := echoWasm(t)
	f := newFakeRegistry(t)
	layer := func(files ...ocitest.File) blob {
		return blob{desc: ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayerGzip}, data: ocitest.Tar(files, true)}
	}
	config := blob{desc: ocispec.Descriptor{MediaType: ocispec.MediaTypeImageConfig}, data: []byte(`{}`)}
	f.put(t, "traversal", ocispec.MediaTypeImageManifest, config, layer(ocitest.File{Name: "../../../escape.wasm", Data: wasm}))
	f.put(t, "symlink", ocispec.MediaTypeImageManifest, config, layer(ocitest.File{Name: "plugin.wasm", Link: "/etc/passwd"}))
	f.put(t, "several", ocispec.MediaTypeImageManifest, config, layer(ocitest.File{Name: "a.wasm", Data: wasm}, ocitest.File{Name: "lib/b.wasm", Data: wasm}))
	f.put(t, "none", ocispec.MediaTypeImageManifest, config, layer(ocitest.File{Name: "README", Data: []byte("hi")}))
	f.put(t, "twice", ocispec.MediaTypeImageManifest, config, layer(ocitest.File{Name: "plugin.wasm", Data: wasm}), layer(ocitest.File{Name: "/plugin.wasm", Data: wasm}))
	f.put(t, "whiteout", ocispec.MediaTypeImageManifest, config, layer(ocitest.File{Name: "plugin.wasm", Data: wasm}), layer(ocitest.File{Name: ".wh.plugin.wasm"}))
	f.put(t, "bomb", ocispec.MediaTypeImageManifest, config, blob{desc: ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayerGzip}, data: bomb(64 << 20)})
	f.put(t, "bigentry", ocispec.MediaTypeImageManifest, config, blob{desc: ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayerGzip}, data: tarHeaderOnly("plugin.wasm", 10<<30)})
	f.put(t, "claims10gb", ocispec.MediaTypeImageManifest, config, blob{desc: ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayerGzip, Size: 10 << 30}, data: []byte("x")})
	f.put(t, "mismatch", ocispec.MediaTypeImageManifest, config,
		blob{desc: ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayerGzip, Digest: digest.FromString("other")}, data: ocitest.Tar([]ocitest.File{{Name: "plugin.wasm", Data: wasm}}, true)})
	f.put(t, "zstd", ocispec.MediaTypeImageManifest, config, blob{desc: ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayerZstd}, data: []byte("zstd")})
	f.put(t, "component", ocispec.MediaTypeImageManifest, config, layer(ocitest.File{Name: "plugin.wasm", Data: component}))
	f.put(t, "componentartifact", ocispec.MediaTypeImageManifest, wasmConfig(), wasmLayer(component))
	f.put(t, "notwasm", ocispec.MediaTypeImageManifest, config, blob{desc: ocispec.Descriptor{MediaType: oci.LayerMediaType}, data: []byte("plugin")})
	f.put(t, "bigwasm", ocispec.MediaTypeImageManifest, config, blob{desc: ocispec.Descriptor{MediaType: oci.LayerMediaType}, data: append([]byte("\x00asm\x01\x00\x00\x00"), make([]byte, 1<<20)...)})
	f.put(t, "rawtwice", ocispec.MediaTypeImageManifest, config, layer(ocitest.File{Name: "plugin.wasm", Data: wasm}), blob{desc: ocispec.Descriptor{MediaType: oci.LayerMediaType}, data: wasm})
	f.put(t, "rawtraversal", ocispec.MediaTypeImageManifest, config,
		blob{desc: ocispec.Descriptor{MediaType: oci.LayerMediaType, Annotations: map[string]string{ocispec.AnnotationTitle: "../x.wasm"}}, data: wasm})
	f.put(t, "amd64", ocispec.MediaTypeImageManifest, config, layer(ocitest.File{Name: "plugin.wasm", Data: wasm}))
	amd64 := f.manifests["amd64"]
	desc := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromBytes(amd64.data), Size: int64(len(amd64.data))}
	f.putIndex(t, "platforms", linux(desc, "amd64"), linux(desc, "arm64"))

	c := oci.NewClient(oci.Options{MaxModuleSize: 1 << 20})
	for _, tc := range []struct{ tag, want string }{
		{"traversal", "path traversal"},
		{"symlink", `"plugin.wasm" is a link to "/etc/passwd"`},
		{"several", "2 .wasm files (/a.wasm, /lib/b.wasm)"},
		{"none", "holds no .wasm file"},
		{"twice", "holds /plugin.wasm twice"},
		{"whiteout", "deletes plugin.wasm of an earlier layer"},
		{"bomb", "once uncompressed, over twice the 1048576-byte cap"},
		{"bigentry", "of 10737418240 bytes, over the 1048576-byte cap"},
		{"claims10gb", "over twice the 1048576-byte cap"},
		{"mismatch", "mismatched digest"},
		{"zstd", "application/vnd.oci.image.layer.v1.tar+zstd"},
		{"component", "a WebAssembly component, not a core module: wasmcp runs core WebAssembly modules and Extism plugins"},
		{"componentartifact", "a WebAssembly component"},
		{"platforms", "2 images (linux/amd64, linux/arm64) and none for wasip1/wasm"},
		{"notwasm", "a layer of media type application/wasm that is not a WebAssembly binary"},
		{"bigwasm", "/plugin.wasm of 1048584 bytes, over the 1048576-byte cap"},
		{"rawtwice", "holds /plugin.wasm twice"},
		{"rawtraversal", "path traversal"},
	} {
		t.Run(tc.tag, func(t *testing.T) {
			ref, _ := oci.ParseReference(f.host()+"/team/echo:"+tc.tag, false)
			_, err := c.Pull(context.Background(), ref)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), ref.String()) {
				t.Fatalf("got %v, want an error naming %s saying %q", err, ref, tc.want)
			}
		})
	}
	ref, _ := oci.ParseReference(f.host()+"/team/echo:amd64", false)
	if a, err := c.Pull(context.Background(), ref); err != nil || !bytes.Equal(a.Wasm, wasm) {
		t.Fatalf("amd64: %v", err)
	}
}

// A module read from an image is written to the cache and nowhere else,
// whatever its tar entries name; one that names a path out of the image is
// refused.
func TestFetchImageWritesOnlyTheCache(t *testing.T) {
	root := t.TempDir()
	cacheDir := filepath.Join(root, "a", "b", "cache")
	cache, err := oci.OpenCache(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	wasm := echoWasm(t)
	f := newFakeRegistry(t)
	config := blob{desc: ocispec.Descriptor{MediaType: ocispec.MediaTypeImageConfig}, data: []byte(`{}`)}
	for _, tc := range []struct{ tag, name string }{{"escape", "../../../escape.wasm"}, {"ok", "/plugin.wasm"}} {
		f.put(t, tc.tag, ocispec.MediaTypeImageManifest, config,
			blob{desc: ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayerGzip}, data: ocitest.Tar([]ocitest.File{{Name: tc.name, Data: wasm}}, true)})
	}
	fetcher := &oci.Fetcher{Client: oci.NewClient(oci.Options{}), Cache: cache}
	if _, err := fetcher.Fetch(context.Background(), f.host()+"/team/echo:escape"); err == nil || !strings.Contains(err.Error(), "path traversal") {
		t.Fatalf("escape: %v", err)
	}
	got, err := fetcher.Fetch(context.Background(), f.host()+"/team/echo:ok")
	if err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !strings.HasPrefix(p, cacheDir+string(filepath.Separator)) {
			t.Errorf("%s written outside the cache", p)
		}
		return nil
	})
	if filepath.Base(got.Path) != "echo.wasm" || !strings.HasPrefix(got.Path, cacheDir) {
		t.Errorf("cached at %s", got.Path)
	}
}
