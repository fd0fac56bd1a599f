package sandbox_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
)

// fuzzOptions keep each input cheap: a 1 MiB memory, a short deadline (a
// mutated module may loop in _initialize), a small output cap and one idle
// instance.
var fuzzOptions = sandbox.Options{
	Limits:  sandbox.Limits{MemoryPages: 16, Timeout: 100 * time.Millisecond, MaxOutput: 4096},
	Logger:  slog.New(slog.DiscardHandler),
	MaxIdle: 1,
}

// callErrors are the kinds a call may fail with here: the caller neither
// cancels nor closes the module.
var callErrors = []error{
	sandbox.ErrTimeout, sandbox.ErrMemory, sandbox.ErrTrap, sandbox.ErrExit,
	sandbox.ErrOutputTooLarge, sandbox.ErrNoResult,
}

// FuzzCompile gives Compile random bytes as a module, seeded with the
// modules of testdata/*.wat so that mutations reach past the binary
// decoder into the import, export and version checks and the first
// instance. Compile must refuse the module with an error naming it, or
// return a module that speaks abi.Version, whose describe and call each
// give a document or an error of a known kind, and that closes cleanly.
// The seed corpus under testdata/fuzz/FuzzCompile holds broken variants.
func FuzzCompile(f *testing.F) {
	mods, err := testGuests.All()
	if err != nil {
		f.Fatal(err)
	}
	names := make([]string, 0, len(mods))
	for name := range mods {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		f.Add(mods[name])
	}
	f.Add([]byte{})
	f.Add([]byte("\x00asm\x01\x00\x00\x00"))
	rt := newRuntime(f) // shared, as the host shares one
	f.Fuzz(func(t *testing.T, wasm []byte) {
		// Generous: no input may hang the fuzzer, and no assertion depends
		// on time.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		m, err := rt.Compile(ctx, "fuzz", wasm, fuzzOptions)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "compile fuzz: ") {
				t.Fatalf("Compile: error %q does not name the module", err)
			}
			return
		}
		if v := m.Info().ABIVersion; v != abi.Version {
			t.Errorf("Compile accepted ABI version %d", v)
		}
		if _, err := m.List(ctx); err != nil {
			checkKind(t, "Describe", err)
		}
		if _, err := sandbox.CallOutput(ctx, m, "tool", []byte(`{}`), nil); err != nil {
			checkKind(t, "Call", err)
		}
		if err := m.Close(ctx); err != nil {
			t.Fatalf("Close: %v", err)
		}
	})
}

// checkKind fails t unless err, from op, is of one of callErrors.
func checkKind(t *testing.T, op string, err error) {
	t.Helper()
	for _, kind := range callErrors {
		if errors.Is(err, kind) {
			return
		}
	}
	t.Fatalf("%s: error of no known kind: %v", op, err)
}
