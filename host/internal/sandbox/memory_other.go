//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package sandbox

// grow returns the memory at size bytes. On this platform the memory moves
// as it grows, and what it leaves behind is the garbage collector's to
// return.
func (l *limitedMemory) grow(size uint64) ([]byte, bool) { return l.growSlice(size), true }

// Free implements experimental.LinearMemory.
func (l *limitedMemory) Free() { l.buf = nil }
