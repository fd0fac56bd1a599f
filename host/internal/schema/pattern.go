package schema

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// maxRepeat is the largest count Go's regexp accepts in {n,m}.
const maxRepeat = 1000

// checkPattern refuses a regular expression, from "pattern" or a name in
// "patternProperties", that Go's regexp (the host's validator) and
// ECMAScript with the u flag (ajv, with which the TypeScript SDK's client
// compiles every outputSchema of a tools/list) would not both read the same
// way. A pattern JavaScript cannot compile makes that client throw on the
// whole list; one it reads differently makes it refuse results the host
// found valid.
//
// The check is a scan of tokens, not a second engine: Go parses the pattern,
// then every token must be one both languages define alike:
//
//   - escapes: \d \D \w \W \s \S \b \B \f \n \r \t \v, \0 before no digit,
//     \xHH, \p{X} and \P{X} for a General_Category X Go knows (Lu, L, Nd...),
//     and a syntax character ^$\.*+?()[]{}|/ (and - inside a class);
//   - groups ( and (?: and (?<name> only, the name an identifier;
//   - { only to start a repetition {n}, {n,} or {n,m} (no leading zeros)
//     after something repeatable, and no lone ] or };
//   - no repetition of ^, $, \b or \B;
//   - in a class: no [ unescaped (Go reads [:alpha:] as a POSIX class), no ]
//     first, no \b, and no range bounded by a class such as \d.
//
// Two differences remain, documented rather than refused because patterns
// use them everywhere: "." matches \r, U+2028 and U+2029 in Go but not in
// JavaScript, and \s is [\t\n\f\r ] in Go but any Unicode space in
// JavaScript.
func checkPattern(p string) error {
	if _, err := syntax.Parse(p, syntax.Perl); err != nil {
		return fmt.Errorf("pattern %q: %w", clip(p), err)
	}
	if at, err := scanPattern(p); err != nil {
		return fmt.Errorf("pattern %q, at offset %d: %w", clip(p), at, err)
	}
	return nil
}

// scanPattern returns the offset of the first token of p outside the
// portable syntax, and why.
func scanPattern(p string) (int, error) {
	repeatable := false // the last token may take a repetition
	for i := 0; i < len(p); {
		var n int
		var err error
		switch p[i] {
		case '\\':
			var k escapeKind
			k, _, n, err = scanEscape(p[i:], false)
			repeatable = k != assertion
		case '(':
			n, err = scanGroup(p[i:])
			repeatable = false
		case ')':
			n, repeatable = 1, true
		case '|', '^', '$':
			n, repeatable = 1, false
		case '*', '+', '?', '{':
			n, err = scanRepeat(p[i:])
			if err == nil && !repeatable {
				err = fmt.Errorf("%q repeats nothing, or an assertion (^, $, \\b, \\B), which JavaScript refuses", p[i:i+n])
			}
			if err == nil && i+n < len(p) && p[i+n] == '?' {
				n++ // lazy
			}
			repeatable = false
		case '}', ']':
			err = fmt.Errorf(`a lone %q is an error in JavaScript: write \%c`, p[i], p[i])
		case '[':
			n, err = scanClass(p[i:])
			repeatable = true
		default:
			_, n = utf8.DecodeRuneInString(p[i:])
			repeatable = true
		}
		if err != nil {
			return i, err
		}
		i += n
	}
	return 0, nil
}

// escapeKind is what an escape stands for.
type escapeKind int

const (
	char      escapeKind = iota // one character
	class                       // a set, such as \d or \p{L}
	assertion                   // \b or \B
)

