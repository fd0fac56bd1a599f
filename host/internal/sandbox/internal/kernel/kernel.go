// Package kernel is the memory of an Extism plugin instance, kept by the
// host: the "kernel" that Extism's own runtime runs as a second WebAssembly
// module, reimplemented in Go.
//
// An Extism guest never shares its linear memory with the host. It
// allocates blocks in the kernel's memory (alloc), copies bytes in and out a
// byte or eight at a time (store_u8, load_u64, ...), and passes the host
// offsets of blocks. Offsets are 64-bit and 0 means none. The input of a
// call, its output and its error are blocks of this memory; it is emptied
// at the start of every call.
//
// Unlike Extism's kernel, every access is checked against the blocks in
// use: a load or store outside them is an error (the sandbox traps the
// call), never a read of another block's or the host's bytes.
package kernel

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/wasmcp/wasmcp/host/internal/sandbox/internal/vmem"
)

// BlockOverhead is what each block counts against the memory limit beyond
// its bytes, so that a guest allocating millions of empty blocks is
// stopped by the limit too. It covers what a block takes beyond its bytes:
// its entry in the index and the alignment of the next block.
const BlockOverhead = 64

// firstOffset is the offset of the first block of a call. Extism's kernel
// starts its blocks after a header; any non-zero start would do.
const firstOffset = 1

// ErrBounds is wrapped by the errors of accesses outside the blocks in use.
var ErrBounds = errors.New("outside the kernel memory in use")

// ErrFull is returned by Alloc when the blocks would not fit the room the
// caller gives, or the system cannot make their pages usable.
var ErrFull = errors.New("no room in the kernel memory")

// entry is one block: start is the offset the guest knows it by, pos where
// its bytes lie in the data region. Entries hold no pointers, so that the
// index lives outside the Go heap too.
type entry struct {
	start, pos, len uint64
	freed           bool
}

// entrySize is what an entry takes in the index region.
const entrySize = uint64(unsafe.Sizeof(entry{}))

func (e *entry) end() uint64 { return e.start + e.len }

// keepBytes is how much of each region Reset keeps for the next call of a
// pooled instance; a call that used more gives all of it back to the
// system when it ends.
const keepBytes = 64 << 10

// Memory is the kernel memory of one instance. It is not safe for
// concurrent use: an instance serves one call at a time.
//
// The blocks' bytes lie in one vmem.Region, in the order of their offsets,
// and their entries in another: freed blocks leave gaps, which compact
// closes by moving the blocks after them when an allocation needs the
// room, so that what the memory holds never exceeds the room its caller
// gives it. Both regions go back to the system when a call that used more
// than keepBytes ends, and when the instance is closed (Release).
type Memory struct {
	limit uint64 // the size of each region

	data vmem.Region
	buf  []byte // the data region's bytes
	// top is the end of the last block's bytes; dirty is how far the
	// data region may hold bytes of earlier blocks, which Alloc clears.
	top, dirty uint64

	index vmem.Region
	// blocks are the index, sorted by start: offsets only grow until
	// Reset. Freed blocks stay until compact drops them; indexed is the
	// most the index has held since its pages were released.
	blocks  []entry
	freed   int
	indexed int
	// keeps is set once the regions could not release pages.
	keeps bool

	next uint64
	// bytes is what the live blocks count against the memory limit.
	bytes uint64

	// in is the input block's offset (0: no input), inPos its position in
	// buf, and inLen the input's length.
	in, inPos, inLen uint64
	outSet           bool
	// outBlock is the offset of the block the output lies in; held is
	// what it still counts once freed, as the output keeps its bytes.
	outBlock, held uint64
	// outOff and outLen are where the guest said the output is.
	outOff, outLen uint64
	err            uint64
}

// New returns an empty Memory whose blocks take at most limit bytes.
func New(limit uint64) *Memory { return &Memory{limit: limit, next: firstOffset} }

