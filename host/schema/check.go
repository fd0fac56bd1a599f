package schema

import (
	"cmp"
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"
)

// valid reports whether the decoded document v is valid against the plan
// n. It checks what jsonschema's validator checks, the same way (see each
// case), so that it may skip jsonschema whenever it says true.
func (n *node) valid(v any) bool {
	if n == nil {
		return true
	}
	if n.never {
		return false
	}
	switch v := v.(type) {
	case map[string]any:
		return n.is(tObject) && n.enumsHave(v) && n.validObject(v)
	case []any:
		return n.is(tArray) && n.enumsHave(v) && n.validArray(v)
	case string:
		return n.is(tString) && n.enumsHave(v) && n.validString(v)
	case json.Number:
		x := value{text: string(v)}
		return n.validNumber(&x)
	case bool:
		return n.is(tBoolean) && n.enumsHave(v)
	case nil:
		return n.is(tNull) && n.enumsHave(v)
	}
	return false // not a value decode makes
}

// is reports whether the type constraint, if any, admits a value of type t,
// which is not a number.
func (n *node) is(t types) bool { return n.types == 0 || n.types&t != 0 }

// enumsHave reports whether v, not a number, is a member of every enum.
// jsonschema compares with equals: a value of another type is never
// equal, and none of the plan's members is an array or an object.
func (n *node) enumsHave(v any) bool {
	for _, m := range n.enums {
		var in bool
		switch v := v.(type) {
		case string:
			in = slices.Contains(m.strings, v)
		case bool:
			in = v && m.yes || !v && m.no
		case nil:
			in = m.null
		}
		if !in {
			return false
		}
	}
	return true
}

// validObject checks minProperties, maxProperties, required, properties
// and additionalProperties, as jsonschema's objValidate does.
func (n *node) validObject(obj map[string]any) bool {
	if n.minProps != nil && len(obj) < *n.minProps || n.maxProps != nil && len(obj) > *n.maxProps {
		return false
	}
	for _, name := range n.required {
		if _, ok := obj[name]; !ok {
			return false
		}
	}
	if n.props == nil && n.additional == nil {
		return true
	}
	for name, v := range obj {
		sub, ok := n.props[name]
		if !ok {
			sub = n.additional
		}
		if !sub.valid(v) {
			return false
		}
	}
	return true
}

// validArray checks minItems, maxItems and items, as jsonschema's
// arrValidate does in 2020-12 (where items applies to every element).
func (n *node) validArray(arr []any) bool {
	if n.minItems != nil && len(arr) < *n.minItems || n.maxItems != nil && len(arr) > *n.maxItems {
		return false
	}
	if n.items != nil {
		for _, v := range arr {
			if !n.items.valid(v) {
				return false
			}
		}
	}
	return true
}

// validString checks minLength, maxLength and pattern, as jsonschema's
// strValidate does: lengths in code points, an invalid byte counting as
// one, and the pattern's MatchString.
func (n *node) validString(s string) bool {
	if n.minLength != nil || n.maxLength != nil {
		l := utf8.RuneCountInString(s)
		if n.minLength != nil && l < *n.minLength || n.maxLength != nil && l > *n.maxLength {
			return false
		}
	}
	return n.pattern == nil || n.pattern.MatchString(s)
}

// validNumber checks the type, the enums and the bounds of a number, all
// with the exact comparisons of jsonschema, which compares rationals.
func (n *node) validNumber(x *value) bool {
	if n.types != 0 && n.types&tNumber == 0 && (n.types&tInteger == 0 || !x.integer()) {
		return false
	}
	for _, m := range n.enums {
		if !slices.ContainsFunc(m.numbers, func(e number) bool { return x.cmp(e) == 0 }) {
			return false
		}
	}
	for _, b := range n.bounds {
		if c := x.cmp(b.n); c != b.want && (!b.orEqual || c != 0) {
			return false
		}
	}
	return true
}

// value is a number of a document, as its JSON text. jsonschema reads
// every number as a rational, new(big.Rat).SetString of its text, which
// allocates and takes a few hundred nanoseconds; a value reads a decimal
// without an exponent and with few enough digits before the point (the
// common case) as its integer part, and whether a fraction follows, which
// is enough to compare it with an integer exactly, and reads any other
// number, or compares with a bound that is not an integer, as jsonschema
// does.
type value struct {
	text string
	read bool
	// plain: the text is a decimal without an exponent whose integer part
	// is i, truncated toward zero. frac: a fraction that is not zero
	// follows, so that the value lies strictly between i and the next
	// integer away from zero (neg tells which way).
	plain, frac, neg bool
	i                int64
	rat              *big.Rat
}

// maxPlainDigits is how many digits the integer part of a plain decimal
// may have, so that it fits an int64 without a check for overflow, and so
// does the next integer away from zero.
const maxPlainDigits = 18

func (x *value) parse() {
	if x.read {
		return
	}
	x.read = true
	t, neg := strings.CutPrefix(x.text, "-")
	whole, fraction, _ := strings.Cut(t, ".")
	if len(whole) == 0 || len(whole) > maxPlainDigits {
		return
	}
	var i int64
	for j := 0; j < len(whole); j++ {
		c := whole[j]
		if c < '0' || c > '9' {
			return // an exponent
		}
		i = 10*i + int64(c-'0')
	}
	frac := false
	for j := 0; j < len(fraction); j++ {
		c := fraction[j]
		if c < '0' || c > '9' {
			return
		}
		frac = frac || c != '0'
	}
	if neg {
		i = -i
	}
	x.plain, x.frac, x.neg, x.i = true, frac, neg, i
}

// rational returns the number as jsonschema reads it, or nil if it cannot,
// which decode never lets happen.
func (x *value) rational() *big.Rat {
	if x.rat == nil {
		x.rat, _ = new(big.Rat).SetString(x.text)
	}
	return x.rat
}

// integer reports whether the number is an integer, as jsonschema's
// isInteger does: 1.0 and 1e2 are integers.
func (x *value) integer() bool {
	if x.parse(); x.plain {
		return !x.frac
	}
	if !strings.ContainsAny(x.text, ".eE") {
		return true // an integer too long to be plain
	}
	r := x.rational()
	return r != nil && r.IsInt()
}

// cmp compares the number with e. A number jsonschema could not read
// compares as unequal and out of every bound, so that the plan declines.
func (x *value) cmp(e number) int {
	if x.parse(); x.plain && e.isInt {
		switch {
		case !x.frac:
			return cmp.Compare(x.i, e.i)
		case x.neg && x.i > e.i, !x.neg && x.i >= e.i:
			// Between i-1 and i, or between i and i+1.
			return 1
		}
		return -1
	}
	r := x.rational()
	if r == nil {
		return 2
	}
	return r.Cmp(e.rat)
}
