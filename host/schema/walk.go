package schema

import (
	"unicode/utf8"
)

// A plan can also check a document as it reads its bytes, without decoding
// it first: validDocument. Decoding builds a map for every object and a
// string for every name, and in a server between requests that memory is
// cold: in BenchmarkColdValidate, validating the echo tool's arguments
// took 9.4-10.0 µs decoded first and 2.9-3.2 µs read straight from the
// bytes (hot: 0.4-0.6 against 0.06-0.12 µs); an eight-property schema's,
// 15-16 against 6.4-7.6 µs.
//
// validDocument says true only when decode would accept the document and
// the plan would find the decoded value valid, so that Validate may return
// at once; for anything else, and wherever it cannot be sure cheaply, it
// declines, and Validate decodes and checks as before. It declines:
//
//   - a document that is not JSON, or nests deeper than maxWalkDepth;
//   - an object with more than maxWalkMembers members, or a name with an
//     escape or invalid UTF-8 (repeated names are found by comparing the
//     names' bytes, which is exact only for names that are their bytes);
//   - a number whose exponent is beyond ±maxExponent (decode refuses it);
//   - a string with an escape or invalid UTF-8 where its value matters: a
//     length, a pattern or an enum (elsewhere only its syntax matters, and
//     a string with escapes is checked for it).
//
// FuzzPlan checks, for every document it makes, that when validDocument
// says true, decode accepts the document and the plan accepts its value.

const (
	// maxWalkDepth bounds the nesting validDocument reads: tool arguments
	// rarely nest more than a few levels.
	maxWalkDepth = 64
	// maxWalkMembers bounds the members of one object, whose names are
	// compared pairwise.
	maxWalkMembers = 16
)

// validDocument reports whether doc is valid JSON that decode accepts and
// whose value the plan n accepts; false means "not known", not "invalid".
func (n *node) validDocument(doc []byte) bool {
	w := walker{cursor{doc: doc}}
	if !w.value(n, 0) {
		return false
	}
	return skipSpace(doc, w.pos) == len(doc)
}

// walker reads one document for validDocument.
type walker struct{ cursor }

// value reads a value and checks it against n, which may be nil: anything.
func (w *walker) value(n *node, depth int) bool {
	if n != nil && n.never {
		return false
	}
	switch c := w.next(); c {
	case '{':
		return w.object(n, depth+1)
	case '[':
		return w.array(n, depth+1)
	case '"':
		return w.string(n)
	case 't':
		return w.literal("true") && (n == nil || n.is(tBoolean) && n.enumsHave(true))
	case 'f':
		return w.literal("false") && (n == nil || n.is(tBoolean) && n.enumsHave(false))
	case 'n':
		return w.literal("null") && (n == nil || n.is(tNull) && n.enumsHave(nil))
	}
	return w.number(n)
}

// more reads what follows a member or an element: a comma (more is true)
// or close (more is false); ok is false for anything else.
func (w *walker) more(close byte) (more, ok bool) {
	c := w.next()
	w.pos++
	return c == ',', c == ',' || c == close
}

// span is a name's bytes in the document.
type span struct{ start, end int }

func (w *walker) object(n *node, depth int) bool {
	// An object is in no enum of a plan, whose members are scalars.
	if depth > maxWalkDepth || n != nil && (!n.is(tObject) || len(n.enums) > 0) {
		return false
	}
	w.pos++ // {
	var names [maxWalkMembers]span
	count := 0
	if w.next() == '}' {
		w.pos++
	} else {
		for {
			if count == maxWalkMembers || w.next() != '"' {
				return false
			}
			name, plain := w.str()
			if !plain || w.next() != ':' {
				return false
			}
			w.pos++
			for _, seen := range names[:count] {
				if string(w.doc[seen.start:seen.end]) == string(w.doc[name.start:name.end]) {
					return false // decode refuses a repeated name
				}
			}
			names[count] = name
			count++
			var sub *node
			if n != nil {
				var known bool
				if sub, known = n.props[string(w.doc[name.start:name.end])]; !known {
					sub = n.additional
				}
			}
			if !w.value(sub, depth) {
				return false
			}
			if more, ok := w.more('}'); !ok {
				return false
			} else if !more {
				break
			}
		}
	}
	if n == nil {
		return true
	}
	if n.minProps != nil && count < *n.minProps || n.maxProps != nil && count > *n.maxProps {
		return false
	}
	for _, req := range n.required {
		found := false
		for _, seen := range names[:count] {
			if string(w.doc[seen.start:seen.end]) == req {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (w *walker) array(n *node, depth int) bool {
	if depth > maxWalkDepth || n != nil && (!n.is(tArray) || len(n.enums) > 0) {
		return false
	}
	var items *node
	if n != nil {
		items = n.items
	}
	w.pos++ // [
	count := 0
	if w.next() == ']' {
		w.pos++
	} else {
		for {
			if !w.value(items, depth) {
				return false
			}
			count++
			if more, ok := w.more(']'); !ok {
				return false
			} else if !more {
				break
			}
		}
	}
	return n == nil || (n.minItems == nil || count >= *n.minItems) && (n.maxItems == nil || count <= *n.maxItems)
}

// string reads a string and checks it against n.
func (w *walker) string(n *node) bool {
	s, plain := w.str()
	if s.end < 0 {
		return false
	}
	if n == nil {
		return true
	}
	if !n.is(tString) {
		return false
	}
	if n.minLength == nil && n.maxLength == nil && n.pattern == nil && len(n.enums) == 0 {
		return true
	}
	if !plain {
		return false // its value is not its bytes
	}
	// The bytes are the string: validString and the enums see what they
	// would see decoded. string(b) in a comparison does not allocate.
	b := w.doc[s.start:s.end]
	for _, m := range n.enums {
		in := false
		for _, e := range m.strings {
			if e == string(b) {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	if n.minLength != nil || n.maxLength != nil {
		l := utf8.RuneCount(b)
		if n.minLength != nil && l < *n.minLength || n.maxLength != nil && l > *n.maxLength {
			return false
		}
	}
	return n.pattern == nil || n.pattern.MatchString(string(b))
}

// str reads a string whose opening quote is at pos, and returns its bytes
// between the quotes. plain is true when they are the string itself: no
// escape and valid UTF-8. A string that is not JSON gives an end of -1.
func (w *walker) str() (s span, plain bool) {
	s.start = w.pos + 1
	plain = true
	for i := s.start; i < len(w.doc); {
		switch c := w.doc[i]; {
		case c == '"':
			w.pos = i + 1
			s.end = i
			return s, plain
		case c < ' ':
			return span{end: -1}, false
		case c == '\\':
			plain = false
			if i+1 == len(w.doc) {
				return span{end: -1}, false
			}
			switch w.doc[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if hex4(w.doc[i+2:]) < 0 {
					return span{end: -1}, false
				}
				i += 6
			default:
				return span{end: -1}, false
			}
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(w.doc[i:])
			if r == utf8.RuneError && size == 1 {
				plain = false // decoding replaces it with U+FFFD
			}
			i += size
		}
	}
	return span{end: -1}, false
}

// number reads a number and checks it against n.
func (w *walker) number(n *node) bool {
	start := w.pos
	end, ok := scanNumber(w.doc, start)
	if !ok {
		return false
	}
	w.pos = end
	if n == nil || (n.types == 0 || n.types&tNumber != 0) && len(n.enums) == 0 && len(n.bounds) == 0 {
		return true
	}
	x := value{text: string(w.doc[start:end])}
	return n.validNumber(&x)
}