// Bytes is what the live blocks count against the memory limit: their
// lengths plus BlockOverhead each, and a freed block the output still
// holds. A nil Memory counts nothing.
func (m *Memory) Bytes() uint64 {
	if m == nil {
		return 0
	}
	return m.bytes
}

// Cost is what an allocation of n bytes would add to Bytes.
func Cost(n uint64) uint64 { return n + BlockOverhead }

func align8(n uint64) uint64 { return (n + 7) &^ 7 }

// kept reports whether compact keeps e: live, or the freed block of the
// output.
func (m *Memory) kept(e *entry) bool { return !e.freed || e.start == m.outBlock }

// Reset frees every block and clears the input, output and error; the
// memory's pages go back to the system if the call used more than
// keepBytes.
func (m *Memory) Reset() {
	m.clear()
	if m.dirty > keepBytes || uint64(m.indexed)*entrySize > keepBytes {
		m.Release()
	}
}

// Release returns the memory's pages to the system and frees every block.
// No slice the memory gave out may be used afterwards.
func (m *Memory) Release() {
	if m == nil {
		return
	}
	m.data.Free()
	m.index.Free()
	m.buf, m.blocks, m.dirty, m.indexed = nil, nil, 0, 0
	m.clear()
}

func (m *Memory) clear() {
	m.blocks = m.blocks[:0]
	m.freed, m.next, m.bytes, m.top = 0, firstOffset, 0, 0
	m.in, m.inPos, m.inLen, m.outSet, m.err = 0, 0, 0, false, 0
	m.outBlock, m.held = 0, 0
	m.outOff, m.outLen = 0, 0
}

// Trim makes what the memory holds fit in room bytes, if it can, by
// closing the gaps freed blocks left and returning the pages beyond the
// blocks to the system: the linear memory is about to take the rest of
// the limit.
func (m *Memory) Trim(room uint64) {
	if m == nil || m.keeps || m.dirty+uint64(m.indexed)*entrySize <= room {
		return
	}
	m.compact(true)
	if !m.data.Release(m.top) || !m.index.Release(uint64(len(m.blocks))*entrySize) {
		m.keeps = true // not on this platform: the pages come back with Reset
		return
	}
	m.dirty, m.indexed = m.top, len(m.blocks)
}

// Alloc allocates a zeroed block of n bytes, within room bytes for all the
// blocks and their entries, and returns its offset; 0 for n == 0, as
// Extism's kernel does. moved is how many bytes of other blocks it moved
// to make room. The caller checks the memory limit first (Cost): blocks
// within room by Bytes always fit.
func (m *Memory) Alloc(n, room uint64) (off, moved uint64, err error) {
	if n == 0 {
		return 0, 0, nil
	}
	room = min(room, m.limit)
	fits := func() bool {
		return n <= room && align8(m.top+n) <= room-min(room, uint64(len(m.blocks)+1)*entrySize)
	}
	if !fits() {
		if moved = m.compact(true); !fits() {
			return 0, moved, ErrFull
		}
	}
	pos, top := m.top, align8(m.top+n)
	if top > uint64(len(m.buf)) {
		buf, ok := m.data.Grow(top, m.limit)
		if !ok {
			return 0, moved, ErrFull
		}
		m.buf = buf
	}
	if len(m.blocks) == cap(m.blocks) && !m.growIndex() {
		return 0, moved, ErrFull
	}
	if pos < m.dirty {
		clear(m.buf[pos:min(pos+n, m.dirty)])
	}
	m.top, m.dirty = top, max(m.dirty, top)
	e := entry{start: m.next, pos: pos, len: n}
	// Blocks are 8-byte aligned, as guests copying with load_u64 expect
	// of Extism's.
	m.next = align8(e.end())
	m.blocks = append(m.blocks, e)
	m.indexed = max(m.indexed, len(m.blocks))
	m.bytes += Cost(n)
	return e.start, moved, nil
}

