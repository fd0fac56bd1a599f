package schema

import (
	"bytes"
	"fmt"
	"strings"
)

// maxExponent bounds the exponent of every number in a schema or a
// document. jsonschema compares numbers exactly, as math/big rationals, and
// building one for 1e999999 computes 10^999999: tens of milliseconds for
// eight bytes of JSON, so that a client could keep a core busy for hours with the
// arguments of any tool that has an integer parameter, before any deadline
// applies. With the bound, the work per byte is small. Numbers beyond
// float64 (about 1e308) do not survive most JSON decoders anyway.
const maxExponent = 400

// checkNumber refuses a number, as its JSON text n, whose exponent is
// beyond ±maxExponent.
func checkNumber(n []byte) error {
	i := bytes.IndexAny(n, "eE")
	if i < 0 {
		return nil
	}
	digits := n[i+1:]
	if len(digits) > 0 && (digits[0] == '+' || digits[0] == '-') {
		digits = digits[1:]
	}
	if !exponentBeyond(digits) {
		return nil
	}
	s := string(n)
	if len(s) > 32 {
		s = s[:32] + "..."
	}
	return fmt.Errorf("number %s is out of range (exponent beyond ±%d)", s, maxExponent)
}

// exponentBeyond reports whether the decimal digits of an exponent, its
// sign removed, make a value beyond maxExponent. It stops reading at the
// first digit that takes it there, so that a long exponent costs no more.
func exponentBeyond(digits []byte) bool {
	exp := 0
	for _, d := range digits {
		if exp = 10*exp + int(d-'0'); exp > maxExponent {
			return true
		}
	}
	return false
}

// escapePointer escapes a key as a JSON Pointer reference token (RFC 6901).
var escapePointer = strings.NewReplacer("~", "~0", "/", "~1").Replace
