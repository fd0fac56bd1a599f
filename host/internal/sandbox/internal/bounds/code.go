package bounds

import "fmt"

// Instructions of a function body, decoded only as far as needed to find
// where each one ends and where loops begin: the opcodes and immediates of
// the features wazero enables by default (WebAssembly 2.0). Exception
// handling, tail calls, threads, typed function references and GC are off in
// the sandbox's runtime; their instructions are refused here rather than
// guessed at.

// Opcodes that open or close a block, or carry immediates of their own.
const (
	opUnreachable = 0x00
	opBlock       = 0x02
	opLoop        = 0x03
	opIf          = 0x04
	opElse        = 0x05
	opEnd         = 0x0b
	opBr          = 0x0c
	opBrIf        = 0x0d
	opBrTable     = 0x0e
	opReturn      = 0x0f
	opCall        = 0x10
	opCallIndir   = 0x11
	opSelectTyped = 0x1c
	opLocalGet    = 0x20
	opLocalSet    = 0x21
	opLocalTee    = 0x22
	opGlobalGet   = 0x23
	opTableSet    = 0x26
	opLoadFirst   = 0x28
	opLoadLast    = 0x35
	opStoreFirst  = 0x36
	opStoreLast   = 0x3e
	opMemorySize  = 0x3f
	opMemoryGrow  = 0x40
	opI32Const    = 0x41
	opI64Const    = 0x42
	opF32Const    = 0x43
	opF64Const    = 0x44
	opRefNull     = 0xd0
	opRefFunc     = 0xd2
	opPrefixMisc  = 0xfc
	opPrefixSIMD  = 0xfd
)

// Instructions of the 0xfc prefix that wazero lowers to loops.
const (
	miscMemoryFill = 11
	miscTableFill  = 17
)

// shape is how the immediates of an opcode are laid out, where a table can
// say it.
type shape uint8

const (
	shapeOther shape = iota // see instruction
	shapeNone               // no immediate
	shapeLEB5               // one LEB128 number of at most 5 bytes
	shapeLEB10              // one LEB128 number of at most 10 bytes
)

var shapes = func() (t [256]shape) {
	for i := range t {
		switch op := byte(i); {
		case noImmediate(op):
			t[i] = shapeNone
		// A block type (empty, a value type or a type index, s33), a label,
		// a function, local, global or table index, a memory index, an i32
		// constant, or ref.null's heap type (s33).
		case op == opBlock, op == opLoop, op == opIf, op == opBr, op == opBrIf, op == opCall, op == opRefFunc,
			op >= opLocalGet && op <= opTableSet, op == opMemorySize, op == opMemoryGrow, op == opI32Const,
			op == opRefNull:
			t[i] = shapeLEB5
		case op == opI64Const:
			t[i] = shapeLEB10
		}
	}
	return t
}()

// noImmediate reports whether op is an instruction of WebAssembly 2.0 that
// has no immediate: control (unreachable, nop, else, end, return), drop,
// select, every numeric instruction, and ref.is_null.
func noImmediate(op byte) bool {
	switch {
	case op <= 0x01, op == 0x05, op == opEnd, op == 0x0f, op == 0x1a, op == 0x1b:
		return true
	case op >= 0x45 && op <= 0xc4:
		return true
	}
	return op == 0xd1
}

// instruction reads the immediates of the instruction whose opcode, op, was
// just read.
func instruction(r *reader, op byte) (err error) {
	// Most instructions of a body have no immediate or one number: decide
	// those by table.
	switch shapes[op] {
	case shapeNone:
		return nil
	case shapeLEB5:
		return r.leb(5)
	case shapeLEB10:
		return r.leb(10)
	}
	switch {
	case op == opBrTable:
		var n uint32
		if n, err = r.count(1); err == nil {
			err = skipU32s(r, uint64(n)+1)
		}
	case op == opCallIndir:
		err = skipU32s(r, 2) // type and table
	case op == opSelectTyped:
		var n uint32
		n, err = r.count(1)
		for i := uint32(0); err == nil && i < n; i++ {
			err = valueType(r)
		}
	case op >= opLoadFirst && op <= opStoreLast:
		err = memarg(r)
	case op == opF32Const:
		err = r.skip(4)
	case op == opF64Const:
		err = r.skip(8)
	case op == opPrefixMisc:
		err = miscInstruction(r)
	case op == opPrefixSIMD:
		err = simdInstruction(r)
	default:
		err = fmt.Errorf("instruction %#x is not supported", op)
	}
	return err
}

// miscInstruction reads the rest of a 0xfc instruction: saturating
// truncation, bulk memory and table instructions.
func miscInstruction(r *reader) error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub <= 7: // i32.trunc_sat_f32_s ... i64.trunc_sat_f64_u
		return nil
	case sub == 8, sub == 10, sub == 12, sub == 14: // memory.init, memory.copy, table.init, table.copy
		return skipU32s(r, 2)
	case sub <= 17: // data.drop, memory.fill, elem.drop, table.grow, table.size, table.fill
		return skipU32s(r, 1)
	}
	return fmt.Errorf("instruction 0xfc %d is not supported", sub)
}

// simdInstruction reads the rest of a 0xfd instruction of fixed-width SIMD.
func simdInstruction(r *reader) error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub <= 0x0b, sub == 0x5c, sub == 0x5d: // loads and v128.store, load32_zero, load64_zero
		return memarg(r)
	case sub == 0x0c, sub == 0x0d: // v128.const, i8x16.shuffle
		return r.skip(16)
	case sub >= 0x15 && sub <= 0x22: // extract_lane, replace_lane
		return r.skip(1)
	case sub >= 0x54 && sub <= 0x5b: // load_lane, store_lane
		if err := memarg(r); err != nil {
			return err
		}
		return r.skip(1)
	case sub <= 0xff:
		return nil
	}
	return fmt.Errorf("instruction 0xfd %d is not supported", sub)
}

// memarg is an alignment, with a memory index when its bit 6 says so
// (multiple memories), and an offset.
func memarg(r *reader) error {
	align, err := r.u32()
	if err == nil && align&0x40 != 0 {
		_, err = r.u32()
	}
	if err == nil {
		err = r.leb(10)
	}
	return err
}

func skipU32s(r *reader, n uint64) error {
	for ; n > 0; n-- {
		if _, err := r.u32(); err != nil {
			return err
		}
	}
	return nil
}