// growIndex makes room for more entries: twice as many, or a region's
// commit step's worth at first.
func (m *Memory) growIndex() bool {
	n := max(2*uint64(cap(m.blocks)), keepBytes/entrySize)
	n = min(n, m.limit/entrySize)
	if n <= uint64(cap(m.blocks)) {
		return false
	}
	b, ok := m.index.Grow(n*entrySize, m.limit)
	if !ok {
		return false
	}
	// The region is a multiple of the page size, aligned as entries need.
	all := unsafe.Slice((*entry)(unsafe.Pointer(unsafe.SliceData(b))), n)
	m.blocks = all[:len(m.blocks)]
	return true
}

// compact drops the freed blocks from the index and, with move, moves the
// bytes of the others down to close the gaps between them, returning how
// many bytes it moved.
func (m *Memory) compact(move bool) (moved uint64) {
	kept := m.blocks[:0]
	var pos uint64
	m.freed = 0
	for _, e := range m.blocks {
		if !m.kept(&e) {
			continue
		}
		if move && e.pos != pos {
			copy(m.buf[pos:pos+e.len], m.buf[e.pos:e.pos+e.len])
			moved += e.len
			e.pos = pos
			if e.start == m.in {
				m.inPos = pos
			}
		}
		if e.freed {
			m.freed++
		}
		kept = append(kept, e)
		pos = align8(e.pos + e.len)
	}
	m.blocks = kept
	if move {
		m.top = pos
	}
	return moved
}

// find returns the live block holding offset p, or nil.
func (m *Memory) find(p uint64) *entry {
	i, found := slices.BinarySearchFunc(m.blocks, p, func(e entry, p uint64) int {
		switch {
		case e.end() <= p:
			return -1
		case e.start > p:
			return 1
		}
		return 0
	})
	if !found || m.blocks[i].freed {
		return nil
	}
	return &m.blocks[i]
}

// at returns the block, live or freed, that starts at p, or nil.
func (m *Memory) at(p uint64) *entry {
	i, found := slices.BinarySearchFunc(m.blocks, p, func(e entry, p uint64) int { return cmp.Compare(e.start, p) })
	if !found {
		return nil
	}
	return &m.blocks[i]
}

// handle returns the live block that starts at p, or nil.
func (m *Memory) handle(p uint64) *entry {
	if e := m.at(p); e != nil && !e.freed {
		return e
	}
	return nil
}

// bytesOf returns the bytes of e.
func (m *Memory) bytesOf(e *entry) []byte { return m.buf[e.pos : e.pos+e.len : e.pos+e.len] }

// Free frees the block at p. Freeing 0, or an offset that is not the start
// of a live block, does nothing, as in Extism's kernel.
func (m *Memory) Free(p uint64) {
	e := m.handle(p)
	if e == nil {
		return
	}
	e.freed = true
	if p == m.outBlock {
		// The output keeps the bytes: they count until it moves.
		m.held = Cost(e.len)
	} else {
		m.bytes -= Cost(e.len)
	}
	if p == m.in {
		m.in, m.inPos, m.inLen = 0, 0, 0
	}
	m.freed++
	if m.freed > len(m.blocks)/2 {
		m.compact(false)
	}
}

// Length is the length of the block at p, 0 if p is not the start of a
// live block.
func (m *Memory) Length(p uint64) uint64 {
	if e := m.handle(p); e != nil {
		return e.len
	}
	return 0
}

// Block returns the bytes of the block at p, for the host to read; nil,
// false if p is not the start of a live block. The slice is the block's
// own memory, valid until the next Alloc, Reset, Trim or Release
// (freeing the block itself leaves it valid).
func (m *Memory) Block(p uint64) ([]byte, bool) {
	e := m.handle(p)
	if e == nil {
		return nil, false
	}
	return m.bytesOf(e), true
}

// Region returns [p, p+n) if it lies within one live block, valid as
// Block's bytes are.
func (m *Memory) Region(p, n uint64) ([]byte, error) {
	e := m.find(p)
	if e == nil || n > e.end()-p {
		return nil, fmt.Errorf("%s is %w", span(p, n), ErrBounds)
	}
	off := e.pos + p - e.start
	return m.buf[off : off+n : off+n], nil
}

