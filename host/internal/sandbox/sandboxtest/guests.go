package sandboxtest

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Guests are the committed modules of the *.wat files of one directory,
// read once per test binary, on first use.
type Guests struct {
	dir   string
	build func() (map[string][]byte, error)
}

// NewGuests returns the guests of dir, named by file name without ".wat".
func NewGuests(dir string) *Guests {
	return &Guests{dir: dir, build: sync.OnceValues(func() (map[string][]byte, error) { return ReadDir(dir) })}
}

// All returns every module of the directory.
func (g *Guests) All() (map[string][]byte, error) { return g.build() }

// Get returns one module and fails t if it cannot be built or does not exist.
func (g *Guests) Get(t testing.TB, name string) []byte {
	t.Helper()
	mods, err := g.build()
	if err != nil {
		t.Fatal(err)
	}
	wasm, ok := mods[name]
	if !ok {
		t.Fatalf("no %s/%s.wat", g.dir, name)
	}
	return wasm
}

// Context bounds a test so that a hang fails it instead of the whole run.
// The bound is generous, and no assertion may depend on time.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
