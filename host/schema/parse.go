package schema

import (
	"encoding/json"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is how deeply encoding/json, and so decodeReference, lets
// arrays and objects nest.
const maxDepth = 10000

// parser decodes a document in one pass into the values of
// jsonschema.UnmarshalJSON. It handles every document that decodeReference
// accepts and declines every other: it reports no errors, since the
// reference words them.
type parser struct {
	cursor
	// src is doc, copied once: the strings without escapes and the numbers
	// are slices of it rather than a copy each. The copy lives as long as
	// any of them: a validation for arguments, the compiled schema for a
	// schema, whose document is small.
	src   string
	depth int
	// Scratch stacks of the elements and members of the arrays and objects
	// being read, so that each is made once, at its size. buf is where a
	// string with escapes is decoded.
	elems   []any
	members []member
	buf     []byte
}

type member struct {
	name  string
	value any
}

// parse decodes doc, or reports ok false if doc is not JSON, nests deeper
// than maxDepth, has an object with a repeated name or a number whose
// exponent is beyond ±maxExponent.
func parse(doc []byte) (_ any, ok bool) {
	p := parsers.Get().(*parser)
	defer p.release()
	p.doc, p.src, p.pos, p.depth = doc, string(doc), 0, 0
	v, ok := p.value()
	// jsonschema.UnmarshalJSON refuses anything but space after the value.
	if p.space(); !ok || p.pos != len(doc) {
		return nil, false
	}
	return v, true
}

// parsers keeps the scratch stacks from one document to the next.
var parsers = sync.Pool{New: func() any { return new(parser) }}

// maxScratch is how many elements or members, and bytes of a string, a
// pooled parser keeps room for: a large document's would stay in memory.
const maxScratch = 1 << 10

// release returns p to parsers unless its scratch grew too large.
func (p *parser) release() {
	if p.reset(); cap(p.elems) <= maxScratch && cap(p.members) <= maxScratch && cap(p.buf) <= maxScratch {
		parsers.Put(p)
	}
}

// reset lets go of the document and its values, which a declined document
// leaves on the stacks: a pooled parser must not keep them alive.
func (p *parser) reset() {
	p.doc, p.src = nil, ""
	clear(p.elems)
	clear(p.members)
	p.elems, p.members = p.elems[:0], p.members[:0]
}

// cursor is a position in a document, shared by the one-pass parser and
// the plan's byte walk (walk.go).
type cursor struct {
	doc []byte
	pos int
}

func (c *cursor) space() { c.pos = skipSpace(c.doc, c.pos) }

// next skips space and returns the byte after it, 0 at the end.
func (c *cursor) next() byte {
	c.space()
	if c.pos == len(c.doc) {
		return 0
	}
	return c.doc[c.pos]
}

// value reads a value. What follows it is for the caller to check.
func (p *parser) value() (any, bool) {
	switch c := p.next(); c {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		return p.string()
	case 't':
		return true, p.literal("true")
	case 'f':
		return false, p.literal("false")
	case 'n':
		return nil, p.literal("null")
	default:
		return p.number()
	}
}

// literal reads lit, which must come next.
func (c *cursor) literal(lit string) bool {
	if len(c.doc)-c.pos < len(lit) || string(c.doc[c.pos:c.pos+len(lit)]) != lit {
		return false
	}
	c.pos += len(lit)
	return true
}

// enter and leave bound the nesting, which encoding/json limits.
func (p *parser) enter() bool {
	p.pos++ // [ or {
	p.depth++
	return p.depth <= maxDepth
}

func (p *parser) leave() {
	p.pos++ // ] or }
	p.depth--
}

func (p *parser) array() (any, bool) {
	if !p.enter() {
		return nil, false
	}
	if p.next() == ']' {
		p.leave()
		return []any{}, true // encoding/json makes empty arrays non-nil
	}
	base := len(p.elems)
	for {
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		p.elems = append(p.elems, v)
		c := p.next()
		if c == ']' {
			break
		}
		if c != ',' {
			return nil, false
		}
		p.pos++
	}
	p.leave()
	a := make([]any, len(p.elems)-base)
	copy(a, p.elems[base:])
	clear(p.elems[base:]) // the scratch must not keep values alive
	p.elems = p.elems[:base]
	return a, true
}

func (p *parser) object() (any, bool) {
	if !p.enter() {
		return nil, false
	}
	if p.next() == '}' {
		p.leave()
		return map[string]any{}, true
	}
	base := len(p.members)
	for {
		if p.next() != '"' {
			return nil, false
		}
		name, ok := p.string()
		if !ok || p.next() != ':' {
			return nil, false
		}
		p.pos++
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		p.members = append(p.members, member{name, v})
		c := p.next()
		if c == '}' {
			break
		}
		if c != ',' {
			return nil, false
		}
		p.pos++
	}
	p.leave()
	members := p.members[base:]
	m := make(map[string]any, len(members))
	for _, e := range members {
		m[e.name] = e.value
	}
	clear(members)
	p.members = p.members[:base]
	// Names are compared as encoding/json decodes them, as map keys.
	return m, len(m) == len(members)
}

// number reads a number as encoding/json's grammar has it, and refuses an
// exponent beyond ±maxExponent.
func (p *parser) number() (any, bool) {
	start := p.pos
	end, ok := scanNumber(p.doc, start)
	if !ok {
		return nil, false
	}
	p.pos = end
	return json.Number(p.src[start:end]), true
}

// scanNumber reads the number that starts doc[pos:] as encoding/json's
// grammar has it, and returns the index after it; ok is false if there is
// no number there or its exponent is beyond ±maxExponent.
func scanNumber(doc []byte, pos int) (end int, ok bool) {
	i := pos
	if i < len(doc) && doc[i] == '-' {
		i++
	}
	switch {
	case i < len(doc) && doc[i] == '0':
		i++
	default:
		if i = digits(doc, i); i < 0 {
			return 0, false
		}
	}
	if i < len(doc) && doc[i] == '.' {
		if i = digits(doc, i+1); i < 0 {
			return 0, false
		}
	}
	if i < len(doc) && (doc[i] == 'e' || doc[i] == 'E') {
		i++
		if i < len(doc) && (doc[i] == '+' || doc[i] == '-') {
			i++
		}
		start := i
		if i = digits(doc, i); i < 0 || exponentBeyond(doc[start:i]) {
			return 0, false
		}
	}
	return i, true
}

// digits skips one or more decimal digits from doc[i:] and returns the
// index after them, or -1 if there is none.
func digits(doc []byte, i int) int {
	start := i
	for i < len(doc) && '0' <= doc[i] && doc[i] <= '9' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// string reads a string. One without escapes and in valid UTF-8, as most
// are, is a slice of src; the others are decoded into buf.
func (p *parser) string() (string, bool) {
	p.pos++ // "
	start := p.pos
	for i := start; i < len(p.doc); {
		switch c := p.doc[i]; {
		case c == '"':
			p.pos = i + 1
			return p.src[start:i], true
		case c == '\\':
			return p.unquote(start, i)
		case c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(p.doc[i:])
			if r == utf8.RuneError && size == 1 {
				return p.unquote(start, i)
			}
			i += size
		}
	}
	return "", false
}

// unquote decodes the rest of a string that starts at start, from i on, as
// encoding/json does: an invalid byte of UTF-8, or a \u escape of half a
// surrogate pair, becomes U+FFFD.
func (p *parser) unquote(start, i int) (string, bool) {
	b := append(p.buf[:0], p.doc[start:i]...)
	for i < len(p.doc) {
		switch c := p.doc[i]; {
		case c == '"':
			p.pos = i + 1
			p.buf = b // for the next string with escapes
			return string(b), true
		case c < ' ':
			return "", false
		case c == '\\':
			if i+1 == len(p.doc) {
				return "", false
			}
			switch e := p.doc[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(p.doc[i+2:])
				if r < 0 {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A pair only if the next escape completes it; an
					// unpaired half is U+FFFD and the next escape is read on
					// its own.
					if r = utf16.DecodeRune(r, escapedRune(p.doc[i:])); r != utf8.RuneError {
						i += 6
					}
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				return "", false
			}
			i += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(p.doc[i:])
			b = utf8.AppendRune(b, r) // RuneError for an invalid byte
			i += size
		}
	}
	return "", false
}

// escapedRune is the rune of the \u escape that starts s, or -1.
func escapedRune(s []byte) rune {
	if len(s) < 2 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	return hex4(s[2:])
}

// hex4 is the value of the four hexadecimal digits that start s, or -1.
func hex4(s []byte) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
