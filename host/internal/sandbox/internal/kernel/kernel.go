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
	"errors"
	"fmt"
	"slices"
)

// BlockOverhead is what each block counts against the memory limit beyond
// its bytes, so that a guest allocating millions of empty blocks is
// stopped by the limit too.
const BlockOverhead = 64

// firstOffset is the offset of the first block of a call. Extism's kernel
// starts its blocks after a header; any non-zero start would do.
const firstOffset = 1

// ErrBounds is wrapped by the errors of accesses outside the blocks in use.
var ErrBounds = errors.New("outside the kernel memory in use")

// block is one allocation.
type block struct {
	start uint64
	data  []byte
	freed bool
}

func (b *block) end() uint64 { return b.start + uint64(len(b.data)) }

// Memory is the kernel memory of one instance. It is not safe for
// concurrent use: an instance serves one call at a time.
type Memory struct {
	// blocks are sorted by start: offsets only grow until Reset. Freed
	// blocks stay until compact drops them.
	blocks []*block
	freed  int
	next   uint64
	// bytes is what the live blocks count against the memory limit.
	bytes uint64

	input  *block // nil: no input
	inLen  uint64
	output []byte
	outSet bool
	// outBlock is the block the output lies in; held is what it still
	// counts once freed, as the output keeps its bytes.
	outBlock *block
	held     uint64
	// outOff and outLen are where the guest said the output is.
	outOff, outLen uint64
	err            *block
}

// New returns an empty Memory.
func New() *Memory { return &Memory{next: firstOffset} }

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

// keepBlocks is the largest index Reset keeps for the next call: a call
// that allocated a million blocks must not leave its index to every later
// call of a pooled instance, uncounted.
const keepBlocks = 1024

// Reset frees every block and clears the input, output and error.
func (m *Memory) Reset() {
	if cap(m.blocks) > keepBlocks {
		m.blocks = nil
	}
	clear(m.blocks)
	m.blocks = m.blocks[:0]
	m.freed, m.next, m.bytes = 0, firstOffset, 0
	m.input, m.inLen, m.output, m.outSet, m.err = nil, 0, nil, false, nil
	m.outBlock, m.held = nil, 0
	m.outOff, m.outLen = 0, 0
}

// Alloc allocates a zeroed block of n bytes and returns its offset; 0 for
// n == 0, as Extism's kernel does. The caller checks the memory limit
// first (Cost).
func (m *Memory) Alloc(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	b := &block{start: m.next, data: make([]byte, n)}
	// Blocks are 8-byte aligned, as guests copying with load_u64 expect
	// of Extism's.
	m.next = (b.end() + 7) &^ 7
	m.blocks = append(m.blocks, b)
	m.bytes += Cost(n)
	return b.start
}

// AllocBytes allocates a block holding a copy of p and returns its offset
// (0 for an empty p).
func (m *Memory) AllocBytes(p []byte) uint64 {
	off := m.Alloc(uint64(len(p)))
	if off != 0 {
		copy(m.blocks[len(m.blocks)-1].data, p)
	}
	return off
}

// find returns the live block holding offset p, or nil.
func (m *Memory) find(p uint64) *block {
	i, found := slices.BinarySearchFunc(m.blocks, p, func(b *block, p uint64) int {
		switch {
		case b.end() <= p:
			return -1
		case b.start > p:
			return 1
		}
		return 0
	})
	if !found || m.blocks[i].freed {
		return nil
	}
	return m.blocks[i]
}

// handle returns the live block that starts at p, or nil.
func (m *Memory) handle(p uint64) *block {
	if b := m.find(p); b != nil && b.start == p {
		return b
	}
	return nil
}

