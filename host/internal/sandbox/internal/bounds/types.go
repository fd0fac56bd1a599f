package bounds

import "fmt"

// The types and constant expressions that several sections contain.

// typeEntry is a function type, or a recursion group of them.
func typeEntry(r *reader) error {
	_, err := appendTypes(nil, r)
	return err
}

// arity is how many parameters and results a function type has.
type arity struct{ params, results uint32 }

// appendTypes reads a type entry and appends the arity of each function
// type it defines to ts.
func appendTypes(ts []arity, r *reader) ([]arity, error) {
	b, err := r.byte()
	if err != nil {
		return ts, err
	}
	if b != 0x4e { // not a rec group: b starts a function type
		return appendFuncType(ts, r, b)
	}
	n, err := r.count(3)
	for i := uint32(0); err == nil && i < n; i++ {
		if b, err = r.byte(); err == nil {
			ts, err = appendFuncType(ts, r, b)
		}
	}
	return ts, err
}

// appendFuncType reads a function type after its first byte b and appends
// its arity to ts.
func appendFuncType(ts []arity, r *reader, b byte) ([]arity, error) {
	if b != 0x60 {
		return ts, fmt.Errorf("function type starts with %#x", b)
	}
	var counts [2]uint32 // parameters, results
	for i := range counts {
		n, err := r.count(1)
		counts[i] = n
		for j := uint32(0); err == nil && j < n; j++ {
			err = valueType(r)
		}
		if err != nil {
			return ts, err
		}
	}
	return append(ts, arity{counts[0], counts[1]}), nil
}

// tableType is a table type, with wazero's optional initializer prefix. It
// returns the table's limits.
func tableType(r *reader) (limitsType, error) {
	b, err := r.byte()
	if err != nil {
		return limitsType{}, err
	}
	init := b == 0x40
	if init {
		if b, err = r.byte(); err == nil && b != 0 {
			err = fmt.Errorf("table prefix 0x40 %#x", b)
		}
		if err == nil {
			b, err = r.byte()
		}
	}
	var l limitsType
	if err == nil {
		err = refTypeAfter(r, b)
	}
	if err == nil {
		l, err = limits(r)
	}
	if err == nil && init {
		err = constExpr(r)
	}
	return l, err
}

// limitsType is the limits of a table or a memory, and where they lie in
// the binary.
type limitsType struct {
	flag     byte
	min, max uint32 // max is meaningful when flag&1 is 1
	// start is the offset of the flag, end that of the byte after the
	// limits.
	start, end int
}

// hasMax reports whether the limits declare a maximum.
func (l limitsType) hasMax() bool { return l.flag&1 == 1 }

// limits is a flag, a minimum and, for flags 1 and 3, a maximum.
func limits(r *reader) (limitsType, error) {
	l := limitsType{start: r.pos}
	var err error
	if l.flag, err = r.byte(); err != nil {
		return l, err
	}
	if l.flag > 3 {
		return l, fmt.Errorf("limits flag %#x", l.flag)
	}
	l.min, err = r.u32()
	if err == nil && l.hasMax() {
		l.max, err = r.u32()
	}
	l.end = r.pos
	return l, err
}

// valueType is a number, vector or reference type.
func valueType(r *reader) error {
	b, err := r.byte()
	if err != nil {
		return err
	}
	switch b {
	case 0x7f, 0x7e, 0x7d, 0x7c, 0x7b: // i32, i64, f32, f64, v128
		return nil
	}
	return refTypeAfter(r, b)
}

// refTypeAfter is a reference type whose first byte, b, was read: funcref,
// externref, exnref, or (ref null? heap type).
func refTypeAfter(r *reader, b byte) error {
	switch b {
	case 0x70, 0x6f, 0x69:
		return nil
	case 0x63, 0x64:
		return r.leb(5) // s33 heap type
	}
	return fmt.Errorf("value type %#x", b)
}

// constExpr is a constant expression, read as wazero reads it, up to its end.
func constExpr(r *reader) error {
	for {
		op, err := r.byte()
		if err == nil {
			r.pos--
			err = constInstruction(r)
		}
		if err != nil || op == opEnd {
			return err
		}
	}
}

// constInstruction is one instruction of a constant expression.
func constInstruction(r *reader) error {
	op, err := r.byte()
	if err != nil {
		return err
	}
	switch op {
	case opEnd:
	case 0x41, 0x23, 0xd2: // i32.const, global.get, ref.func
		err = r.leb(5)
	case 0x42: // i64.const
		err = r.leb(10)
	case 0x43: // f32.const
		err = r.skip(4)
	case 0x44: // f64.const
		err = r.skip(8)
	case 0xd0: // ref.null
		var t byte
		if t, err = r.byte(); err == nil && t != 0x70 && t != 0x6f && t != 0x69 {
			r.pos--
			_, err = r.u32()
		}
	case 0xfd: // v128.const
		var sub byte
		if sub, err = r.byte(); err == nil && sub != 0x0c {
			err = fmt.Errorf("constant expression opcode 0xfd %#x", sub)
		}
		if err == nil {
			err = r.skip(16)
		}
	default:
		err = fmt.Errorf("constant expression opcode %#x", op)
	}
	return err
}
