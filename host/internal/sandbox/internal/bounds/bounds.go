// Package bounds checks, before wazero decodes a module, that every count
// and length in the module's binary fits in the bytes that follow it, and
// that the module's tables start small and cannot grow past a maximum.
//
// wazero's decoder (v1.12) allocates what a count or a length says before it
// reads the elements: a vector of 2^32 exports, a name of 4 GiB, 2^32 locals.
// A module of a dozen bytes can so make the host allocate tens of gigabytes,
// and the Go runtime ends the whole process when an allocation fails. Check
// walks the binary in the order wazero decodes it and refuses such a module
// before any of that happens, so that what wazero allocates while decoding
// stays within a small multiple of the module's size. Tables are allocated
// when a module is instantiated, 8 bytes an element, and five bytes ask for
// 2^27 elements: Check also bounds their initial sizes. They grow at run time
// by whatever table.grow asks, up to their declared maximum and with no
// limit of wazero's own, so Check gives every table a maximum (tables.go),
// which the sandbox counts against the instance's memory limit.
//
// Instrument (fuel.go), which meters the guest, also refuses a module whose
// compilation would take wazero time growing faster than the module's size
// (cost.go).
//
// Check follows the binary format of the features wazero enables by default
// (WebAssembly 2.0: bulk memory, multi-value, reference types, SIMD, ...).
// It reads each part the way wazero does, so that the counts it checks are
// the ones wazero uses; a part it cannot read is refused rather than
// skipped. It validates nothing else: wazero does that afterwards.
package bounds

import (
	"errors"
	"fmt"

	"github.com/tetratelabs/wazero/api"
)

// Features are the WebAssembly features whose binary format Check and
// Instrument read, those of WebAssembly 2.0: the runtime that compiles what
// they return must enable these and no others. They are wazero's defaults
// (v1.12), named one by one so that a wazero whose defaults change fails
// TestFeatures rather than have its new instructions met here unread.
const Features = api.CoreFeatureMutableGlobal | api.CoreFeatureBulkMemoryOperations | api.CoreFeatureMultiValue |
	api.CoreFeatureNonTrappingFloatToIntConversion | api.CoreFeatureReferenceTypes | api.CoreFeatureSignExtensionOps |
	api.CoreFeatureSIMD

// Limits of the WebAssembly JavaScript API, which browsers enforce, so that
// no module that runs in a browser is refused for them.
const (
	// MaxFunctionLocals is the most locals one function may declare. Locals
	// cost wazero's decoder 8 bytes each and its compiler more, while two
	// bytes of a module declare 2^32 of them.
	MaxFunctionLocals = 50000
	// MaxTableElements is the most elements the tables of a module may have,
	// all tables together (80 MB): when it is instantiated, and after any
	// table.grow.
	MaxTableElements = 10_000_000
)

// Section ids of the binary format.
const (
	sectionCustom    = 0
	sectionType      = 1
	sectionImport    = 2
	sectionFunction  = 3
	sectionTable     = 4
	sectionMemory    = 5
	sectionGlobal    = 6
	sectionExport    = 7
	sectionStart     = 8
	sectionElement   = 9
	sectionCode      = 10
	sectionData      = 11
	sectionDataCount = 12
	sectionTag       = 13
)

var sectionNames = [...]string{"custom", "type", "import", "function", "table", "memory", "global",
	"export", "start", "element", "code", "data", "data count", "tag"}

// header is the magic number and version 1 that start every module.
const header = "\x00asm\x01\x00\x00\x00"

// Check returns an error if a count or length in wasm exceeds the bytes
// that could hold what it counts, if a function declares more than
// MaxFunctionLocals locals, if the module declares in all more locals than
// it has bytes plus MaxFunctionLocals, if its tables start with more than
// MaxTableElements elements, if it imports a table, or if a part of the
// binary cannot be read.
//
// Otherwise it returns the module to compile: wasm itself when every table
// declares a maximum and they leave the tables at most growth elements
// beyond their initial sizes, and MaxTableElements in all; else a copy
// whose table section lowers them so that they do, and sets the maximum of
// a table that declares none to its initial size (see tableMaxima). wasm is
// never modified. A table.grow past its table's
// maximum returns -1 to the guest, as the specification allows. A module
// that does not start like a WebAssembly binary is returned as it is, for
// wazero to refuse.
func Check(wasm []byte, growth uint64) ([]byte, error) {
	if len(wasm) < len(header) || string(wasm[:len(header)]) != header {
		return wasm, nil // wazero refuses it before allocating anything
	}
	c := checker{
		r:           reader{b: wasm, pos: len(header), end: len(wasm)},
		localBudget: uint64(len(wasm)) + MaxFunctionLocals,
		tableBudget: MaxTableElements,
	}
	for c.r.pos < c.r.end {
		start := c.r.pos
		id, err := c.r.byte()
		if err != nil {
			return nil, err
		}
		size, err := c.r.u32()
		if err != nil {
			return nil, err
		}
		body, err := c.r.sub(uint64(size))
		if err == nil && id == sectionTable {
			err = c.tableSection(start, body)
		}
		if err == nil {
			err = c.section(id, &body)
		}
		if err != nil {
			return nil, fmt.Errorf("%s at offset %d: %w", sectionName(id), start, err)
		}
	}
	return c.capTables(growth), nil
}

