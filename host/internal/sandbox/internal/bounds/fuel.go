package bounds

import (
	"fmt"
	"slices"
)

// A deadline holds only if a running guest can be stopped, and a Go program
// that runs guest code holds only if that code lets the garbage collector
// stop the goroutine running it: machine code that never returns to Go
// cannot be preempted, so a guest in a long loop stalls every goroutine of
// the host at the next stop-the-world. wazero's answer, WithCloseOnContextDone,
// makes every loop header call out of the guest's code into Go: an
// unconditional indirect call, which also keeps the loop's values out of
// registers. Go guests, whose compiler turns every function into a loop
// around a br_table, ran 4.5 to 7 times slower under it, a tight WAT loop 14
// times.
//
// Instrument meters the guest instead, as fuel: a mutable global it adds,
// decremented at every function entry and loop head by a weight, and when it
// runs out, a call to the host's yield function (YieldImport), which
// returns to Go, checks the call's deadline and cancellation (trapping the
// guest if either is done) and returns a fresh tank. The common path is a
// load, a subtraction, a store and a branch not taken; the call out happens
// once per Fuel units.
//
// The weight of a checkpoint is one plus a 64th of the instructions of the
// function or loop body it heads. Forward code between two checkpoints is at
// most one body, so the guest runs at most about 64 × Fuel instructions
// between two yields however it is written: tight loops, huge straight-line
// loop bodies, or trees of calls without any loop (which wazero's own check
// at loop headers alone does not stop). That bounds both how late a deadline
// is noticed and how long the garbage collector may wait for a guest.

// Fuel is what the guest spends between two calls of the yield function.
const Fuel = 1 << 16

// Names that Instrument adds to a module. A module that imports or exports
// them itself is refused.
const (
	// YieldModule and YieldImport name the function Instrument imports: () ->
	// i32, called when the fuel runs out; it returns the new fuel, Fuel, or
	// traps to stop the guest.
	YieldModule = "wasmcp"
	YieldImport = "yield"
	// StartExport is the module's start function, when it has one: exported
	// for the host to call after instantiation, under the deadline, instead
	// of run by wazero while instantiating, when nothing can stop it.
	StartExport = "wasmcp:start"
)

// Section kinds, in the order the binary format requires them, for the
// sections Instrument may have to add.
var sectionOrder = map[byte]int{
	sectionType: 1, sectionImport: 2, sectionFunction: 3, sectionTable: 4, sectionMemory: 5,
	sectionTag: 6, sectionGlobal: 7, sectionExport: 8, sectionStart: 9, sectionElement: 10,
	sectionDataCount: 11, sectionCode: 12, sectionData: 13,
}

// section is a section of a module: its id and where it lies.
type section struct {
	id byte
	span
}

// Instrument returns wasm, a module that Check accepted, metered as
// described above, with its start function, if any, exported as StartExport
// instead of started. wasm is not modified. It refuses a module with an
// instruction outside WebAssembly 2.0, a function body that does not end
// where its size says, or an import or export of the names it adds; and,
// with an error wrapping ErrCompileCost, a module whose compilation would
// cost wazero more than CompileWorkPerByte a byte (cost.go).
func Instrument(wasm []byte) ([]byte, error) {
	if len(wasm) < len(header) || string(wasm[:len(header)]) != header {
		return wasm, nil // wazero refuses it
	}
	in, err := scanModule(wasm)
	if err != nil {
		return nil, err
	}
	return in.rewrite()
}

// scanModule returns the instrumenter of wasm with every section scanned.
func scanModule(wasm []byte) (*instrumenter, error) {
	in := &instrumenter{wasm: wasm}
	r := reader{b: wasm, pos: len(header), end: len(wasm)}
	for r.pos < r.end {
		start := r.pos
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, err
		}
		body, err := r.sub(uint64(size))
		if err == nil {
			err = in.scan(section{id, span{start, body.pos, body.end}}, body)
		}
		if err != nil {
			return nil, fmt.Errorf("%s at offset %d: %w", sectionName(id), start, err)
		}
	}
	return in, nil
}

