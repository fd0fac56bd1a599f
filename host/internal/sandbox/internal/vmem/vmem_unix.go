//go:build linux || darwin

package vmem

import (
	"math"
	"syscall"
)

var pageSize = syscall.Getpagesize()

// reserve reserves n bytes of address space that nothing can use: it costs
// no memory and counts against no overcommit limit. It returns nil when it
// cannot.
func reserve(n uint64) []byte {
	if n == 0 || n > math.MaxInt {
		return nil
	}
	mem, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	return mem
}

// commit makes the pages of b usable. The system zeroes each page when it
// is first written, and only pages written are resident.
func commit(b []byte) bool {
	return syscall.Mprotect(b, syscall.PROT_READ|syscall.PROT_WRITE) == nil
}

func unreserve(mem []byte) { _ = syscall.Munmap(mem) }
