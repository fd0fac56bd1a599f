package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// decode decodes the JSON document doc into the values jsonschema
// validates, and refuses:
//
//   - an object with two members of the same name. encoding/json, and so
//     the validator, keeps the last value, while another parser, such as a
//     guest's, may keep the first: it would get a value that was never
//     validated. Names are compared decoded: "a" and "\u0061" are the same.
//   - a number whose exponent is beyond ±maxExponent (see numbers.go).
//
// A document that is not JSON gives a *syntaxError; the other errors name
// the JSON Pointer where they are, the first in document order.
//
// Every tool call's arguments come here, so the documents that pass are
// decoded in one pass (parse.go) that checks the syntax, names and numbers
// as it builds the values, in a quarter to a third of the time that
// encoding/json's decoding and a scan after it take (BenchmarkDecode).
// That parser reports no errors: on any problem it declines, and
// decodeReference decodes the document again and words the error. So
// errors keep the texts and the precedence they always had (a syntax error
// anywhere before a repeated name, problems in document order), which are
// encoding/json's and the scanner's to give, at the cost of a second pass
// only for documents that are refused. FuzzDecode checks that both ways
// agree on every document.
func decode(doc []byte) (any, error) {
	if v, ok := parse(doc); ok {
		return v, nil
	}
	return decodeReference(doc)
}

// decodeReference is decode in two passes: encoding/json, as jsonschema
// uses it, decodes; a scan of the bytes then checks names and numbers. The
// scan costs a fraction of the decoding and allocates only for large
// objects and names with escapes, where json.Decoder's Token, which could
// do both at once, costs about twice the decoding.
func decodeReference(doc []byte) (any, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, &syntaxError{err}
	}
	s := scanner{doc: doc}
	if err := s.value(); err != nil {
		return nil, err.resolve()
	}
	return v, nil
}

// syntaxError is a document that is not JSON.
type syntaxError struct{ err error }

func (e *syntaxError) Error() string { return "not valid JSON: " + e.err.Error() }
func (e *syntaxError) Unwrap() error { return e.err }

// linearNames is how many names of one object the scanner compares one by
// one before it puts them in a map.
const linearNames = 16

// scanner walks a document that encoding/json decoded: valid JSON, nested
// at most 10000 levels deep, so that it need not check the syntax and may
// recurse.
type scanner struct {
	doc []byte
	pos int
}

// name is an object member's name: the bytes between its quotes.
type name struct {
	start, end int
	// raw is set when the bytes are the name itself: no escape and no
	// invalid UTF-8, which encoding/json replaces. Otherwise decoded is the
	// name, decoded once.
	raw     bool
	decoded string
}

// skipSpace returns the index of the first byte of doc at or after i that
// is not JSON whitespace.
func skipSpace(doc []byte, i int) int {
	for i < len(doc) {
		switch doc[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

func (s *scanner) space() { s.pos = skipSpace(s.doc, s.pos) }

func (s *scanner) value() *pathError {
	s.space()
	switch c := s.doc[s.pos]; {
	case c == '{':
		return s.object()
	case c == '[':
		return s.array()
	case c == '"':
		s.string()
	case c == 't' || c == 'n':
		s.pos += 4
	case c == 'f':
		s.pos += 5
	default:
		start := s.pos
		for s.pos < len(s.doc) && isNumberByte(s.doc[s.pos]) {
			s.pos++
		}
		if err := checkNumber(s.doc[start:s.pos]); err != nil {
			return &pathError{err: err}
		}
	}
	return nil
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

func (s *scanner) array() *pathError {
	s.pos++ // [
	for i := 0; ; i++ {
		s.space()
		switch s.doc[s.pos] {
		case ']':
			s.pos++
			return nil
		case ',':
			s.pos++
		}
		if err := s.value(); err != nil {
			err.tokens = append(err.tokens, strconv.Itoa(i))
			return err
		}
	}
}

func (s *scanner) object() *pathError {
	s.pos++ // {
	// The names so far, on the stack while they are few.
	var small [8]name
	names := small[:0]
	var seen map[string]bool // once the object has more than linearNames
	for {
		s.space()
		switch s.doc[s.pos] {
		case '}':
			s.pos++
			return nil
		case ',':
			s.pos++
			s.space()
		}
		n := s.name()
		dup := false
		switch {
		case seen != nil:
			key := s.decoded(n)
			dup = seen[key]
			seen[key] = true
		case len(names) == linearNames:
			seen = make(map[string]bool, 2*linearNames)
			for _, m := range names {
				seen[s.decoded(m)] = true
			}
			key := s.decoded(n)
			dup = seen[key]
			seen[key] = true
		default:
			for _, m := range names {
				if s.same(m, n) {
					dup = true
					break
				}
			}
		}
		if dup {
			return &pathError{err: fmt.Errorf("duplicate key %q", s.decoded(n)), suffix: true}
		}
		if seen == nil {
			names = append(names, n)
		}
		s.space()
		s.pos++ // :
		if err := s.value(); err != nil {
			err.tokens = append(err.tokens, escapePointer(s.decoded(n)))
			return err
		}
	}
}

// string skips a string and returns where its contents lie, between the
// quotes, and whether they hold an escape.
func (s *scanner) string() (start, end int, escaped bool) {
	s.pos++ // "
	start = s.pos
	for {
		switch s.doc[s.pos] {
		case '"':
			s.pos++
			return start, s.pos - 1, escaped
		case '\\':
			escaped = true
			s.pos += 2
		default:
			s.pos++
		}
	}
}

// name reads a member's name.
func (s *scanner) name() name {
	start, end, escaped := s.string()
	n := name{start: start, end: end, raw: !escaped && utf8.Valid(s.doc[start:end])}
	if !n.raw {
		// The name and its quotes, valid JSON. Into a variable of its own,
		// which alone goes to the heap.
		var decoded string
		_ = json.Unmarshal(s.doc[start-1:end+1], &decoded)
		n.decoded = decoded
	}
	return n
}

// same reports whether two names are equal once decoded.
func (s *scanner) same(a, b name) bool {
	switch {
	case a.raw && b.raw:
		return bytes.Equal(s.doc[a.start:a.end], s.doc[b.start:b.end])
	case a.raw:
		return string(s.doc[a.start:a.end]) == b.decoded // no copy: compared only
	case b.raw:
		return a.decoded == string(s.doc[b.start:b.end])
	}
	return a.decoded == b.decoded
}

// decoded is a name as encoding/json decodes it.
func (s *scanner) decoded(n name) string {
	if n.raw {
		return string(s.doc[n.start:n.end])
	}
	return n.decoded
}

// pathError is an error about the value at a JSON Pointer that is built
// backwards, one reference token per level, as the error returns up the
// levels: nothing is spent on the path of a document without errors.
type pathError struct {
	err    error
	tokens []string // innermost first
	// suffix words the error "<err> at <pointer>" rather than
	// "at <pointer>: <err>".
	suffix bool
}

// resolve returns the error with its pointer.
func (pe *pathError) resolve() error {
	var at bytes.Buffer
	for i := len(pe.tokens) - 1; i >= 0; i-- {
		at.WriteByte('/')
		at.WriteString(pe.tokens[i])
	}
	if pe.suffix {
		return fmt.Errorf("%w at %s", pe.err, pointer(at.String()))
	}
	return fmt.Errorf("at %s: %w", pointer(at.String()), pe.err)
}