// instrumenter collects what the rewrite needs from one module.
type instrumenter struct {
	wasm     []byte
	sections []section
	// types counts the function types: the yield function's is the next.
	types uint32
	// importedFuncs counts the imported functions: the yield function is
	// imported after them and takes their count as its index, so that every
	// function the module defines moves up by one.
	importedFuncs uint32
	// importedGlobals and globals count the globals: the fuel's index is
	// their sum.
	importedGlobals, globals uint32
	// start is the start function's index, if hasStart.
	start    uint32
	hasStart bool
	// blocks is instrumentBody's stack of open blocks.
	blocks []block
	// imports counts the imports of every kind.
	imports uint32
	// typeArity is the arity of each function type, and funcTypes the type
	// of each function the module defines, so that cost knows every
	// function's locals and every block's parameters and results.
	typeArity []arity
	funcTypes []uint32
	// mutableGlobals counts the mutable globals, and memory whether the
	// module has a memory: wazero reloads them after every call.
	mutableGlobals uint32
	memory         bool
	// cost counts the work of compiling the module (cost.go).
	cost costModel
}

// scan records s and what the rewrite needs from its body.
func (in *instrumenter) scan(s section, body reader) error {
	in.sections = append(in.sections, s)
	var err error
	switch s.id {
	case sectionType:
		in.types, err = body.u32()
		if err == nil {
			in.typeArity, err = scanTypes(body)
		}
	case sectionFunction:
		in.funcTypes, err = scanFunctions(body)
	case sectionImport:
		err = in.scanImports(body)
	case sectionGlobal:
		in.globals, err = in.scanGlobals(body)
	case sectionMemory:
		in.memory = true
	case sectionExport:
		err = scanExports(body)
	case sectionStart:
		in.start, err = body.u32()
		in.hasStart = true
	}
	return err
}

func (in *instrumenter) scanImports(r reader) error {
	n, err := r.count(4)
	in.imports = n
	for i := uint32(0); err == nil && i < n; i++ {
		var mod, name []byte
		var kind byte
		if mod, name, kind, err = readImport(&r); err != nil {
			break
		}
		switch {
		case string(mod) == YieldModule && string(name) == YieldImport:
			err = fmt.Errorf("import %s.%s: the name is reserved for the host", mod, name)
		case kind == 0:
			in.importedFuncs++
		case kind == 2:
			in.memory = true
		case kind == 3:
			in.importedGlobals++
			if r.b[r.pos-1] == 1 { // the global's mutability, read last
				in.mutableGlobals++
			}
		}
	}
	return err
}

// scanTypes returns the arity of each type of the type section r, after
// its count.
func scanTypes(r reader) ([]arity, error) {
	var ts []arity
	var err error
	for err == nil && r.pos < r.end {
		ts, err = appendTypes(ts, &r)
	}
	return ts, err
}

// scanFunctions returns the type of each function of the function section.
func scanFunctions(r reader) ([]uint32, error) {
	n, err := r.count(1)
	types := make([]uint32, 0, n)
	for i := uint32(0); err == nil && i < n; i++ {
		var t uint32
		t, err = r.u32()
		types = append(types, t)
	}
	return types, err
}

// scanGlobals reads the global section, which Check only counts, so that
// the rewrite can copy its entries without checking them again, and returns
// its count.
func (in *instrumenter) scanGlobals(r reader) (uint32, error) {
	n, err := r.count(3)
	for i := uint32(0); err == nil && i < n; i++ {
		if err = valueType(&r); err == nil {
			var mutable byte
			if mutable, err = r.byte(); err == nil {
				if mutable == 1 {
					in.mutableGlobals++
				}
				err = constExpr(&r)
			}
		}
	}
	if err == nil {
		err = r.done()
	}
	return n, err
}

func scanExports(r reader) error {
	n, err := r.count(3)
	for i := uint32(0); err == nil && i < n; i++ {
		var name []byte
		if name, err = r.name(); err != nil {
			break
		}
		if string(name) == StartExport {
			return fmt.Errorf("export %q: the name is reserved for the host", name)
		}
		if err = r.skip(1); err == nil {
			_, err = r.u32()
		}
	}
	return err
}

