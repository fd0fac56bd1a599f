package bounds_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/bounds"
	"github.com/wasmcp/wasmcp/internal/testenv"
)

// The estimate against real modules: the guests and the corpus `make
// corpus` builds (C at -O0 and -O2, Rust debug and release, Go,
// AssemblyScript) and third-party modules published on npm (e2e/corpus),
// in the directories WASMCP_CORPUS lists; make test sets it. No module is
// refused, and each costs at most half its limit, so that another build of
// the same code is not refused either. Without the race detector, which
// slows wazero's compiler tenfold, each module is also compiled, as the
// sandbox would (fresh runtime, no cache, one worker), and the log has
// the estimate beside the time it took: BENCHMARKS.md's table.
func TestCompileCostOfCorpus(t *testing.T) {
	list := os.Getenv("WASMCP_CORPUS")
	if list == "" {
		testenv.Missing(t, "needs the modules `make corpus` builds and installs, named by WASMCP_CORPUS (make test sets it)")
	}
	seen := map[[32]byte]string{}
	for _, dir := range filepath.SplitList(list) {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".wasm") {
				return err
			}
			wasm, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if first, ok := seen[sha256.Sum256(wasm)]; ok {
				t.Logf("%s: the same as %s", path, first)
				return nil
			}
			seen[sha256.Sum256(wasm)] = path
			corpusModule(t, path, wasm)
			return nil
		})
		if err != nil {
			t.Fatalf("WASMCP_CORPUS: %v", err)
		}
	}
	if len(seen) == 0 {
		t.Fatalf("WASMCP_CORPUS=%s holds no .wasm files (run `make corpus`)", list)
	}
}

// corpusModule checks the estimate of the module at path, and logs it
// beside the time wazero takes to compile it.
func corpusModule(t *testing.T, path string, wasm []byte) {
	work, limit, err := bounds.CompileWork(wasm)
	refused := errors.Is(err, bounds.ErrCompileCost)
	if err != nil && !refused {
		// Features the sandbox does not enable (threads, exceptions):
		// nothing to estimate.
		t.Logf("%s: %v", path, err)
		return
	}
	var took time.Duration
	if refused || !raceEnabled {
		compiled := wasm
		if !refused {
			if compiled, err = bounds.Instrument(wasm); err != nil {
				t.Fatalf("%s: Instrument: %v", path, err)
			}
		}
		took = compileTime(t, compiled)
	}
	compiled := "not compiled under the race detector"
	if took > 0 {
		compiled = fmt.Sprintf("compiled in %.3f s", took.Seconds())
	}
	t.Logf("%s: %d KB, estimate %.3f s of its limit of %.3f s (%.0f%%), %s",
		path, len(wasm)>>10, float64(work)/1e9, float64(limit)/1e9, 100*float64(work)/float64(limit), compiled)
	switch {
	case refused:
		t.Errorf("%s is refused (%v) but compiles in %v", path, err, took)
	case work > limit/2:
		t.Errorf("%s costs %d, over half its limit of %d", path, work, limit)
	}
}

// compileTime is how long wazero takes to compile wasm on one core, with
// nothing cached.
func compileTime(t *testing.T, wasm []byte) time.Duration {
	ctx := experimental.WithCompilationWorkers(context.Background(), 1)
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
	defer func() { _ = rt.Close(ctx) }()
	start := time.Now()
	// A module needing a feature the sandbox leaves off fails here too,
	// after the time that counts.
	if _, err := rt.CompileModule(ctx, wasm); err != nil {
		t.Logf("CompileModule: %v", err)
	}
	return time.Since(start)
}
