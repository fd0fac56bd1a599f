// Package uritemplate matches URIs against RFC 6570 URI templates: the
// inverse of expansion, which gives a resource template's handler the values
// of its variables.
//
// It reads templates of levels 1 to 3 (every operator, lists of variables)
// and level 4's prefix modifier ({var:3}). The explode modifier ({var*})
// and the composite values it expands (lists, maps) have no string value to
// hand a handler, so a template using it is refused at Parse.
package uritemplate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Template is a parsed URI template.
type Template struct {
	parts []part
	names []string
}

// part is a literal (op nil) or an expression.
type part struct {
	literal string
	op      *operator
	vars    []varspec
}

type varspec struct {
	name   string
	maxLen int // the prefix modifier's length in characters; 0 for none
}

// operator is one row of RFC 6570's table in appendix A.
type operator struct {
	first    string // written before the first defined variable
	sep      string // written between defined variables
	named    bool   // each value is written as name=value
	ifEmpty  string // what follows a named variable's name when its value is empty
	reserved bool   // values may hold reserved characters unencoded
	path     bool   // values are path segments, not query or fragment text
}

var (
	opSimple   = operator{sep: ",", path: true}
	opReserved = operator{sep: ",", reserved: true, path: true}
	opFragment = operator{first: "#", sep: ",", reserved: true}
	opLabel    = operator{first: ".", sep: ".", path: true}
	opPath     = operator{first: "/", sep: "/", path: true}
	opParams   = operator{first: ";", sep: ";", named: true, path: true}
	opQuery    = operator{first: "?", sep: "&", named: true, ifEmpty: "="}
	opContinue = operator{first: "&", sep: "&", named: true, ifEmpty: "="}
)

// operatorOf returns the operator c stands for, or nil.
func operatorOf(c byte) *operator {
	switch c {
	case '+':
		return &opReserved
	case '#':
		return &opFragment
	case '.':
		return &opLabel
	case '/':
		return &opPath
	case ';':
		return &opParams
	case '?':
		return &opQuery
	case '&':
		return &opContinue
	}
	return nil
}

// Parse parses an RFC 6570 template. It refuses what RFC 6570 does not
// define, the explode modifier, and a variable named twice (matching would
// have to give it two values).
func Parse(template string) (*Template, error) {
	t := &Template{}
	seen := map[string]bool{}
	rest := template
	for rest != "" {
		open := strings.IndexAny(rest, "{}")
		if open < 0 {
			open = len(rest)
		}
		if open > 0 {
			if err := checkLiteral(rest[:open]); err != nil {
				return nil, err
			}
			t.parts = append(t.parts, part{literal: rest[:open]})
			rest = rest[open:]
			continue
		}
		if rest[0] == '}' {
			return nil, errors.New("'}' outside an expression")
		}
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return nil, fmt.Errorf("expression %q is not closed", rest)
		}
		p, err := parseExpression(rest[1:end])
		if err != nil {
			return nil, fmt.Errorf("expression %q: %w", rest[:end+1], err)
		}
		for _, v := range p.vars {
			if seen[v.name] {
				return nil, fmt.Errorf("variable %q appears twice", v.name)
			}
			seen[v.name] = true
			t.names = append(t.names, v.name)
		}
		t.parts = append(t.parts, p)
		rest = rest[end+1:]
	}
	return t, nil
}

func checkLiteral(s string) error {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			if !isPctEncoded(s, i) {
				return fmt.Errorf("'%%' not followed by two hexadecimal digits in %q", s)
			}
		case c <= ' ' || c == 0x7f || strings.IndexByte("\"'<>\\^`|", c) >= 0:
			return fmt.Errorf("character %q is not allowed in a template's literal text", c)
		}
	}
	return nil
}

func parseExpression(s string) (part, error) {
	p := part{op: &opSimple}
	if s != "" {
		if op := operatorOf(s[0]); op != nil {
			p.op, s = op, s[1:]
		} else if strings.IndexByte("=,!@|", s[0]) >= 0 {
			return p, fmt.Errorf("operator %q is reserved by RFC 6570", s[0])
		}
	}
	for _, spec := range strings.Split(s, ",") {
		name, modifier, hasPrefix := strings.Cut(spec, ":")
		if strings.HasSuffix(name, "*") {
			return p, fmt.Errorf("the explode modifier of %q is not supported: it expands a list, which has no single value (write {+%s} for a value that may hold '/')", spec, strings.TrimSuffix(name, "*"))
		}
		if !validName(name) {
			return p, fmt.Errorf("%q is not a variable name", name)
		}
		v := varspec{name: name}
		if hasPrefix {
			n, err := strconv.Atoi(modifier)
			if err != nil || n < 1 || n > 9999 || modifier[0] == '0' {
				return p, fmt.Errorf("prefix modifier %q is not a length from 1 to 9999", modifier)
			}
			v.maxLen = n
		}
		p.vars = append(p.vars, v)
	}
	return p, nil
}

// validName reports whether s is an RFC 6570 varname: varchars (letters,
// digits, '_', pct-encoded triplets), single dots between them.
func validName(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isAlnum(c) || c == '_' || c == '.':
		case c == '%' && isPctEncoded(s, i):
			i += 2
		default:
			return false
		}
	}
	return true
}

// Names returns the template's variable names in order.
func (t *Template) Names() []string { return t.names }