func sectionName(id byte) string {
	if int(id) < len(sectionNames) {
		return sectionNames[id] + " section"
	}
	return fmt.Sprintf("section %d", id)
}

// checker walks one module.
type checker struct {
	r reader
	// localBudget is how many more locals the module's functions may
	// declare: one per byte of the module, plus one function's worth, so
	// that a small module may have a function with many. Compilers use a
	// few percent of that.
	localBudget uint64
	// tableBudget is how many more elements the module's tables may start
	// with.
	tableBudget uint64
	// tables are the limits of the tables the table section declares, in
	// order, and table is where that section lies.
	tables []limitsType
	table  *span
}

// section checks the body of one section. Sections whose elements wazero
// decodes without allocating by a size need only their count checked.
func (c *checker) section(id byte, r *reader) error {
	switch id {
	case sectionCustom:
		return customSection(r)
	case sectionType:
		// An empty recursion group takes 2 bytes; wazero does not allocate
		// by this count, but no count may exceed the bytes.
		return vector(r, 1, typeEntry)
	case sectionImport:
		return vector(r, 4, importEntry)
	case sectionExport:
		return vector(r, 3, exportEntry)
	case sectionElement:
		return vector(r, 2, elementSegment)
	case sectionCode:
		return vector(r, 3, c.codeEntry)
	case sectionData:
		return vector(r, 2, dataSegment)
	case sectionTable:
		return vector(r, 3, c.tableEntry)
	case sectionFunction, sectionGlobal, sectionTag:
		_, err := r.count(1)
		return err
	}
	// Memory (one limits, checked by the sandbox), start and data count
	// (one index): nothing to allocate. An unknown id: wazero refuses it.
	return nil
}

// vector checks a vector whose elements take at least minSize bytes each,
// then each element with entry, and that the elements fill r exactly.
func vector(r *reader, minSize uint64, entry func(*reader) error) error {
	n, err := r.count(minSize)
	if err != nil {
		return err
	}
	for i := uint32(0); i < n; i++ {
		if err := entry(r); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
	}
	return r.done()
}

// customSection checks a custom section's name and, for the "name"
// section, which wazero decodes, its subsections.
func customSection(r *reader) error {
	name, err := r.name()
	if err != nil {
		return err
	}
	if string(name) != "name" {
		return nil // wazero copies or skips the rest, within the section
	}
	for r.pos < r.end {
		id, err := r.byte()
		if err != nil {
			return err
		}
		size, err := r.u32()
		if err != nil {
			return err
		}
		sub, err := r.sub(uint64(size))
		if err != nil {
			return fmt.Errorf("name subsection %d: %w", id, err)
		}
		switch id {
		case 0: // module name
			_, err = sub.name()
			if err == nil {
				err = sub.done()
			}
		case 1: // function names
			err = vector(&sub, 2, nameAssoc)
		case 2: // local names
			err = vector(&sub, 2, func(r *reader) error {
				if _, err := r.u32(); err != nil {
					return err
				}
				n, err := r.count(2)
				for i := uint32(0); err == nil && i < n; i++ {
					err = nameAssoc(r)
				}
				return err
			})
		}
		if err != nil {
			return fmt.Errorf("name subsection %d: %w", id, err)
		}
	}
	return nil
}

// nameAssoc is an index and a name.
func nameAssoc(r *reader) error {
	if _, err := r.u32(); err != nil {
		return err
	}
	_, err := r.name()
	return err
}

