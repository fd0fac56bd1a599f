package args

import (
	"reflect"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// parser reads one JSON object into the fields of the struct at base. Each
// method reports false where encoding/json would fail or where the parser
// would need to know more of encoding/json's rules than it does.
type parser struct {
	data   []byte
	pos    int
	fields []field
	base   unsafe.Pointer
}

func (p *parser) object() bool {
	if p.next() != '{' {
		return false
	}
	for c := p.next(); c != '}'; {
		if c != '"' {
			return false
		}
		f := p.field()
		if f == nil || p.next() != ':' || !p.value(f) {
			return false
		}
		switch c = p.next(); c {
		case ',':
			if c = p.next(); c != '"' {
				return false // also a trailing comma
			}
		case '}':
		default:
			return false
		}
	}
	return p.next() == end
}

// end is what next returns at the end of the text.
const end = -1

// next skips white space and returns the byte after it, or end.
func (p *parser) next() int {
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		p.pos++
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return int(c)
		}
	}
	return end
}

// field reads a member name, its opening quote read, and returns the field
// named exactly so. encoding/json prefers an exact match too. For any other
// name (unknown, matching a field only without regard to case, or written
// with escapes, which encoding/json matches after unescaping) the parser
// declines.
func (p *parser) field() *field {
	start := p.pos
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		p.pos++
		if c == '"' {
			key := p.data[start : p.pos-1]
			for i := range p.fields {
				if p.fields[i].name == string(key) {
					return &p.fields[i]
				}
			}
			return nil
		}
		if c == '\\' || c < 0x20 {
			return nil
		}
	}
	return nil
}

// value reads one value into f. A null leaves the field as it is, as
// encoding/json does for these kinds.
func (p *parser) value(f *field) bool {
	c := p.next()
	switch c {
	case end:
		return false
	case 'n':
		return p.literal("ull")
	}
	ptr := unsafe.Add(p.base, f.offset)
	switch f.kind {
	case reflect.String:
		if c != '"' {
			return false
		}
		s, ok := p.string()
		*(*string)(ptr) = s
		return ok
	case reflect.Bool:
		v := c == 't'
		*(*bool)(ptr) = v
		return v && p.literal("rue") || c == 'f' && p.literal("alse")
	}
	p.pos-- // c starts the number (or is not one)
	num, ok := p.number()
	return ok && store(ptr, f, num)
}

// literal skips word, the rest of a literal whose first letter was read.
func (p *parser) literal(word string) bool {
	if len(p.data)-p.pos >= len(word) && string(p.data[p.pos:p.pos+len(word)]) == word {
		p.pos += len(word)
		return true
	}
	return false
}

// string reads a string value, its opening quote read. The result never
// shares memory with the input, which the SDK reuses for the next call.
func (p *parser) string() (string, bool) {
	start := p.pos
	for p.pos < len(p.data) {
		switch c := p.data[p.pos]; {
		case c == '"':
			s := p.data[start:p.pos]
			p.pos++
			// encoding/json replaces invalid UTF-8; declining keeps
			// that rule in one place.
			return string(s), utf8.Valid(s)
		case c == '\\':
			return p.escaped(start)
		case c < 0x20:
			return "", false
		}
		p.pos++
	}
	return "", false
}

// escaped finishes a string that has an escape at p.pos, having read
// data[start:p.pos] as plain text.
func (p *parser) escaped(start int) (string, bool) {
	buf := make([]byte, 0, p.pos-start+16)
	buf = append(buf, p.data[start:p.pos]...)
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		p.pos++
		switch {
		case c == '"':
			return string(buf), utf8.Valid(buf)
		case c < 0x20 || c == '\\' && p.pos == len(p.data):
			return "", false
		case c == '\\':
			r := p.escape()
			// Surrogates pair up, or become U+FFFD, by rules left
			// to encoding/json.
			if r < 0 || utf16.IsSurrogate(r) {
				return "", false
			}
			buf = utf8.AppendRune(buf, r)
		default:
			buf = append(buf, c)
		}
	}
	return "", false
}

// escape reads what follows a backslash and returns the character it
// stands for, or -1.
func (p *parser) escape() rune {
	c := p.data[p.pos]
	p.pos++
	switch c {
	case '"', '\\', '/':
		return rune(c)
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'u':
		if len(p.data)-p.pos < 4 {
			return -1
		}
		var r rune
		for _, c := range p.data[p.pos : p.pos+4] {
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
		p.pos += 4
		return r
	}
	return -1
}

// number reads a number with JSON's grammar, which is stricter than
// strconv's: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *parser) number() ([]byte, bool) {
	start := p.pos
	p.skip('-')
	if p.skip('0') {
		// no more digits after a leading zero
	} else if !p.digits() {
		return nil, false
	}
	if p.skip('.') && !p.digits() {
		return nil, false
	}
	if p.skip('e') || p.skip('E') {
		if !p.skip('+') {
			p.skip('-')
		}
		if !p.digits() {
			return nil, false
		}
	}
	return p.data[start:p.pos], true
}

func (p *parser) skip(c byte) bool {
	if p.pos < len(p.data) && p.data[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

// digits skips one or more digits, reporting whether there was one.
func (p *parser) digits() bool {
	start := p.pos
	for p.pos < len(p.data) && '0' <= p.data[p.pos] && p.data[p.pos] <= '9' {
		p.pos++
	}
	return p.pos > start
}

// store converts num as encoding/json does for f (strconv with the field's
// size; an integer field takes no fraction or exponent) and writes it at
// ptr.
func store(ptr unsafe.Pointer, f *field, num []byte) bool {
	var bits uint64 // of the value, to be written in f.bits bits
	switch f.kind {
	case reflect.Float32:
		x, err := strconv.ParseFloat(string(num), 32)
		if err != nil {
			return false
		}
		*(*float32)(ptr) = float32(x)
		return true
	case reflect.Float64:
		x, err := strconv.ParseFloat(string(num), 64)
		if err != nil {
			return false
		}
		*(*float64)(ptr) = x
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(string(num), 10, f.bits)
		if err != nil {
			return false
		}
		bits = uint64(n)
	default:
		n, err := strconv.ParseUint(string(num), 10, f.bits)
		if err != nil {
			return false
		}
		bits = n
	}
	// The range was checked by strconv: truncating to the field's size
	// keeps the value, and two's complement keeps a negative one.
	switch f.bits {
	case 8:
		*(*uint8)(ptr) = uint8(bits)
	case 16:
		*(*uint16)(ptr) = uint16(bits)
	case 32:
		*(*uint32)(ptr) = uint32(bits)
	default:
		*(*uint64)(ptr) = bits
	}
	return true
}
