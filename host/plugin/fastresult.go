package plugin

import (
	"bytes"
	"unicode/utf8"

	"github.com/wasmcp/wasmcp/abi"
)

// Every tool call ends with the decoding of the guest's result document,
// and encoding/json, which works by reflection, made most of its cost: some
// microseconds a call for the simplest results. fastResult decodes by hand
// the shapes that guests write almost always, and declines anything else (an
// unknown key or a known one in other case, "_meta", "annotations",
// "resource", "size", null, a number, an escaped string, a key given twice,
// broken or trailing syntax), which decodeResultJSON then decodes. It
// declines rather than guesses because the outcome of every document must
// stay what encoding/json makes of it, and encoding/json matches keys
// without regard to case, lets a later key override an earlier one and
// replaces lone surrogates in escapes: rules easy to get subtly wrong, for
// documents that are rare.

// maxFastDepth bounds the nesting of structured content on the fast path.
// encoding/json allows 10000 levels in the whole document, one more than
// compact sees in the value alone; structured content that deep is rare, and
// it takes decodeResultJSON.
const maxFastDepth = 1000

// fastResult decodes doc when it is valid UTF-8 and an object whose keys are
// among "content", "structuredContent" and "isError", each at most once:
// content an array of objects with only the plain string fields of
// abi.Content, structuredContent a JSON object, isError true or false.
// Strings, except within structured content, must have no escapes and no
// control characters. res is what decodeResultJSON makes of doc when the
// content blocks are valid; raw is structuredContent as it is in doc, before
// compact. ok is false for any other document.
func fastResult(doc []byte) (res abi.Result, raw []byte, ok bool) {
	if !utf8.Valid(doc) { // encoding/json would replace the invalid bytes
		return abi.Result{}, nil, false
	}
	s := resultScanner{doc: doc}
	var seen uint8
	ok = s.object(func(key []byte) (ok bool) {
		switch string(key) {
		case "content":
			if once(&seen, 1<<0) {
				res.Content, ok = s.content()
			}
		case "structuredContent":
			if once(&seen, 1<<1) {
				raw = s.rawObject()
				ok = raw != nil
			}
		case "isError":
			if once(&seen, 1<<2) {
				res.IsError, ok = s.boolean()
			}
		}
		return ok
	}) && s.end()
	if !ok {
		return abi.Result{}, nil, false
	}
	if raw != nil {
		var err error
		// compact checks the syntax that rawObject skipped.
		if res.StructuredContent, err = compact(raw); err != nil {
			return abi.Result{}, nil, false
		}
	}
	return res, raw, true
}

// once reports whether bit is not in seen yet, and adds it. The fast path
// declines a key given twice, which encoding/json would decode twice.
func once(seen *uint8, bit uint8) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// resultScanner reads a result document from doc[i:].
type resultScanner struct {
	doc []byte
	i   int
}

// content reads the array of content blocks. It is not nil when empty, as
// encoding/json decodes [].
func (s *resultScanner) content() ([]abi.Content, bool) {
	content := []abi.Content{}
	ok := s.array(func() bool {
		c, ok := s.block()
		content = append(content, c)
		return ok
	})
	return content, ok
}

// block reads a content block.
func (s *resultScanner) block() (c abi.Content, ok bool) {
	var seen uint8
	ok = s.object(func(key []byte) bool {
		f, bit := stringField(&c, key)
		if f == nil || !once(&seen, bit) {
			return false
		}
		v, ok := s.str()
		*f = text(v)
		return ok
	})
	return c, ok
}

// stringField returns the field of c that encoding/json decodes a string
// for key into, when key spells its name exactly, and a bit of its own.
func stringField(c *abi.Content, key []byte) (*string, uint8) {
	switch string(key) {
	case "type":
		return &c.Type, 1 << 0
	case "text":
		return &c.Text, 1 << 1
	case "data":
		return &c.Data, 1 << 2
	case "mimeType":
		return &c.MimeType, 1 << 3
	case "uri":
		return &c.URI, 1 << 4
	case "name":
		return &c.Name, 1 << 5
	case "title":
		return &c.Title, 1 << 6
	case "description":
		return &c.Description, 1 << 7
	}
	return nil, 0
}

// text is string(v), without an allocation for the content types.
func text(v []byte) string {
	for _, t := range [...]string{abi.ContentText, abi.ContentImage, abi.ContentAudio, abi.ContentResourceLink} {
		if string(v) == t {
			return t
		}
	}
	return string(v)
}

// object reads an object, calling member for each member with the scanner
// after the colon, to read the value; a false from member stops it.
func (s *resultScanner) object(member func(key []byte) bool) bool {
	if !s.next('{') {
		return false
	}
	if s.next('}') {
		return true
	}
	for {
		key, ok := s.str()
		if !ok || !s.next(':') || !member(key) {
			return false
		}
		if s.next('}') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

// array reads an array, calling elem to read each element.
func (s *resultScanner) array(elem func() bool) bool {
	if !s.next('[') {
		return false
	}
	if s.next(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if s.next(']') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

// str reads a string without escapes or control characters and returns
// what is between its quotes.
func (s *resultScanner) str() ([]byte, bool) {
	if !s.next('"') {
		return nil, false
	}
	for j := s.i; j < len(s.doc); j++ {
		switch c := s.doc[j]; {
		case c == '"':
			v := s.doc[s.i:j]
			s.i = j + 1
			return v, true
		case c == '\\' || c < ' ':
			return nil, false
		}
	}
	return nil, false
}

// boolean reads true or false.
func (s *resultScanner) boolean() (v, ok bool) {
	s.space()
	switch rest := s.doc[s.i:]; {
	case bytes.HasPrefix(rest, []byte("true")):
		s.i += len("true")
		return true, true
	case bytes.HasPrefix(rest, []byte("false")):
		s.i += len("false")
		return false, true
	}
	return false, false
}

// rawObject reads an object, only as far as matching its brackets outside
// strings, and returns it, or nil.
func (s *resultScanner) rawObject() []byte {
	s.space()
	start, depth := s.i, 0
	if s.i == len(s.doc) || s.doc[s.i] != '{' {
		return nil
	}
	for ; s.i < len(s.doc); s.i++ {
		switch s.doc[s.i] {
		case '"':
			for s.i++; s.i < len(s.doc) && s.doc[s.i] != '"'; s.i++ {
				if s.doc[s.i] == '\\' {
					s.i++
				}
			}
		case '{', '[':
			if depth++; depth > maxFastDepth {
				return nil
			}
		case '}', ']':
			if depth--; depth == 0 {
				s.i++
				return s.doc[start:s.i]
			}
		}
	}
	return nil
}

// next reports whether c comes next, after whitespace, and reads it if so.
func (s *resultScanner) next(c byte) bool {
	s.space()
	if s.i < len(s.doc) && s.doc[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end reports whether only whitespace remains.
func (s *resultScanner) end() bool {
	s.space()
	return s.i == len(s.doc)
}

// space skips JSON whitespace.
func (s *resultScanner) space() {
	for s.i < len(s.doc) {
		switch s.doc[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}
