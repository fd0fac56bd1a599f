package sandbox

import (
	"github.com/tetratelabs/wazero/experimental"

	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/kernel"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/vmem"
)

// limitedMemory backs one instance's linear memory and enforces its share
// of Limits.MemoryPages: what the instance's tables leave of it (see
// Runtime.compile). wazero calls Reallocate for every memory.grow that stays
// within the module's own declared maximum, so a grow refused for our limit
// is seen here and recorded: a trap that follows it is reported as ErrMemory
// with certainty, rather than guessed from how full the memory is. Go, Rust
// and WAT guests all trap (unreachable) when a grow fails.
//
// The memory is a vmem.Region of the limit's size: it never moves, and it
// is returned to the system when the instance is closed, with the kernel
// memory of an Extism instance.
type limitedMemory struct {
	region vmem.Region
	limit  uint64 // bytes
	// kernel is an Extism instance's kernel memory, whose bytes count
	// against limit too; nil for a wasmcp instance.
	kernel *kernel.Memory
	// size is the memory's length, kept after Free for classify.
	size uint64
	// refused is set when a grow was refused during the current call. Only
	// the goroutine running the guest touches it.
	refused bool
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
	buf, ok := l.region.Grow(size, l.limit)
	if !ok {
		l.refused = true
		return nil
	}
	l.size = size
	// What the kernel freed but still holds goes back to the system
	// before the linear memory takes its place.
	l.kernel.Trim(l.limit - size)
	return buf
}

// pages is the current size of the memory in pages.
func (l *limitedMemory) pages() uint64 { return l.size / pageSize }

// Free implements experimental.LinearMemory: the memory, and the kernel
// memory with it, is returned to the system at once. wazero calls Free
// when it closes the instance, after which neither it nor the host reads
// the memory.
func (l *limitedMemory) Free() {
	l.region.Free()
	l.kernel.Release()
}
