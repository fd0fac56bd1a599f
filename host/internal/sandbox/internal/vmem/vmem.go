// Package vmem backs the memories of an instance that the guest fills: its
// linear memory and an Extism plugin's kernel memory. Neither is Go heap:
// a memory that moved as it grew would leave a copy behind at every step,
// and what a call frees on the heap goes back to the system only after the
// garbage collector's next cycle, which an idle process reaches after
// minutes, and the runtime's scavenger, gradually. A Region's pages go
// back to the system the moment it is released or freed.
package vmem

// commitStep is the granularity in which pages are made usable: the size
// of a WebAssembly page, a multiple of every system page size Go runs on.
const commitStep = 64 << 10

// Region is a memory that grows up to a fixed size without moving: that
// size is reserved as address space when it first grows, which costs no
// memory, and pages become usable as it grows and resident as they are
// written. Where the size cannot be reserved (a 32-bit address space, a
// platform without the calls), it is a Go slice that moves as it grows.
// The zero Region is empty and ready to grow. A Region is not safe for
// concurrent use.
type Region struct {
	mem []byte // the reservation, or the slice that moves
	// committed is how much of the reservation is usable, a multiple of
	// commitStep.
	committed int
	moves     bool
}

// Grow makes the region size bytes long and returns them, reserving limit
// bytes on the first call; size is at most limit, and the region never
// shrinks. Bytes never written read as zero. It returns false when the
// system cannot make the pages usable.
func (r *Region) Grow(size, limit uint64) ([]byte, bool) {
	if r.mem == nil && !r.moves {
		r.mem = reserve(limit)
		r.moves = r.mem == nil
	}
	if r.moves {
		if extra := int(size) - len(r.mem); extra > 0 {
			// One growslice and a clear: the compiler makes no
			// temporary slice of this append of make.
			r.mem = append(r.mem, make([]byte, extra)...)
		}
		return r.mem[:size:size], true
	}
	if int(size) > r.committed {
		to := min((int(size)+commitStep-1)/commitStep*commitStep, len(r.mem))
		if !commit(r.mem[r.committed:to]) {
			return nil, false
		}
		r.committed = to
	}
	return r.mem[:size:size], true
}

// Release returns the pages of the region from offset from on to the
// system, keeping the region's size: its bytes from from on read as zero
// afterwards. It reports whether the platform could; where it cannot, the
// pages are returned when the region is freed.
func (r *Region) Release(from uint64) bool {
	if r.moves || r.mem == nil {
		return false
	}
	if int(from) >= r.committed {
		return true
	}
	start := min((int(from)+pageSize-1)/pageSize*pageSize, r.committed)
	if start < r.committed && !release(r.mem[start:r.committed]) {
		return false
	}
	clear(r.mem[from:start]) // the page that from falls in stays
	return true
}

// Free returns the whole region to the system. Nothing may use the bytes
// Grow returned afterwards; the region may grow again, from nothing.
func (r *Region) Free() {
	if !r.moves && r.mem != nil {
		unreserve(r.mem)
	}
	*r = Region{}
}