// Match returns the values of the variables of t that expand to uri, and
// whether there are any. A variable that expands to nothing (undefined) has
// no entry. Values are percent-decoded and must be valid UTF-8; a value that
// is a path segment, or several, must have no "." or ".." segment, so that a
// handler given it never climbs out of where its template points. Where
// several assignments expand to uri, each variable in turn takes the
// shortest value that lets the rest match, and is defined rather than
// undefined when both do: "{name}{.ext}" splits "a.tar.gz" into "a" and
// "tar.gz".
func (t *Template) Match(uri string) (map[string]string, bool) {
	m := matcher{t: t, uri: uri, failed: map[state]bool{}}
	if !m.parts(0, 0) {
		return nil, false
	}
	vals := make(map[string]string, len(m.captures))
	for _, c := range m.captures {
		vals[c.name] = c.value
	}
	return vals, true
}

type matcher struct {
	t        *Template
	uri      string
	captures []capture
	// failed memoises the states from which the rest cannot match: which
	// part and variable come next, where in uri, and whether the expression
	// has written a variable yet. Without it a template of several
	// expressions would take time exponential in the URI's length.
	failed map[state]bool
}

type capture struct{ name, value string }

type state struct {
	part, v, pos int
	written      bool
}

func (m *matcher) parts(i, pos int) bool {
	if i == len(m.t.parts) {
		return pos == len(m.uri)
	}
	if p := &m.t.parts[i]; p.op == nil {
		return strings.HasPrefix(m.uri[pos:], p.literal) && m.parts(i+1, pos+len(p.literal))
	}
	return m.vars(state{part: i, pos: pos})
}

// vars matches the variables of an expression from s.v on, at s.pos: each
// either defined (written) or undefined (skipped).
func (m *matcher) vars(s state) bool {
	if s.v == len(m.t.parts[s.part].vars) {
		return m.parts(s.part+1, s.pos)
	}
	if m.failed[s] {
		return false
	}
	if m.defined(s) || m.vars(state{s.part, s.v + 1, s.pos, s.written}) {
		return true
	}
	m.failed[s] = true
	return false
}

// defined matches variable s.v as defined, at s.pos.
func (m *matcher) defined(s state) bool {
	p := &m.t.parts[s.part]
	lead := p.op.sep
	if !s.written {
		lead = p.op.first
	}
	pos := s.pos
	if !strings.HasPrefix(m.uri[pos:], lead) {
		return false
	}
	pos += len(lead)
	if p.op.named {
		name := p.vars[s.v].name
		if !strings.HasPrefix(m.uri[pos:], name) {
			return false
		}
		pos += len(name)
		if !strings.HasPrefix(m.uri[pos:], "=") {
			// Only ';' writes an empty value as the name alone.
			return p.op.ifEmpty == "" && m.try(s, pos, pos)
		}
		pos++
	}
	for end := pos; ; {
		if m.try(s, pos, end) {
			return true
		}
		var ok bool
		if end, ok = m.next(end, p.op.reserved); !ok {
			return false
		}
	}
}

// try takes uri[start:end] as the value of variable s.v and matches the
// rest. The value is decoded and checked only once the rest has matched,
// so that a long value is not decoded at every candidate end.
func (m *matcher) try(s state, start, end int) bool {
	n := len(m.captures)
	if m.vars(state{s.part, s.v + 1, end, true}) {
		p := &m.t.parts[s.part]
		if value, ok := decode(m.uri[start:end], p.vars[s.v].maxLen, p.op.path); ok {
			m.captures = append(m.captures, capture{p.vars[s.v].name, value})
			return true
		}
	}
	m.captures = m.captures[:n]
	return false
}

// next returns the position after the value character at pos (a
// percent-encoded triplet counts as one), and false when there is none.
func (m *matcher) next(pos int, reserved bool) (int, bool) {
	if pos == len(m.uri) {
		return pos, false
	}
	switch c := m.uri[pos]; {
	case c == '%':
		return pos + 3, isPctEncoded(m.uri, pos)
	case isUnreserved(c) || reserved && isReserved(c):
		return pos + 1, true
	case c >= 0x80:
		// Raw non-ASCII is taken as its percent-encoding would be, as
		// clients that send IRIs write it.
		return pos + 1, true
	}
	return pos, false
}

// decode percent-decodes s and checks it against the variable's prefix
// length and, for a path value, for dot segments.
func decode(s string, maxLen int, path bool) (string, bool) {
	if strings.IndexByte(s, '%') >= 0 {
		var b strings.Builder
		b.Grow(len(s))
		for i := 0; i < len(s); i++ {
			if s[i] == '%' {
				b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
				i += 2
			} else {
				b.WriteByte(s[i])
			}
		}
		s = b.String()
	}
	switch {
	case !utf8.ValidString(s):
		return "", false // expansion encodes values as UTF-8
	case maxLen > 0 && utf8.RuneCountInString(s) > maxLen:
		return "", false
	case path && hasDotSegment(s):
		return "", false
	}
	return s, true
}

func hasDotSegment(s string) bool {
	for seg := range strings.SplitSeq(s, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

func isPctEncoded(s string, i int) bool {
	return i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isUnreserved(c byte) bool { return isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~' }

func isReserved(c byte) bool { return strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0 }

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
