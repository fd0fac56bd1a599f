package bounds

import "fmt"

// The types and constant expressions that several sections contain.

// typeEntry is a function type, or a recursion group of them.
func typeEntry(r *reader) error {
	b, err := r.byte()
	if err != nil {
		return err
	}
	if b != 0x4e { // not a rec group: b starts a function type
		return funcType(r, b)
	}
	n, err := r.count(3)
	for i := uint32(0); err == nil && i < n; i++ {
		if b, err = r.byte(); err == nil {
			err = funcType(r, b)
		}
	}
	return err
}

// funcType is a function type after its first byte b.
func funcType(r *reader, b byte) error {
	if b != 0x60 {
		return fmt.Errorf("function type starts with %#x", b)
	}
	for range 2 { // parameters, results
		n, err := r.count(1)
		for i := uint32(0); err == nil && i < n; i++ {
			err = valueType(r)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// tableType is a table type, with wazero's optional initializer prefix. It
// returns the table's initial size.
func tableType(r *reader) (uint32, error) {
	b, err := r.byte()
	if err != nil {
		return 0, err
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
	var min uint32
	if err == nil {
		err = refTypeAfter(r, b)
	}
	if err == nil {
		min, err = limits(r)
	}
	if err == nil && init {
		err = constExpr(r)
	}
	return min, err
}

// limits is a flag, a minimum and, for flags 1 and 3, a maximum. It returns
// the minimum.
func limits(r *reader) (uint32, error) {
	flag, err := r.byte()
	if err != nil {
		return 0, err
	}
	if flag > 3 {
		return 0, fmt.Errorf("limits flag %#x", flag)
	}
	min, err := r.u32()
	if err == nil && flag&1 == 1 {
		_, err = r.u32()
	}
	return min, err
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
		if err != nil {
			return err
		}
		switch op {
		case 0x0b: // end
			return nil
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
		if err != nil {
			return err
		}
	}
}