// rewrite assembles the instrumented module.
func (in *instrumenter) rewrite() ([]byte, error) {
	out := make([]byte, 0, len(in.wasm)+len(in.wasm)/4+64)
	out = append(out, header...)
	// Sections the rewrite adds to, written anew if the module lacks them.
	pending := []byte{sectionType, sectionImport, sectionGlobal, sectionExport}
	for _, s := range in.sections {
		for len(pending) > 0 && s.id != sectionCustom && sectionOrder[s.id] > sectionOrder[pending[0]] {
			out = in.appendSection(out, section{id: pending[0]})
			pending = pending[1:]
		}
		var err error
		switch s.id {
		case sectionType, sectionImport, sectionGlobal, sectionExport:
			pending = slices.DeleteFunc(pending, func(id byte) bool { return id == s.id })
			out = in.appendSection(out, s)
		case sectionStart: // exported instead
		case sectionElement:
			out, err = in.appendElements(out, s)
		case sectionCode:
			out, err = in.appendCode(out, s)
		case sectionCustom:
			out, err = in.appendCustom(out, s)
		default:
			out = append(out, in.wasm[s.start:s.end]...)
		}
		if err != nil {
			return nil, fmt.Errorf("%s at offset %d: %w", sectionName(s.id), s.start, err)
		}
	}
	for _, id := range pending {
		out = in.appendSection(out, section{id: id})
	}
	return out, nil
}

// fn maps a function index of the module to the instrumented module's.
func (in *instrumenter) fn(i uint32) uint32 {
	if i >= in.importedFuncs {
		return i + 1
	}
	return i
}

// appendVectorSection appends a section whose body is a vector: its count
// plus added, the entries body writes, then the entries more writes.
func appendVectorSection(out []byte, id byte, count uint32, added int, entries, more func([]byte) []byte) []byte {
	body := appendULEB(nil, uint64(count)+uint64(added))
	body = more(entries(body))
	out = append(out, id)
	out = appendULEB(out, uint64(len(body)))
	return append(out, body...)
}

// appendSection appends the type, import, global or export section s with
// what the instrumentation adds to it; s without a body is a section the
// module lacks.
func (in *instrumenter) appendSection(out []byte, s section) []byte {
	r := reader{b: in.wasm, pos: s.body, end: s.end}
	var n uint32
	if s.end > s.body {
		n, _ = r.u32() // read once already by scan
	}
	verbatim := func(b []byte) []byte { return append(b, in.wasm[r.pos:s.end]...) }
	switch s.id {
	case sectionType:
		return appendVectorSection(out, s.id, n, 1, verbatim, func(b []byte) []byte {
			return append(b, 0x60, 0x00, 0x01, 0x7f) // () -> i32
		})
	case sectionImport:
		return appendVectorSection(out, s.id, n, 1, verbatim, func(b []byte) []byte {
			b = appendName(b, YieldModule)
			b = appendName(b, YieldImport)
			return appendULEB(append(b, 0x00), uint64(in.types)) // a function of the added type
		})
	case sectionGlobal:
		// scanGlobals has read every entry: none fails here.
		return appendVectorSection(out, s.id, n, 1, func(b []byte) []byte {
			for i := uint32(0); i < n; i++ {
				start := r.pos
				_ = valueType(&r)
				r.pos++ // mutability
				b = append(b, in.wasm[start:r.pos]...)
				b, _ = in.appendConstExpr(b, &r)
			}
			return b
		}, func(b []byte) []byte {
			b = append(b, 0x7f, 0x01, opI32Const) // mutable i32, the fuel
			b = appendSLEB(b, Fuel)
			return append(b, opEnd)
		})
	}
	added := 0
	if in.hasStart {
		added = 1
	}
	return appendVectorSection(out, s.id, n, added, func(b []byte) []byte {
		for i := uint32(0); i < n; i++ {
			start := r.pos
			_, _ = r.name()
			kind := in.wasm[r.pos]
			r.pos++
			at := r.pos
			index, _ := r.u32()
			b = append(b, in.wasm[start:at]...)
			if kind == 0 {
				index = in.fn(index)
			}
			b = appendULEB(b, uint64(index))
		}
		return b
	}, func(b []byte) []byte {
		if in.hasStart {
			b = appendName(b, StartExport)
			b = appendULEB(append(b, 0x00), uint64(in.fn(in.start)))
		}
		return b
	})
}