// span formats [p, p+n) for an error, without letting p+n wrap around:
// the guest chooses both.
func span(p, n uint64) string {
	if p+n < p {
		return fmt.Sprintf("[%d, %d+%d)", p, p, n)
	}
	return fmt.Sprintf("[%d, %d)", p, p+n)
}

// Load reads n (1 or 8) bytes at p, little-endian.
func (m *Memory) Load(p, n uint64) (uint64, error) {
	r, err := m.Region(p, n)
	if err != nil {
		return 0, err
	}
	return le(r), nil
}

// Store writes the n (1 or 8) low bytes of v at p, little-endian.
func (m *Memory) Store(p, n, v uint64) error {
	r, err := m.Region(p, n)
	if err != nil {
		return err
	}
	for i := range r {
		r[i] = byte(v >> (8 * i))
	}
	return nil
}

func le(r []byte) uint64 {
	var v uint64
	for i := len(r) - 1; i >= 0; i-- {
		v = v<<8 | uint64(r[i])
	}
	return v
}

// SetInput makes the block at p, of which the first n bytes are the input,
// the call's input.
func (m *Memory) SetInput(p, n uint64) error {
	e := m.handle(p)
	if e == nil || n > e.len {
		return fmt.Errorf("input %s is not within a block: %w", span(p, n), ErrBounds)
	}
	m.in, m.inPos, m.inLen = p, e.pos, n
	return nil
}

// Input is the input's block offset (0 for none) and length.
func (m *Memory) Input() (offset, length uint64) { return m.in, m.inLen }

// LoadInput reads n (1 or 8) bytes at offset off of the input.
func (m *Memory) LoadInput(off, n uint64) (uint64, error) {
	if m.in == 0 || off > m.inLen || n > m.inLen-off {
		return 0, fmt.Errorf("input bytes %s are outside the input of %d bytes: %w", span(off, n), m.inLen, ErrBounds)
	}
	return le(m.buf[m.inPos+off : m.inPos+off+n]), nil
}

// SetOutput makes [p, p+n) the call's output. The bytes stay the output
// even if the guest frees the block afterwards, and count against the
// limit until the output is set elsewhere.
func (m *Memory) SetOutput(p, n uint64) error {
	var block uint64
	if p != 0 || n != 0 {
		if _, err := m.Region(p, n); err != nil {
			return fmt.Errorf("output %w", err)
		}
		block = m.find(p).start
	}
	m.bytes -= m.held
	m.held, m.outBlock = 0, block
	m.outSet, m.outOff, m.outLen = true, p, n
	return nil
}

// OutputRange is where the guest set the output: offset and length.
func (m *Memory) OutputRange() (offset, length uint64) { return m.outOff, m.outLen }

// Output is the output the guest set, and whether it set one. The bytes
// are valid as Block's are.
func (m *Memory) Output() ([]byte, bool) {
	if !m.outSet || m.outBlock == 0 {
		return nil, m.outSet
	}
	e := m.at(m.outBlock)
	off := e.pos + m.outOff - e.start
	return m.buf[off : off+m.outLen : off+m.outLen], true
}

// SetError makes the block at p the call's error message; 0 clears it.
func (m *Memory) SetError(p uint64) error {
	if p != 0 && m.handle(p) == nil {
		return fmt.Errorf("error message at %d is not a block: %w", p, ErrBounds)
	}
	m.err = p
	return nil
}

// ErrorOffset is the offset of the error block, 0 for none.
func (m *Memory) ErrorOffset() uint64 {
	if m.handle(m.err) == nil {
		return 0
	}
	return m.err
}

// Error is the error message the guest set, and whether it set one. An
// empty message is no error, as in Extism's runtime.
func (m *Memory) Error() (string, bool) {
	e := m.handle(m.err)
	if e == nil || e.len == 0 {
		return "", false
	}
	return string(m.bytesOf(e)), true
}
