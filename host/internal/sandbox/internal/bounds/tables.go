package bounds

import (
	"cmp"
	"errors"
	"slices"
)

// wazero (v1.12) grows a table by appending as many elements as table.grow
// asks for, 8 bytes each, refusing only a size past the table's declared
// maximum or 2^32. A guest that asks for 2^32-16 elements ends the host
// process (the Go runtime cannot allocate 32 GiB), and one that asks for
// 2^31 allocates 16 GiB, ignoring the call's deadline while it does. wazero
// has no hook for table growth, so the only limit that holds is a maximum
// in the module itself: capTables writes one into the table section.

// span is where a section lies in a module: the offset of its id, of its
// body and of the byte after it.
type span struct{ start, body, end int }

// tableSection records where the table section lies. wazero refuses a
// module with two, and so does Check, whose rewrite handles one.
func (c *checker) tableSection(start int, body reader) error {
	if c.table != nil {
		return errors.New("a second table section")
	}
	c.table = &span{start, body.pos, body.end}
	return nil
}

// capTables returns the module with the maxima of tableMaxima: the module
// itself when every table already declares its maximum, else a copy with a
// table section encoded anew.
func (c *checker) capTables(growth uint64) []byte {
	wasm := c.r.b
	// Check made sure that the minima add up to at most MaxTableElements.
	budget := MaxTableElements - c.tableBudget
	budget = min(MaxTableElements, budget+growth)
	maxima := tableMaxima(c.tables, budget)
	if !slices.ContainsFunc(c.tables, func(l limitsType) bool { return !l.hasMax() }) &&
		slices.EqualFunc(c.tables, maxima, func(l limitsType, max uint32) bool { return l.max == max }) {
		return wasm
	}
	// The new limits take at most 11 bytes where the old took at least 2.
	body := make([]byte, 0, c.table.end-c.table.body+9*len(c.tables))
	pos := c.table.body
	for i, l := range c.tables {
		body = append(body, wasm[pos:l.start]...)
		// Flag 1 (or 3, shared, which wazero refuses for a table as it did
		// before): a minimum and a maximum.
		body = append(body, l.flag|1)
		body = appendULEB(body, uint64(l.min))
		body = appendULEB(body, uint64(maxima[i]))
		pos = l.end
	}
	body = append(body, wasm[pos:c.table.end]...)

	out := make([]byte, 0, len(wasm)-(c.table.end-c.table.start)+1+5+len(body))
	out = append(out, wasm[:c.table.start]...)
	out = append(out, sectionTable)
	out = appendULEB(out, uint64(len(body)))
	out = append(out, body...)
	return append(out, wasm[c.table.end:]...)
}

// tableMaxima returns the maximum of each table of ts such that the maxima
// add up to at most budget, leaving each as large as it can be: a table
// that declares no maximum keeps its initial size, and what the budget
// leaves beyond the tables' initial sizes is shared evenly among the tables
// that declare room to grow, the share a table cannot use, because the
// maximum it declares is lower, going to the others. So a module with one
// table may grow it to the maximum it declares, or budget elements if that
// is lower. The sum of the minima must not exceed budget.
//
// Tables count against the instance's memory limit at their maximum (the
// sandbox's Runtime.compile): a table that may grow without bound would
// take all of it, so one may grow only within a maximum it declares.
// Compilers declare none for tables they never grow (Go), or one equal to
// the initial size (LLVM).
//
// A maximum below the minimum is kept, for wazero to refuse.
func tableMaxima(ts []limitsType, budget uint64) []uint32 {
	maxima := make([]uint32, len(ts))
	// headroom is how far a table may grow by its own declaration.
	headroom := func(l limitsType) uint64 {
		if !l.hasMax() {
			return 0
		}
		return uint64(l.max) - uint64(min(l.min, l.max))
	}
	remaining := budget
	order := make([]int, len(ts))
	for i, l := range ts {
		remaining -= uint64(l.min)
		order[i] = i
	}
	// Tables that can use the least first, so that what they leave is
	// shared among those that come after them.
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(headroom(ts[a]), headroom(ts[b])) })
	for k, i := range order {
		l := ts[i]
		if l.hasMax() && l.max < l.min {
			maxima[i] = l.max
			continue
		}
		grow := min(headroom(l), remaining/uint64(len(order)-k))
		maxima[i] = l.min + uint32(grow)
		remaining -= grow
	}
	return maxima
}

// TableElements returns how many elements the tables of wasm, a module
// Check returned, may hold in all: the sum of their maxima.
func TableElements(wasm []byte) uint64 {
	if len(wasm) < len(header) || string(wasm[:len(header)]) != header {
		return 0
	}
	var n uint64
	r := reader{b: wasm, pos: len(header), end: len(wasm)}
	for r.pos < r.end {
		id, err := r.byte()
		if err != nil {
			return n
		}
		size, err := r.u32()
		if err != nil {
			return n
		}
		body, err := r.sub(uint64(size))
		if err != nil || id != sectionTable {
			continue
		}
		count, _ := body.u32()
		for range count {
			l, err := tableType(&body)
			if err != nil {
				return n
			}
			n += uint64(l.max)
		}
	}
	return n
}

// appendULEB appends v as an unsigned LEB128 number.
func appendULEB(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}