// appendConstExpr appends the constant expression r holds, up to its end,
// with the function of a ref.func moved.
func (in *instrumenter) appendConstExpr(out []byte, r *reader) ([]byte, error) {
	run := r.pos
	for {
		op, err := r.byte()
		if err != nil {
			return nil, err
		}
		if op == opRefFunc {
			out = append(out, in.wasm[run:r.pos]...)
			f, err := r.u32()
			if err != nil {
				return nil, err
			}
			out = appendULEB(out, uint64(in.fn(f)))
			run = r.pos
			continue
		}
		r.pos--
		if err := constInstruction(r); err != nil {
			return nil, err
		}
		if op == opEnd {
			return append(out, in.wasm[run:r.pos]...), nil
		}
	}
}

// appendElements appends the element section s with the functions its
// segments list moved.
func (in *instrumenter) appendElements(out []byte, s section) ([]byte, error) {
	r := reader{b: in.wasm, pos: s.body, end: s.end}
	n, err := r.count(2)
	if err != nil {
		return nil, err
	}
	body := appendULEB(make([]byte, 0, s.end-s.body+16), uint64(n))
	for i := uint32(0); i < n; i++ {
		if body, err = in.appendElementSegment(body, &r); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
	}
	out = append(out, sectionElement)
	out = appendULEB(out, uint64(len(body)))
	return append(out, body...), nil
}

// appendElementSegment appends one of the eight forms of a segment (see
// elementSegment), with its functions moved.
func (in *instrumenter) appendElementSegment(out []byte, r *reader) ([]byte, error) {
	start := r.pos
	form, err := r.u32()
	if err != nil {
		return nil, err
	}
	if form&1 == 0 {
		if form&2 != 0 {
			_, err = r.u32() // table
		}
		if err == nil {
			out = append(out, in.wasm[start:r.pos]...)
			out, err = in.appendConstExpr(out, r) // offset
		}
		start = r.pos
	}
	if err == nil && form&3 != 0 {
		err = r.skip(1) // element kind, or the first byte of a reference type
		if err == nil && form&4 != 0 {
			err = refTypeAfter(r, in.wasm[r.pos-1])
		}
	}
	var count uint32
	if err == nil {
		count, err = r.count(1)
	}
	if err != nil {
		return nil, err
	}
	out = append(out, in.wasm[start:r.pos]...)
	for i := uint32(0); i < count && err == nil; i++ {
		if form&4 != 0 {
			out, err = in.appendConstExpr(out, r)
			continue
		}
		var f uint32
		if f, err = r.u32(); err == nil {
			out = appendULEB(out, uint64(in.fn(f)))
		}
	}
	return out, err
}

// appendCustom appends the custom section s: as it is, unless it is the
// name section, whose function and local names are indexed by function.
func (in *instrumenter) appendCustom(out []byte, s section) ([]byte, error) {
	r := reader{b: in.wasm, pos: s.body, end: s.end}
	name, err := r.name()
	if err != nil || string(name) != "name" {
		return append(out, in.wasm[s.start:s.end]...), nil
	}
	body := appendName(make([]byte, 0, s.end-s.body+16), "name")
	for r.pos < r.end {
		id, _ := r.byte()
		size, _ := r.u32()
		sub, err := r.sub(uint64(size))
		if err != nil {
			return nil, err
		}
		if id != 1 && id != 2 { // not function or local names
			body = append(body, id)
			body = appendULEB(body, uint64(size))
			body = append(body, in.wasm[sub.pos:sub.end]...)
			continue
		}
		n, err := sub.u32()
		if err != nil {
			return nil, err
		}
		names := appendULEB(nil, uint64(n))
		for i := uint32(0); i < n; i++ {
			f, err := sub.u32()
			if err != nil {
				return nil, err
			}
			names = appendULEB(names, uint64(in.fn(f)))
			start := sub.pos
			if id == 1 {
				_, err = sub.name()
			} else {
				var m uint32
				m, err = sub.count(2)
				for j := uint32(0); err == nil && j < m; j++ {
					err = nameAssoc(&sub)
				}
			}
			if err != nil {
				return nil, err
			}
			names = append(names, in.wasm[start:sub.pos]...)
		}
		body = append(body, id)
		body = appendULEB(body, uint64(len(names)))
		body = append(body, names...)
	}
	out = append(out, sectionCustom)
	out = appendULEB(out, uint64(len(body)))
	return append(out, body...), nil
}

func appendName(b []byte, name string) []byte {
	return append(appendULEB(b, uint64(len(name))), name...)
}

// appendSLEB appends v as a signed LEB128 number.
func appendSLEB(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
