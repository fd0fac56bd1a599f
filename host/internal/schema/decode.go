package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
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
// These guard the host and the guests; they are not for speed. A document
// that is not JSON gives a *syntaxError; the other errors name the JSON
// Pointer where they are, the first in document order. The values are
// those jsonschema.UnmarshalJSON makes (numbers as json.Number), read in
// the same pass as the checks.
func decode(doc []byte) (any, error) {
	w := walker{dec: json.NewDecoder(bytes.NewReader(doc))}
	w.dec.UseNumber()
	v, err := w.value()
	if err != nil {
		return nil, err
	}
	if _, err := w.dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &syntaxError{errors.New("invalid character after top-level value")}
	}
	return v, nil
}

// maxDocDepth is how deep arrays and objects may nest, as in encoding/json:
// the walk recurses once a level.
const maxDocDepth = 10000

// syntaxError is a document that is not JSON.
type syntaxError struct{ err error }

func (e *syntaxError) Error() string { return "not valid JSON: " + e.err.Error() }
func (e *syntaxError) Unwrap() error { return e.err }

// walker reads a valid document with encoding/json's tokenizer, keeping
// the JSON Pointer of the value it is at.
type walker struct {
	dec  *json.Decoder
	path []string // reference tokens, escaped
}

func (w *walker) value() (any, error) {
	tok, err := w.dec.Token()
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, &syntaxError{err}
	}
	switch t := tok.(type) {
	case json.Delim:
		if len(w.path) >= maxDocDepth {
			return nil, &syntaxError{fmt.Errorf("nested more than %d levels deep", maxDocDepth)}
		}
		if t == '{' {
			return w.object()
		}
		return w.array()
	case json.Number:
		if err := checkNumber([]byte(t)); err != nil {
			return nil, w.errorf("%w", err)
		}
	}
	return tok, nil
}

func (w *walker) object() (any, error) {
	obj := map[string]any{}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return nil, &syntaxError{err}
		}
		name, _ := tok.(string) // a name, or the syntax error the next Token reports
		if _, dup := obj[name]; dup {
			return nil, fmt.Errorf("duplicate key %q at %s", name, w.pointer())
		}
		w.path = append(w.path, escapePointer(name))
		v, err := w.value()
		if err != nil {
			return nil, err
		}
		obj[name] = v
		w.path = w.path[:len(w.path)-1]
	}
	return obj, w.end()
}

func (w *walker) array() (any, error) {
	arr := []any{}
	for i := 0; w.dec.More(); i++ {
		w.path = append(w.path, strconv.Itoa(i))
		v, err := w.value()
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		w.path = w.path[:len(w.path)-1]
	}
	return arr, w.end()
}

// end reads the delimiter that closes an object or an array.
func (w *walker) end() error {
	_, err := w.dec.Token()
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return &syntaxError{err}
	}
	return nil
}

func (w *walker) pointer() string {
	if len(w.path) == 0 {
		return "(root)"
	}
	return "/" + strings.Join(w.path, "/")
}

func (w *walker) errorf(format string, args ...any) error {
	return fmt.Errorf("at %s: "+format, append([]any{w.pointer()}, args...)...)
}
