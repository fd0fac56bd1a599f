package oci_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// fakeRegistry serves fixed manifests and blobs, to give a client what a
// real registry would refuse to store.
type fakeRegistry struct {
	*httptest.Server
	mu        sync.Mutex
	manifests map[string]fakeManifest // by tag and by digest
	blobs     map[digest.Digest][]byte
	// stall, when set, holds every request until it is closed.
	stall chan struct{}
	// before, when set, sees every request first, and answers those it
	// returns true for.
	before func(w http.ResponseWriter, r *http.Request) bool
}

type fakeManifest struct {
	mediaType string
	data      []byte
}

func newFakeRegistry(t *testing.T) *fakeRegistry {
	f := &fakeRegistry{manifests: map[string]fakeManifest{}, blobs: map[digest.Digest][]byte{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		f.mu.Lock()
		if f.stall != nil {
			close(f.stall)
			f.stall = nil
		}
		f.mu.Unlock()
		f.Close()
	})
	return f
}

// setBefore sets f.before.
func (f *fakeRegistry) setBefore(before func(w http.ResponseWriter, r *http.Request) bool) {
	f.mu.Lock()
	f.before = before
	f.mu.Unlock()
}

func (f *fakeRegistry) host() string { return strings.TrimPrefix(f.URL, "http://") }

func (f *fakeRegistry) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	stall, before := f.stall, f.before
	f.mu.Unlock()
	if before != nil && before(w, r) {
		return
	}
	if stall != nil {
		select {
		case <-stall:
		case <-r.Context().Done():
		}
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	path := r.URL.Path
	switch {
	case path == "/v2/":
		w.WriteHeader(http.StatusOK)
	case strings.Contains(path, "/manifests/"):
		m, ok := f.manifests[path[strings.LastIndex(path, "/")+1:]]
		if !ok {
			http.Error(w, `{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", m.mediaType)
		w.Header().Set("Docker-Content-Digest", digest.FromBytes(m.data).String())
		w.Header().Set("Content-Length", itoa(len(m.data)))
		if r.Method != http.MethodHead {
			w.Write(m.data)
		}
	case strings.Contains(path, "/blobs/"):
		b, ok := f.blobs[digest.Digest(path[strings.LastIndex(path, "/")+1:])]
		if !ok {
			http.Error(w, `{"errors":[{"code":"BLOB_UNKNOWN","message":"blob unknown"}]}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Length", itoa(len(b)))
		w.Write(b)
	default:
		http.NotFound(w, r)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// put stores a manifest of media type mediaType at tag, with the config and
// layers given (data stored under their descriptors' digests unless the
// descriptor's digest is set already).
func (f *fakeRegistry) put(t *testing.T, tag, mediaType string, config blob, layers ...blob) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	desc := func(b blob) ocispec.Descriptor {
		d := b.desc
		if d.Digest == "" {
			d.Digest = digest.FromBytes(b.data)
		}
		if d.Size == 0 {
			d.Size = int64(len(b.data))
		}
		f.blobs[d.Digest] = b.data
		return d
	}
	m := ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: mediaType, Config: desc(config)}
	for _, l := range layers {
		m.Layers = append(m.Layers, desc(l))
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	fm := fakeManifest{mediaType: mediaType, data: data}
	f.manifests[tag] = fm
	f.manifests[digest.FromBytes(data).String()] = fm
}

// putIndex stores an OCI index of manifests at tag.
func (f *fakeRegistry) putIndex(t *testing.T, tag string, manifests ...ocispec.Descriptor) {
	t.Helper()
	data, err := json.Marshal(ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: manifests})
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	fm := fakeManifest{mediaType: ocispec.MediaTypeImageIndex, data: data}
	f.manifests[tag] = fm
	f.manifests[digest.FromBytes(data).String()] = fm
}

// blob is a document and, optionally, the descriptor that names it.
type blob struct {
	desc ocispec.Descriptor
	data []byte
}

func wasmConfig() blob {
	return blob{desc: ocispec.Descriptor{MediaType: "application/vnd.wasm.config.v0+json"}, data: []byte(`{}`)}
}

func wasmLayer(data []byte) blob {
	return blob{desc: ocispec.Descriptor{MediaType: "application/wasm"}, data: data}
}
