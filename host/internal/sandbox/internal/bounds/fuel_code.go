package bounds

import "fmt"

// checkpoint is the code Instrument writes at the start of every function
// and at the head of every loop (see fuel.go):
//
//	global.get $fuel
//	i32.const  weight    ;; always 5 bytes, written once the body is known
//	i32.sub
//	global.set $fuel
//	global.get $fuel     ;; wazero reuses the value just set: no load
//	i32.const  1
//	i32.lt_s
//	if
//	  call $yield        ;; returns the new fuel, or traps
//	  global.set $fuel
//	end
type checkpoint struct {
	prefix, suffix []byte // around the weight
}

// paddedLen is the length of a number written after what it measures or
// weighs: a LEB128 number padded to five bytes, which the binary format
// allows for 32-bit numbers.
const paddedLen = 5

// padding holds the place of a padded number.
var padding = make([]byte, paddedLen)

func newCheckpoint(fuel, yield uint32) checkpoint {
	g := appendULEB(nil, uint64(fuel))
	prefix := append(append([]byte{0x23}, g...), opI32Const)
	suffix := append([]byte{0x6b, 0x24}, g...)                  // i32.sub, global.set
	suffix = append(append(suffix, 0x23), g...)                 // global.get
	suffix = append(suffix, opI32Const, 0x01, 0x48, 0x04, 0x40) // i32.const 1, i32.lt_s, if
	suffix = appendULEB(append(suffix, opCall), uint64(yield))
	suffix = append(append(suffix, 0x24), g...) // global.set
	return checkpoint{prefix, append(suffix, opEnd)}
}

// appendTo appends the checkpoint with a zero weight and returns where its
// weight lies.
func (c checkpoint) appendTo(out []byte) ([]byte, int) {
	out = append(out, c.prefix...)
	at := len(out)
	out = append(out, 0x80, 0x80, 0x80, 0x80, 0x00)
	return append(out, c.suffix...), at
}

// setWeight writes the weight of a checkpoint heading a body of n
// instructions at out[at:].
func setWeight(out []byte, at, n int) {
	setPadded(out[at:], min(1+n/64, Fuel))
}

// setPadded writes v, which is below 2^31, to b in paddedLen bytes: as an
// unsigned and as a signed number alike.
func setPadded(b []byte, v int) {
	for i := range paddedLen - 1 {
		b[i] = byte(v>>(7*i))&0x7f | 0x80
	}
	b[paddedLen-1] = byte(v >> (7 * (paddedLen - 1)))
}

// appendCode appends the code section s with checkpoints added and calls
// moved to the instrumented module's function indices. The section and the
// bodies are written in place, their sizes patched in afterwards in padded
// five-byte numbers: a module of megabytes is then copied once.
func (in *instrumenter) appendCode(out []byte, s section) ([]byte, error) {
	r := reader{b: in.wasm, pos: s.body, end: s.end}
	n, err := r.count(3)
	if err != nil {
		return nil, err
	}
	c := newCheckpoint(in.importedGlobals+in.globals, in.importedFuncs)
	in.cost.importedFuncs, in.cost.types = in.importedFuncs, in.typeArity
	in.cost.limit = compileLimit(uint64(len(in.wasm)))
	// After a call, wazero reloads every mutable global, the fuel's too,
	// and the memory's base and size.
	in.cost.reloads = uint64(in.mutableGlobals) + 1
	if in.memory {
		in.cost.reloads += 2
	}
	out = append(out, sectionCode)
	sectionSize := len(out)
	out = appendULEB(append(out, padding...), uint64(n))
	for i := uint32(0); i < n; i++ {
		size, err := r.u32()
		if err != nil {
			return nil, err
		}
		code, err := r.sub(uint64(size))
		if err != nil {
			return nil, err
		}
		bodySize := len(out)
		out = append(out, padding...)
		if out, err = in.instrumentBody(out, code, c, i); err != nil {
			return nil, fmt.Errorf("function body %d: %w", i, err)
		}
		setPadded(out[bodySize:], len(out)-bodySize-paddedLen)
	}
	if err := r.done(); err != nil {
		return nil, err
	}
	// With the type, import and global the instrumentation adds.
	err = in.cost.check(uint64(len(in.wasm)), uint64(len(in.typeArity))+1, uint64(in.importedGlobals+in.globals)+1,
		uint64(in.imports)+1, uint64(n))
	if err != nil {
		return nil, err
	}
	setPadded(out[sectionSize:], len(out)-sectionSize-paddedLen)
	return out, nil
}

// block is a block, loop or if the instrumenter is inside of, or the
// function itself.
type block struct {
	weightAt int // where the weight of its checkpoint lies in out; 0 if none
	start    int // the number of instructions before it
}

// instrumentBody appends to out the body r of function fn (counted from
// the first the module defines), its locals and code, with a checkpoint at
// its start and after every loop's block type, and calls and ref.func
// moved. It follows the code in in.cost.
func (in *instrumenter) instrumentBody(out []byte, r reader, c checkpoint, fn uint32) ([]byte, error) {
	start := r.pos
	groups, err := r.count(2)
	var variables uint64
	for i := uint32(0); err == nil && i < groups; i++ {
		var n uint32
		if n, err = r.u32(); err == nil {
			variables += uint64(n)
			err = valueType(&r)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("locals: %w", err)
	}
	var a arity
	if int(fn) < len(in.funcTypes) && int(in.funcTypes[fn]) < len(in.typeArity) {
		a = in.typeArity[in.funcTypes[fn]]
	}
	in.cost.begin(fn, variables+uint64(a.params), a.results)
	in.cost.checkpoint()
	out = append(out, r.b[start:r.pos]...)
	out, at := c.appendTo(out)
	blocks := append(in.blocks[:0], block{weightAt: at})
	defer func() { in.blocks = blocks }() // reused by the next body

	run := r.pos // the first byte not yet copied to out
	count := 0   // instructions read
	for r.pos < r.end {
		at := r.pos
		op := r.b[r.pos]
		r.pos++
		if err := instruction(&r, op); err != nil {
			return nil, fmt.Errorf("offset %d: %w", at, err)
		}
		count++
		in.cost.instruction(op, r.b[at+1:r.pos])
		switch op {
		case opCall, opRefFunc:
			index := reader{b: r.b, pos: at + 1, end: r.pos}
			f, _ := index.u32()
			out = append(out, r.b[run:at+1]...)
			out = appendULEB(out, uint64(in.fn(f)))
			run = r.pos
		case opLoop:
			out = append(out, r.b[run:r.pos]...)
			var w int
			out, w = c.appendTo(out)
			in.cost.checkpoint()
			blocks = append(blocks, block{weightAt: w, start: count})
			run = r.pos
		case opBlock, opIf:
			blocks = append(blocks, block{start: count})
		case opEnd:
			b := blocks[len(blocks)-1]
			blocks = blocks[:len(blocks)-1]
			if b.weightAt != 0 {
				setWeight(out, b.weightAt, count-b.start)
			}
			if len(blocks) > 0 {
				continue
			}
			if r.pos != r.end {
				return nil, fmt.Errorf("offset %d: code after the function's end", r.pos)
			}
			in.cost.end()
			return append(out, r.b[run:r.pos]...), nil
		}
	}
	return nil, fmt.Errorf("%w: the function does not end", errTruncated)
}
