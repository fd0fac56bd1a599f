package sandbox

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/bounds"
)

// Compiled modules are shared by content within a Runtime. wazero decodes
// and validates a module's every function on each CompileModule, even when
// its compilation cache holds the machine code: for a Go guest of megabytes
// that is most of a reload (RATIONALE.md). The Runtime
// keeps each compiled module while a Module uses it, and the last few that
// no Module uses (maxUnused), so that a version that comes back (an undo, a
// branch switched back and forth, a plugin copied twice) compiles in no
// time. Unused ones are closed least recently used first.

// maxUnused is how many compiled modules no Module uses a Runtime keeps:
// the machine code of a Go guest takes megabytes.
const maxUnused = 4

// compileKey identifies a compiled module: the SHA-256 of its binary, and
// how far its tables may grow, which the memory limit sets (tableGrowth).
type compileKey struct {
	sum         [sha256.Size]byte
	tableGrowth uint64
}

// compiledModule is a compiled module and how many Modules use it.
type compiledModule struct {
	key  compileKey
	code wazero.CompiledModule
	// tableElements is how many elements its tables may hold in all, each
	// taking tableElementSize of every instance's memory limit.
	tableElements uint64
	refs          int // guarded by Runtime.mu
}

// compiledModules are a Runtime's compiled modules by their key.
type compiledModules struct {
	mu     sync.Mutex
	byKey  map[compileKey]*compiledModule // guarded by mu
	unused []*compiledModule              // guarded by mu; least recently used first
}

// compile returns the compiled module of wasm, whose key is key,
// compiling it (checked and instrumented, see bounds) if the Runtime holds
// none. release must be called when the Module that asked is done with it.
func (r *Runtime) compile(ctx context.Context, wasm []byte, key compileKey) (*compiledModule, error) {
	c := &r.modules
	c.mu.Lock()
	if cm, ok := c.byKey[key]; ok {
		if cm.refs == 0 {
			c.unused = slices.DeleteFunc(c.unused, func(u *compiledModule) bool { return u == cm })
		}
		cm.refs++
		c.mu.Unlock()
		return cm, nil
	}
	c.mu.Unlock()

	// Two loads of the same content at once both compile it; the second to
	// finish keeps its own, uncached. Rare enough not to wait for the first.
	code, tables, err := r.compileNew(ctx, wasm, key.tableGrowth)
	if err != nil {
		return nil, err
	}
	cm := &compiledModule{key: key, code: code, tableElements: tables, refs: 1}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey = map[compileKey]*compiledModule{}
	}
	if _, ok := c.byKey[key]; !ok {
		c.byKey[key] = cm
	}
	return cm, nil
}

func (r *Runtime) compileNew(ctx context.Context, wasm []byte, tableGrowth uint64) (code wazero.CompiledModule, tables uint64, err error) {
	// The binary is untrusted, and our parsers and wazero's decoder walk
	// it before anything else has: a bug that panics on some input must
	// refuse that module, not end the server and every other plugin.
	defer func() {
		if p := recover(); p != nil {
			code, err = nil, fmt.Errorf("invalid module: the host failed while decoding it (%v); please report this module", p)
		}
	}()
	if wasm, err = prepare(wasm, tableGrowth); err != nil {
		return nil, 0, err
	}
	// A cold compile of a Go guest takes seconds on one core.
	ctx = experimental.WithCompilationWorkers(ctx, runtime.GOMAXPROCS(0))
	code, err = r.rt.CompileModule(ctx, wasm)
	return code, bounds.TableElements(wasm), err
}

// prepare checks and instruments a binary before wazero decodes it. It is a
// variable so that a test can make it fail as a parser bug would.
var prepare = func(wasm []byte, tableGrowth uint64) ([]byte, error) {
	var err error
	// wazero allocates by the counts in the binary before it reads what
	// they count, a table's initial size when it instantiates, and whatever
	// table.grow asks up to the table's maximum: a dozen bytes could exhaust
	// the host's memory. Check refuses the first two and caps the maxima.
	if wasm, err = bounds.Check(wasm, tableGrowth); err != nil {
		return nil, fmt.Errorf("invalid or oversized module: %w", err)
	}
	// Instrument also refuses a module that would cost wazero's compiler
	// more than linear time in its size.
	if wasm, err = bounds.Instrument(wasm); err != nil {
		if errors.Is(err, bounds.ErrCompileCost) {
			return nil, fmt.Errorf("oversized module: %w", err)
		}
		return nil, fmt.Errorf("invalid module: %w", err)
	}
	return wasm, nil
}

// release gives back a compiled module that compile returned. The last
// release of one keeps it among the unused, closing the least recently used
// beyond maxUnused.
func (r *Runtime) release(ctx context.Context, cm *compiledModule) {
	c := &r.modules
	c.mu.Lock()
	cm.refs--
	if cm.refs > 0 {
		c.mu.Unlock()
		return
	}
	var evict []*compiledModule
	if c.byKey[cm.key] == cm {
		c.unused = append(c.unused, cm)
		if n := len(c.unused) - maxUnused; n > 0 {
			evict = slices.Clone(c.unused[:n])
			c.unused = slices.Delete(c.unused, 0, n)
		}
	} else {
		evict = []*compiledModule{cm} // compiled twice at once: not cached
	}
	for _, e := range evict {
		if c.byKey[e.key] == e {
			delete(c.byKey, e.key)
		}
	}
	c.mu.Unlock()
	for _, e := range evict {
		_ = e.code.Close(ctx)
	}
}
