package sandbox

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
)

// TestCompiledModulesShared checks the Runtime's compiled modules: one per
// content while used, the last maxUnused unused ones kept and found again,
// older ones closed.
func TestCompiledModulesShared(t *testing.T) {
	ctx := context.Background()
	r, err := NewRuntime(ctx, RuntimeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	mods := make([][]byte, maxUnused+2)
	for i := range mods {
		mods[i] = sandboxtest.Wat2Wasm(t, fmt.Appendf(nil, `(module (func (export "f%d")))`, i))
	}
	a, err := r.compile(ctx, mods[0], compileKey{sum: sha256.Sum256(mods[0])})
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.compile(ctx, mods[0], compileKey{sum: sha256.Sum256(mods[0])})
	if err != nil {
		t.Fatal(err)
	}
	if a != b || a.refs != 2 {
		t.Fatalf("the same content compiled twice: %p and %p, refs %d", a, b, a.refs)
	}
	r.release(ctx, a)
	r.release(ctx, b)
	if len(r.modules.unused) != 1 {
		t.Fatalf("%d unused compiled modules, want 1", len(r.modules.unused))
	}
	if again, err := r.compile(ctx, mods[0], compileKey{sum: sha256.Sum256(mods[0])}); err != nil || again != a {
		t.Fatalf("an unused compiled module was not found again: %p, %v", again, err)
	}
	r.release(ctx, a)

	// More unused modules than are kept: the least recently used goes.
	for _, wasm := range mods[1:] {
		cm, err := r.compile(ctx, wasm, compileKey{sum: sha256.Sum256(wasm)})
		if err != nil {
			t.Fatal(err)
		}
		r.release(ctx, cm)
	}
	if n := len(r.modules.unused); n != maxUnused || len(r.modules.byKey) != maxUnused {
		t.Fatalf("%d unused, %d in all, want %d", n, len(r.modules.byKey), maxUnused)
	}
	for _, cm := range r.modules.unused {
		if cm == a {
			t.Fatal("the least recently used module was kept")
		}
	}
	if again, err := r.compile(ctx, mods[0], compileKey{sum: sha256.Sum256(mods[0])}); err != nil || again == a {
		t.Fatalf("a closed compiled module was handed out again: %v", err)
	}
}

// TestDescribeKeepsNoInstance checks that a described module that is never
// called holds no instance, and that its first call creates one to keep.
func TestDescribeKeepsNoInstance(t *testing.T) {
	ctx := context.Background()
	mods, err := sandboxtest.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	m, err := testRuntime(t).Compile(ctx, "guest", mods["guest"], Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)
	if _, err := m.List(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(m.idle); n != 0 {
		t.Fatalf("%d instances kept after describe, want none", n)
	}
	if _, err := CallOutput(ctx, m, "echo", []byte(`{}`), nil); err != nil {
		t.Fatal(err)
	}
	if n := len(m.idle); n != 1 {
		t.Fatalf("%d instances kept after a call, want 1", n)
	}
}

// TestCompileSurvivesDecoderPanic makes the host's decoding of a module
// panic, as a parser bug would on some hostile input: Compile must refuse
// that module with an error, and the next module must still compile.
func TestCompileSurvivesDecoderPanic(t *testing.T) {
	ctx := context.Background()
	mods, err := sandboxtest.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	orig := prepare
	prepare = func([]byte, uint64) ([]byte, error) { panic("index out of range [7] with length 7") }
	_, err = testRuntime(t).Compile(ctx, "bad", mods["guest"], Options{})
	prepare = orig
	if err == nil || !strings.Contains(err.Error(), "the host failed while decoding it (index out of range") {
		t.Fatalf("err = %v, want a refusal naming the panic", err)
	}
	m, err := testRuntime(t).Compile(ctx, "good", mods["guest"], Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = m.Close(ctx)
}

// testRuntime is a Runtime of the test's own, closed with it, whose long
// calls keep to turns as serve's do.
func testRuntime(t testing.TB) *Runtime {
	t.Helper()
	r, err := NewRuntime(context.Background(), RuntimeConfig{LongCalls: LongCalls{Reserve: 1, Nice: 10}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })
	return r
}
