package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

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
// These guard the host and the guests; they are not for speed. A document
// that is not JSON gives a *syntaxError; the other errors name the JSON
// Pointer where they are, the first in document order.
func decode(doc []byte) (any, error) {
	// jsonschema's decoding first: it refuses what is not JSON, and nesting
	// deeper than encoding/json allows, before the walk below recurses.
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, &syntaxError{err}
	}
	w := walker{dec: json.NewDecoder(bytes.NewReader(doc))}
	w.dec.UseNumber()
	if err := w.value(); err != nil {
		return nil, err
	}
	return v, nil
}

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

func (w *walker) value() error {
	tok, err := w.dec.Token()
	if err != nil {
		return &syntaxError{err}
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return w.object()
		}
		return w.array()
	case json.Number:
		if err := checkNumber([]byte(t)); err != nil {
			return w.errorf("%w", err)
		}
	}
	return nil
}

func (w *walker) object() error {
	seen := map[string]bool{}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return &syntaxError{err}
		}
		name, _ := tok.(string) // a name: the document is valid
		if seen[name] {
			return fmt.Errorf("duplicate key %q at %s", name, w.pointer())
		}
		seen[name] = true
		w.path = append(w.path, escapePointer(name))
		if err := w.value(); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
	}
	return w.end()
}

func (w *walker) array() error {
	for i := 0; w.dec.More(); i++ {
		w.path = append(w.path, strconv.Itoa(i))
		if err := w.value(); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
	}
	return w.end()
}

// end reads the delimiter that closes an object or an array.
func (w *walker) end() error {
	if _, err := w.dec.Token(); err != nil && !errors.Is(err, io.EOF) {
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