// scanEscape reads the escape at the start of s (s[0] is '\\') and returns
// what it stands for, its character when it is one, and its length.
func scanEscape(s string, inClass bool) (escapeKind, rune, int, error) {
	if len(s) < 2 {
		return 0, 0, 0, errors.New(`trailing \`)
	}
	c, size := utf8.DecodeRuneInString(s[1:])
	switch c {
	case 'd', 'D', 'w', 'W', 's', 'S':
		return class, 0, 2, nil
	case 'b', 'B':
		if inClass {
			return 0, 0, 0, fmt.Errorf(`\%c in a class is an error in Go and a backspace in JavaScript`, c)
		}
		return assertion, 0, 2, nil
	case 'f':
		return char, '\f', 2, nil
	case 'n':
		return char, '\n', 2, nil
	case 'r':
		return char, '\r', 2, nil
	case 't':
		return char, '\t', 2, nil
	case 'v':
		return char, '\v', 2, nil
	case '0':
		if len(s) > 2 && '0' <= s[2] && s[2] <= '9' {
			return 0, 0, 0, fmt.Errorf(`%q is octal in Go and an error in JavaScript: write \xHH`, s[:3])
		}
		return char, 0, 2, nil
	case 'x':
		if len(s) < 4 || !isHex(s[2]) || !isHex(s[3]) {
			return 0, 0, 0, errors.New(`\x takes exactly two hex digits in JavaScript (\x{...} is Go's alone)`)
		}
		v, _ := strconv.ParseUint(s[2:4], 16, 8)
		return char, rune(v), 4, nil
	case 'p', 'P':
		name, ok := braced(s[2:])
		if !ok || unicode.Categories[name] == nil {
			return 0, 0, 0, fmt.Errorf(`\%c must name a general category in braces, such as \%c{L} or \%c{Nd} (scripts and one-letter \%cL are Go's alone)`, c, c, c, c)
		}
		return class, 0, 2 + len(name) + 2, nil
	case '^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/':
		return char, c, 2, nil
	case '-':
		if inClass {
			return char, '-', 2, nil
		}
	}
	return 0, 0, 0, fmt.Errorf(`%q is not an escape Go and JavaScript both read (JavaScript allows \ only before ^$\.*+?()[]{}|/ and known letters)`, s[:1+size])
}

// scanGroup reads the opening of a group: "(", "(?:" or "(?<name>".
func scanGroup(s string) (int, error) {
	if len(s) < 2 || s[1] != '?' {
		return 1, nil
	}
	if len(s) > 2 && s[2] == ':' {
		return 3, nil
	}
	if len(s) > 3 && s[2] == '<' {
		end := 3
		for end < len(s) && (s[end] == '_' || isAlpha(s[end]) || end > 3 && isDigit(s[end])) {
			end++
		}
		if end > 3 && end < len(s) && s[end] == '>' {
			return end + 1, nil
		}
	}
	return 0, fmt.Errorf("%q: only ( (?: and (?<name> groups mean the same in Go and JavaScript (no flags, no (?P<name>)", clip(s[:min(len(s), 4)]))
}

// scanRepeat reads a repetition: *, +, ? or {n}, {n,}, {n,m}.
func scanRepeat(s string) (int, error) {
	if s[0] != '{' {
		return 1, nil
	}
	end := 1
	lo, n := digits(s[end:])
	if n == 0 {
		lo = -1
	}
	end += n
	hi := lo
	if n > 0 && end < len(s) && s[end] == ',' {
		end++
		hi, n = digits(s[end:])
		if n == 0 {
			hi = lo
		}
		end += n
	}
	if lo < 0 || hi < 0 || end >= len(s) || s[end] != '}' {
		return 0, fmt.Errorf(`"{" must start a repetition {n}, {n,} or {n,m}, counts up to %d without leading zeros: Go reads any other "{" as text, JavaScript as an error or another count; write \{`, maxRepeat)
	}
	return end + 1, nil
}

// digits reads a count at the start of s: its value, or -1 when it has a
// leading zero or exceeds maxRepeat, and its length.
func digits(s string) (int, int) {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	if n == 0 {
		return 0, 0
	}
	v, err := strconv.Atoi(s[:min(n, 5)])
	if err != nil || n > 4 || v > maxRepeat || n > 1 && s[0] == '0' {
		return -1, n
	}
	return v, n
}

// scanClass reads a character class, s[0] being '['.
func scanClass(s string) (int, error) {
	i := 1
	if i < len(s) && s[i] == '^' {
		i++
	}
	if i < len(s) && s[i] == ']' {
		return 0, errors.New(`a class beginning with "]" holds "]" in Go and is empty in JavaScript: write \]`)
	}
	for i < len(s) && s[i] != ']' {
		lo, n, err := classAtom(s[i:])
		if err != nil {
			return 0, err
		}
		i += n
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			hi, m, err := classAtom(s[i+1:])
			if err != nil {
				return 0, err
			}
			if lo < 0 || hi < 0 {
				return 0, errors.New(`a range bounded by a class such as \d is an error in JavaScript: put "-" last or write \-`)
			}
			i += 1 + m
		}
	}
	if i >= len(s) {
		return 0, errors.New("missing ]")
	}
	return i + 1, nil
}

// classAtom reads one element of a class: its character, or -1 for a set
// such as \d, and its length.
func classAtom(s string) (rune, int, error) {
	switch s[0] {
	case '[':
		return 0, 0, errors.New(`"[" in a class may begin a POSIX class in Go ([:alpha:]): write \[`)
	case '\\':
		k, c, n, err := scanEscape(s, true)
		if k == class {
			c = -1
		}
		return c, n, err
	}
	c, n := utf8.DecodeRuneInString(s)
	return c, n, nil
}

// braced returns the name in "{name}" at the start of s.
func braced(s string) (string, bool) {
	if len(s) < 2 || s[0] != '{' {
		return "", false
	}
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '}':
			return s[1:i], i > 1
		case !isAlpha(s[i]):
			return "", false
		}
	}
	return "", false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isHex(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// clip keeps a value quoted in an error short.
func clip(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
