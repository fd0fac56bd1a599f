package sandbox

import "github.com/tetratelabs/wazero/experimental"

// limitedMemory backs one instance's linear memory and enforces
// Limits.MemoryPages. wazero calls Reallocate for every memory.grow that
// stays within the module's own declared maximum, so a grow refused for our
// limit is seen here and recorded: a trap that follows it is reported as
// ErrMemory with certainty, rather than guessed from how full the memory is.
// Go, Rust and WAT guests all trap (unreachable) when a grow fails.
type limitedMemory struct {
	buf   []byte
	limit uint64 // bytes
	// refused is set when a grow was refused during the current call. Only
	// the goroutine running the guest touches it.
	refused bool
}

var _ experimental.LinearMemory = (*limitedMemory)(nil)

// Reallocate implements experimental.LinearMemory.
func (l *limitedMemory) Reallocate(size uint64) []byte {
	if size > l.limit {
		l.refused = true
		return nil
	}
	// Grow as wazero's own memory does; the compiler turns this append of
	// make into one growslice and a clear, without a temporary slice. The
	// first call, for the memory's minimum, never fails: checkExports refused
	// modules whose minimum exceeds the limit.
	l.buf = append(l.buf, make([]byte, size-uint64(len(l.buf)))...)
	return l.buf
}

// Free implements experimental.LinearMemory.
func (l *limitedMemory) Free() { l.buf = nil }

// pages is the current size of the memory in pages.
func (l *limitedMemory) pages() uint64 { return uint64(len(l.buf)) / pageSize }