// Free frees the block at p. Freeing 0, or an offset that is not the start
// of a live block, does nothing, as in Extism's kernel.
func (m *Memory) Free(p uint64) {
	b := m.handle(p)
	if b == nil {
		return
	}
	b.freed = true
	if b == m.outBlock {
		// The output keeps the bytes: they count until it moves.
		m.held = Cost(uint64(len(b.data)))
	} else {
		m.bytes -= Cost(uint64(len(b.data)))
	}
	b.data = nil
	if b == m.input {
		m.input, m.inLen = nil, 0
	}
	m.freed++
	if m.freed > len(m.blocks)/2 {
		m.compact()
	}
}

// compact drops the freed blocks from the index.
func (m *Memory) compact() {
	m.blocks = slices.DeleteFunc(m.blocks, func(b *block) bool { return b.freed })
	m.freed = 0
}

// Length is the length of the block at p, 0 if p is not the start of a
// live block.
func (m *Memory) Length(p uint64) uint64 {
	if b := m.handle(p); b != nil {
		return uint64(len(b.data))
	}
	return 0
}

// Bytes of the block at p, for the host to read; nil, false if p is not
// the start of a live block. The slice is the block's own memory.
func (m *Memory) Block(p uint64) ([]byte, bool) {
	b := m.handle(p)
	if b == nil {
		return nil, false
	}
	return b.data, true
}

// Region returns [p, p+n) if it lies within one live block.
func (m *Memory) Region(p, n uint64) ([]byte, error) {
	b := m.find(p)
	if b == nil || n > b.end()-p {
		return nil, fmt.Errorf("%s is %w", span(p, n), ErrBounds)
	}
	off := p - b.start
	return b.data[off : off+n], nil
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
	b := m.handle(p)
	if b == nil || n > uint64(len(b.data)) {
		return fmt.Errorf("input %s is not within a block: %w", span(p, n), ErrBounds)
	}
	m.input, m.inLen = b, n
	return nil
}

// Input is the input's block offset (0 for none) and length.
func (m *Memory) Input() (offset, length uint64) {
	if m.input == nil {
		return 0, 0
	}
	return m.input.start, m.inLen
}

// LoadInput reads n (1 or 8) bytes at offset off of the input.
func (m *Memory) LoadInput(off, n uint64) (uint64, error) {
	if m.input == nil || off > m.inLen || n > m.inLen-off {
		return 0, fmt.Errorf("input bytes %s are outside the input of %d bytes: %w", span(off, n), m.inLen, ErrBounds)
	}
	return le(m.input.data[off : off+n]), nil
}

// SetOutput makes [p, p+n) the call's output. The bytes stay the output
// even if the guest frees the block afterwards, and count against the
// limit until the output is set elsewhere.
func (m *Memory) SetOutput(p, n uint64) error {
	var r []byte
	var b *block
	if p != 0 || n != 0 {
		var err error
		if r, err = m.Region(p, n); err != nil {
			return fmt.Errorf("output %w", err)
		}
		b = m.find(p)
	}
	m.bytes -= m.held
	m.held, m.outBlock = 0, b
	m.output, m.outSet, m.outOff, m.outLen = r, true, p, n
	return nil
}

// OutputRange is where the guest set the output: offset and length.
func (m *Memory) OutputRange() (offset, length uint64) { return m.outOff, m.outLen }

// Output is the output the guest set, and whether it set one.
func (m *Memory) Output() ([]byte, bool) { return m.output, m.outSet }

// SetError makes the block at p the call's error message; 0 clears it.
func (m *Memory) SetError(p uint64) error {
	if p == 0 {
		m.err = nil
		return nil
	}
	b := m.handle(p)
	if b == nil {
		return fmt.Errorf("error message at %d is not a block: %w", p, ErrBounds)
	}
	m.err = b
	return nil
}

// ErrorOffset is the offset of the error block, 0 for none.
func (m *Memory) ErrorOffset() uint64 {
	if m.err == nil || m.err.freed {
		return 0
	}
	return m.err.start
}

// Error is the error message the guest set, and whether it set one. An
// empty message is no error, as in Extism's runtime.
func (m *Memory) Error() (string, bool) {
	if m.err == nil || m.err.freed || len(m.err.data) == 0 {
		return "", false
	}
	return string(m.err.data), true
}
