package guest

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/wasmcp/wasmcp/abi"
)

// appendResult appends the Result document of res, with structured (valid
// JSON, or nil) as its structuredContent, to dst.
//
// The document is byte for byte what encoding/json writes for res, with
// structured spliced in last (see Call). The common envelope, content
// blocks without annotations or _meta, is written by hand: in a
// WebAssembly guest, encoding/json's reflection, its Content.MarshalJSON
// round trip and the compaction of that method's output cost more than the
// rest of a small call. Anything else goes to encoding/json, so that its
// output and its errors stay the reference.
func appendResult(dst []byte, res *abi.Result, structured json.RawMessage) ([]byte, error) {
	start := len(dst)
	dst = slices.Grow(dst, sizeHint(res, structured))
	dst, ok := appendEnvelope(dst, res)
	if !ok {
		b, err := json.Marshal(res)
		if err != nil {
			return dst[:start], err
		}
		dst = append(dst[:start], b[:len(b)-1]...) // b ends with the result's '}'
	}
	if structured != nil {
		dst = append(dst, `,"structuredContent":`...)
		dst = append(dst, structured...)
	}
	return append(dst, '}'), nil
}

// sizeHint is about the size of the document of res: enough, unless much
// of its text needs escaping, that the document is written without growing
// its buffer again.
func sizeHint(res *abi.Result, structured json.RawMessage) int {
	const overhead = 40 // per block: the type and member names
	n := len(`{"content":[],"isError":true,"structuredContent":}`) + len(structured)
	for i := range res.Content {
		c := &res.Content[i]
		n += overhead + len(c.Text) + len(c.Data) + len(c.MimeType) + len(c.URI) + len(c.Name) + len(c.Title) + len(c.Description)
		if r := c.Resource; r != nil {
			n += overhead + len(r.URI) + len(r.MimeType)
			if r.Text != nil {
				n += len(*r.Text)
			}
			if r.Blob != nil {
				n += len(*r.Blob)
			}
		}
	}
	return n
}

// appendEnvelope appends res without its structured content and closing
// brace, or reports false when res has a field it leaves to encoding/json:
// a _meta object or annotations anywhere, or a block of an unknown type.
func appendEnvelope(dst []byte, res *abi.Result) ([]byte, bool) {
	if res.Meta != nil || res.StructuredContent != nil {
		return dst, false
	}
	dst = append(dst, `{"content":`...)
	if res.Content == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range res.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendContent(dst, &res.Content[i]); !ok {
				return dst, false
			}
		}
		dst = append(dst, ']')
	}
	if res.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	return dst, true
}

// member is one string member of a content block, in the order
// abi.Content.MarshalJSON writes them.
type member struct {
	key, value string
	omitEmpty  bool
}

// appendContent writes the members abi.Content.MarshalJSON writes for c's
// type, in its order. The members are listed first and written by one loop,
// which keeps the code small: in WebAssembly every append site costs.
func appendContent(dst []byte, c *abi.Content) ([]byte, bool) {
	if c.Annotations != nil || c.Meta != nil {
		return dst, false
	}
	var list [5]member
	members := list[:0]
	var size *int64
	switch c.Type {
	case abi.ContentText:
		members = append(members, member{"text", c.Text, false})
	case abi.ContentImage, abi.ContentAudio:
		members = append(members, member{"data", c.Data, false}, member{"mimeType", c.MimeType, false})
	case abi.ContentResourceLink:
		members = append(members, member{"uri", c.URI, false}, member{"name", c.Name, false},
			member{"title", c.Title, true}, member{"description", c.Description, true},
			member{"mimeType", c.MimeType, true})
		size = c.Size
	case abi.ContentResource:
		return appendResource(dst, c.Resource)
	default:
		return dst, false
	}
	dst = append(dst, `{"type":`...)
	dst = appendString(dst, c.Type)
	dst = appendMembers(dst, members)
	if size != nil {
		dst = append(dst, `,"size":`...)
		dst = strconv.AppendInt(dst, *size, 10)
	}
	return append(dst, '}'), true
}

// appendResource writes an embedded resource block.
func appendResource(dst []byte, r *abi.ResourceContents) ([]byte, bool) {
	if r == nil || r.Meta != nil {
		return dst, false
	}
	var list [2]member
	members := list[:0]
	if r.Text != nil {
		members = append(members, member{"text", *r.Text, false})
	}
	if r.Blob != nil {
		members = append(members, member{"blob", *r.Blob, false})
	}
	dst = append(dst, `{"type":"resource","resource":{"uri":`...)
	dst = appendString(dst, r.URI)
	dst = appendMembers(dst, []member{{"mimeType", r.MimeType, true}})
	dst = appendMembers(dst, members)
	return append(dst, '}', '}'), true
}

// appendMembers appends ,"key":value for each member, skipping empty ones
// tagged omitempty. Keys are plain ASCII that needs no escaping.
func appendMembers(dst []byte, members []member) []byte {
	for _, m := range members {
		if m.omitEmpty && m.value == "" {
			continue
		}
		dst = append(dst, ',', '"')
		dst = append(dst, m.key...)
		dst = append(dst, '"', ':')
		dst = appendString(dst, m.value)
	}
	return dst
}

// appendString appends s as a JSON string exactly as encoding/json's
// Marshal does: HTML-sensitive <, > and & escaped, short escapes for
// \b \f \n \r \t, \u00XX for other control characters, each invalid UTF-8
// byte replaced by \ufffd, and U+2028 and U+2029 escaped.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// An escape is a short one (\n) when short is set, else \u of r.
		var short byte
		var r rune
		size := 1
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			switch b {
			case '"', '\\':
				short = b
			case '\b':
				short = 'b'
			case '\f':
				short = 'f'
			case '\n':
				short = 'n'
			case '\r':
				short = 'r'
			case '\t':
				short = 't'
			default:
				r = rune(b)
			}
		} else {
			r, size = utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
			case r == '\u2028' || r == '\u2029':
			default:
				i += size
				continue
			}
		}
		dst = append(dst, s[start:i]...)
		if short != 0 {
			dst = append(dst, '\\', short)
		} else {
			dst = append(dst, '\\', 'u', hex[r>>12&0xF], hex[r>>8&0xF], hex[r>>4&0xF], hex[r&0xF])
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
