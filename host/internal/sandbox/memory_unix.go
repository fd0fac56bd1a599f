//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package sandbox

import (
	"math"
	"syscall"
)

// grow returns the memory at size bytes: the first call reserves the limit
// as address space that nothing can use (it costs no memory and counts
// against no overcommit limit), and each call makes the pages up to size
// usable. The kernel zeroes pages on first use, and only pages the guest
// touched are resident. Where the limit cannot be reserved (a 32-bit
// address space), the memory moves as it grows instead.
func (l *limitedMemory) grow(size uint64) ([]byte, bool) {
	if l.region == nil && !l.moves {
		var err error
		if l.limit > 0 && l.limit <= math.MaxInt {
			l.region, err = syscall.Mmap(-1, 0, int(l.limit), syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		}
		l.moves = l.region == nil || err != nil
	}
	if l.moves {
		return l.growSlice(size), true
	}
	if size > uint64(len(l.buf)) {
		if err := syscall.Mprotect(l.region[len(l.buf):size], syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
			return nil, false // the system cannot commit the memory
		}
	}
	return l.region[:size:size], true
}

// Free implements experimental.LinearMemory: the reservation is returned to
// the system at once. wazero calls Free when it closes the instance, after
// which neither it nor the host reads the memory.
func (l *limitedMemory) Free() {
	if l.region != nil {
		_ = syscall.Munmap(l.region)
	}
	l.buf, l.region = nil, nil
}
