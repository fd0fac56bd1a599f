package sandbox

import (
	"github.com/tetratelabs/wazero/experimental"

	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/kernel"
)

// limitedMemory backs one instance's linear memory and enforces its share
// of Limits.MemoryPages: what the instance's tables leave of it (see
// Runtime.compile). wazero calls Reallocate for every memory.grow that stays
// within the module's own declared maximum, so a grow refused for our limit
// is seen here and recorded: a trap that follows it is reported as ErrMemory
// with certainty, rather than guessed from how full the memory is. Go, Rust
// and WAT guests all trap (unreachable) when a grow fails.
//
// The memory never moves once allocated: where the platform allows
// (memory_unix.go), the limit is reserved as address space when the
// instance is created, pages are made usable as the memory grows, and the
// whole is returned to the system when the instance is closed. A memory
// that moved as it grew would leave a copy behind at every step, which the
// process holds until the garbage collector and the runtime's scavenger
// have returned it: several times the memory itself, for every instance.
type limitedMemory struct {
	buf   []byte
	limit uint64 // bytes
	// kernel is an Extism instance's kernel memory, whose bytes count
	// against limit too; nil for a wasmcp instance.
	kernel *kernel.Memory
	// size is the memory's length, kept after Free for classify.
	size uint64
	// refused is set when a grow was refused during the current call. Only
	// the goroutine running the guest touches it.
	refused bool
	// region is the reservation of memory_unix.go, and moves whether the
	// memory is a Go slice that moves as it grows instead.
	region []byte
	moves  bool
}

var _ experimental.LinearMemory = (*limitedMemory)(nil)

// Reallocate implements experimental.LinearMemory.
func (l *limitedMemory) Reallocate(size uint64) []byte {
	if size+l.kernel.Bytes() > l.limit {
		l.refused = true
		return nil
	}
	// The first call, for the memory's minimum, never fails for our limit:
	// checkExports refused modules whose minimum exceeds it.
	buf, ok := l.grow(size)
	if !ok {
		l.refused = true
		return nil
	}
	l.buf, l.size = buf, size
	return buf
}

// pages is the current size of the memory in pages.
func (l *limitedMemory) pages() uint64 { return l.size / pageSize }

// growSlice returns the memory grown to size bytes as wazero's own memory
// grows, moving it.
func (l *limitedMemory) growSlice(size uint64) []byte {
	// The compiler turns this append of make into one growslice and a
	// clear, without a temporary slice.
	return append(l.buf, make([]byte, size-uint64(len(l.buf)))...)
}
