package bounds

import (
	"fmt"
	"unicode/utf8"
)

// reader reads a region [pos, end) of a module's binary.
type reader struct {
	b        []byte
	pos, end int
}

// remaining is the number of unread bytes of the region.
func (r *reader) remaining() uint64 { return uint64(r.end - r.pos) }

func (r *reader) byte() (byte, error) {
	if r.pos >= r.end {
		return 0, fmt.Errorf("%w at offset %d", errTruncated, r.pos)
	}
	r.pos++
	return r.b[r.pos-1], nil
}

// leb skips a LEB128 number of at most maxLen bytes.
func (r *reader) leb(maxLen int) error {
	for i, end := r.pos, min(r.pos+maxLen, r.end); i < end; i++ {
		if r.b[i] < 0x80 {
			r.pos = i + 1
			return nil
		}
	}
	return r.lebSlow(maxLen)
}

// lebSlow is leb for a number that is too long or truncated: it reports why.
func (r *reader) lebSlow(maxLen int) error {
	start := r.pos
	for i := 0; i < maxLen; i++ {
		b, err := r.byte()
		if err != nil {
			return err
		}
		if b < 0x80 {
			return nil
		}
	}
	return fmt.Errorf("number at offset %d is longer than %d bytes", start, maxLen)
}

// u32 reads an unsigned LEB128 number that fits in 32 bits.
func (r *reader) u32() (uint32, error) {
	if r.pos < r.end && r.b[r.pos] < 0x80 { // most numbers: one byte
		r.pos++
		return uint32(r.b[r.pos-1]), nil
	}
	start := r.pos
	var v uint64
	for shift := 0; shift < 35; shift += 7 {
		b, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			if v > 1<<32-1 {
				break
			}
			return uint32(v), nil
		}
	}
	return 0, fmt.Errorf("number at offset %d does not fit in 32 bits", start)
}

// count reads the length of a vector whose elements take at least minSize
// bytes each, and refuses a length the rest of the region cannot hold.
func (r *reader) count(minSize uint64) (uint32, error) {
	start := r.pos
	n, err := r.u32()
	if err != nil {
		return 0, err
	}
	if uint64(n)*minSize > r.remaining() {
		return 0, fmt.Errorf("count %d at offset %d: not enough bytes (%d) for that many", n, start, r.remaining())
	}
	return n, nil
}

// skip skips n bytes.
func (r *reader) skip(n uint64) error {
	if n > r.remaining() {
		return fmt.Errorf("%w at offset %d: %d bytes needed, %d left", errTruncated, r.pos, n, r.remaining())
	}
	r.pos += int(n)
	return nil
}

// sub returns a reader of the next n bytes, which r skips.
func (r *reader) sub(n uint64) (reader, error) {
	start := r.pos
	if err := r.skip(n); err != nil {
		return reader{}, fmt.Errorf("length %d: %w", n, err)
	}
	return reader{b: r.b, pos: start, end: r.pos}, nil
}

// name reads a length-prefixed UTF-8 string; the result shares r's bytes.
func (r *reader) name() ([]byte, error) {
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	s, err := r.sub(uint64(n))
	if err != nil {
		return nil, fmt.Errorf("name: %w", err)
	}
	name := r.b[s.pos:s.end]
	if !utf8.Valid(name) {
		return nil, fmt.Errorf("name at offset %d is not UTF-8", s.pos)
	}
	return name, nil
}

// done refuses bytes left unread in the region.
func (r *reader) done() error {
	if r.pos != r.end {
		return fmt.Errorf("%d bytes left over at offset %d", r.end-r.pos, r.pos)
	}
	return nil
}