// importEntry is a module name, a name and a description. A table import
// is refused: no host module of the sandbox exports a table, so that the
// module could not be instantiated anyway, and the maximum of an imported
// table is its exporter's, out of Check's reach.
func importEntry(r *reader) error {
	mod, name, kind, err := readImport(r)
	if err == nil && kind == 1 {
		err = fmt.Errorf("import %s.%s: table imports are not provided", mod, name)
	}
	return err
}

// readImport reads an import and returns its names and kind.
func readImport(r *reader) (mod, name []byte, kind byte, err error) {
	if mod, err = r.name(); err != nil {
		return
	}
	if name, err = r.name(); err != nil {
		return
	}
	if kind, err = r.byte(); err != nil {
		return
	}
	switch kind {
	case 0: // function: type index
		_, err = r.u32()
	case 1:
		_, err = tableType(r)
	case 2:
		_, err = limits(r)
	case 3:
		if err = valueType(r); err == nil {
			_, err = r.byte() // mutability
		}
	default: // 4, a tag, needs exception handling, which is off
		err = fmt.Errorf("import of kind %#x", kind)
	}
	return
}

// exportEntry is a name, a kind and an index.
func exportEntry(r *reader) error {
	if _, err := r.name(); err != nil {
		return err
	}
	if _, err := r.byte(); err != nil {
		return err
	}
	_, err := r.u32()
	return err
}

// elementSegment is one of the eight forms of an element segment.
func elementSegment(r *reader) error {
	form, err := r.u32()
	if err != nil {
		return err
	}
	if form > 7 {
		return fmt.Errorf("element segment form %d", form)
	}
	const (
		passiveOrDeclarative = 1
		explicitTable        = 2
		expressions          = 4
	)
	if form&passiveOrDeclarative == 0 {
		if form&explicitTable != 0 {
			if _, err := r.u32(); err != nil {
				return err
			}
		}
		if err := constExpr(r); err != nil {
			return err
		}
	}
	if form&(passiveOrDeclarative|explicitTable) != 0 { // an element kind or a reference type
		b, err := r.byte()
		if err != nil {
			return err
		}
		if form&expressions != 0 {
			err = refTypeAfter(r, b)
		} else if b != 0 {
			err = fmt.Errorf("element kind %#x", b)
		}
		if err != nil {
			return err
		}
	}
	n, err := r.count(1)
	for i := uint32(0); err == nil && i < n; i++ {
		if form&expressions != 0 {
			err = constExpr(r)
		} else {
			_, err = r.u32() // function index
		}
	}
	return err
}

// codeEntry is a function body: its size, then its locals, whose count it
// bounds, then the code, which wazero copies within the size.
func (c *checker) codeEntry(r *reader) error {
	size, err := r.u32()
	if err != nil {
		return err
	}
	body, err := r.sub(uint64(size))
	if err != nil {
		return err
	}
	groups, err := body.count(2)
	if err != nil {
		return err
	}
	var locals uint64
	for i := uint32(0); i < groups; i++ {
		n, err := body.u32()
		if err == nil {
			err = valueType(&body)
		}
		if err != nil {
			return err
		}
		locals += uint64(n)
		if locals > MaxFunctionLocals {
			return fmt.Errorf("more than %d locals", MaxFunctionLocals)
		}
	}
	if locals > c.localBudget {
		return fmt.Errorf("the module declares more than %d locals in all (its size plus %d)",
			len(c.r.b)+MaxFunctionLocals, MaxFunctionLocals)
	}
	c.localBudget -= locals
	return nil
}

// tableEntry is a table type, whose initial size it bounds and whose
// limits it records for capTables.
func (c *checker) tableEntry(r *reader) error {
	l, err := tableType(r)
	if err != nil {
		return err
	}
	if uint64(l.min) > c.tableBudget {
		return fmt.Errorf("tables of more than %d elements in all", MaxTableElements)
	}
	c.tableBudget -= uint64(l.min)
	c.tables = append(c.tables, l)
	return nil
}

// dataSegment is one of the three forms of a data segment.
func dataSegment(r *reader) error {
	form, err := r.u32()
	if err != nil {
		return err
	}
	switch form {
	case 0:
		err = constExpr(r)
	case 1:
	case 2:
		if _, err = r.u32(); err == nil { // memory index
			err = constExpr(r)
		}
	default:
		err = fmt.Errorf("data segment form %d", form)
	}
	if err != nil {
		return err
	}
	n, err := r.count(1)
	if err == nil {
		err = r.skip(uint64(n))
	}
	return err
}

// errTruncated is the error of a read past the end of a region.
var errTruncated = errors.New("unexpected end")
