package abi_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
)

// The fuzz targets of this file take what a guest hands the host: packed
// regions, log levels, tool names and content blocks. Their seed corpora are
// under testdata/fuzz; scripts/fuzz-smoke.sh runs each briefly.

// FuzzUnpack checks that Pack and Unpack are inverse on every value, so that
// no packed region is read from a pointer or length the guest did not mean.
func FuzzUnpack(f *testing.F) {
	for _, v := range []uint64{0, 1, 1<<32 | 120, abi.Pack(1024, 42), 1 << 63, 1<<64 - 1} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v uint64) {
		ptr, n := abi.Unpack(v)
		if got := abi.Pack(ptr, n); got != v {
			t.Fatalf("Pack(Unpack(%#x)) = %#x", v, got)
		}
		if uint64(ptr) != v>>32 || uint64(n) != v&(1<<32-1) {
			t.Fatalf("Unpack(%#x) = %#x, %#x", v, ptr, n)
		}
	})
}

// FuzzLogLevel checks that every level a guest can pass has an MCP name, and
// that levels above emergency count as emergency (ABI.md section 5).
func FuzzLogLevel(f *testing.F) {
	for _, l := range []uint32{0, 3, 7, 8, 1<<32 - 1} {
		f.Add(l)
	}
	names := []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
	f.Fuzz(func(t *testing.T, l uint32) {
		got := abi.LogLevel(l).String()
		want := "emergency"
		if l < uint32(len(names)) {
			want = names[l]
		}
		if got != want {
			t.Fatalf("LogLevel(%d).String() = %q, want %q", l, got, want)
		}
	})
}

// toolName is the rule of ABI.md section 4, written independently of
// ValidToolName. The allowed characters are ASCII, so {1,128} counts bytes.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// FuzzValidToolName compares ValidToolName with the rule as a regexp.
func FuzzValidToolName(f *testing.F) {
	for _, name := range []string{"", "echo", "text.upper", "a-b_c.d", "not allowed!", "é", "a\x00b",
		string(bytes.Repeat([]byte("x"), abi.MaxToolNameLen)), string(bytes.Repeat([]byte("x"), abi.MaxToolNameLen+1))} {
		f.Add(name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := abi.ValidToolName(name), toolName.MatchString(name); got != want {
			t.Fatalf("ValidToolName(%q) = %t, want %t", name, got, want)
		}
	})
}

// contentFields are the JSON fields Content.MarshalJSON may write for each
// type, beside "type", "annotations" and "_meta".
var contentFields = map[string][]string{
	abi.ContentText:         {"text"},
	abi.ContentImage:        {"data", "mimeType"},
	abi.ContentAudio:        {"data", "mimeType"},
	abi.ContentResourceLink: {"uri", "name", "title", "description", "mimeType", "size"},
	abi.ContentResource:     {"resource"},
}

// FuzzContent decodes a content block as the host decodes a guest's result,
// and checks that a block Validate accepts marshals to JSON holding only the
// fields of its type, and decodes back to a valid block that marshals to
// the same bytes. A block Validate refuses must say why.
func FuzzContent(f *testing.F) {
	for _, doc := range []string{
		`{"type":"text","text":"hi"}`,
		`{"type":"text"}`,
		`{"type":"text","text":"x","data":"ignored","uri":"ignored","annotations":{"audience":["user"],"priority":0.5},"_meta":{"k":[1,{"a":null}]}}`,
		`{"type":"image","data":"aGk=","mimeType":"image/png"}`,
		`{"type":"audio","data":"aGk="}`,
		`{"type":"resource_link","uri":"file:///a","name":"a","size":12,"title":"A","description":"d","mimeType":"text/plain"}`,
		`{"type":"resource","resource":{"uri":"file:///a.txt","text":"a"}}`,
		`{"type":"resource","resource":{"uri":"file:///a.bin","blob":"AA==","mimeType":"application/octet-stream","_meta":{}}}`,
		`{"type":"resource","resource":{"uri":"file:///a","text":"a","blob":"AA=="}}`,
		`{"type":"video","text":"x"}`,
		`{"type":""}`,
		`{}`,
		`{"type":"text","text":"\ud800\u00e9\u2028<&>"}`,
	} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var c abi.Content
		if json.Unmarshal(doc, &c) != nil {
			return
		}
		if err := c.Validate(); err != nil {
			if err.Error() == "" {
				t.Fatalf("Validate of %s: empty error", doc)
			}
			return
		}
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("Marshal of valid block %s: %v", doc, err)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(out, &fields); err != nil {
			t.Fatalf("Marshal of %s wrote %s, not a JSON object: %v", doc, out, err)
		}
		allowed := append([]string{"type", "annotations", "_meta"}, contentFields[c.Type]...)
		for k := range fields {
			if !slices.Contains(allowed, k) {
				t.Fatalf("Marshal of %s block %s wrote field %q", c.Type, out, k)
			}
		}
		var back abi.Content
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("Unmarshal of marshalled %s: %v", out, err)
		}
		if err := back.Validate(); err != nil {
			t.Fatalf("block %s, marshalled from valid %s, is invalid: %v", out, doc, err)
		}
		again, err := json.Marshal(back)
		if err != nil {
			t.Fatalf("Marshal of %s: %v", out, err)
		}
		if !bytes.Equal(out, again) {
			t.Fatalf("round trip of %s changed it:\n%s\n%s", doc, out, again)
		}
	})
}

// FuzzHTTPRequest checks that every request a guest can write decodes to
// one that encodes back to the same head and body: the first line feed is
// the only boundary, and no body byte is lost or read as head.
func FuzzHTTPRequest(f *testing.F) {
	f.Add([]byte(`{"url":"https://example.org/"}`))
	f.Add([]byte("{\"method\":\"POST\",\"url\":\"http://a/\",\"headers\":[[\"A\",\"b\\n\"]]}\n\x00\n\xff"))
	f.Add([]byte("{\"url\":\"x\"}\n"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		req, err := abi.DecodeHTTPRequest(doc)
		if err != nil {
			return
		}
		_, body, _ := bytes.Cut(doc, []byte{'\n'})
		if !bytes.Equal(req.Body, body) {
			t.Fatalf("body %q, want %q", req.Body, body)
		}
		again, err := abi.EncodeHTTPRequest(req)
		if err != nil {
			t.Fatalf("EncodeHTTPRequest(%+v): %v", req, err)
		}
		if head, _, _ := bytes.Cut(again, []byte{'\n'}); bytes.IndexByte(head, '\n') >= 0 || len(head) == len(again) && len(body) > 0 {
			t.Fatalf("encoded %q", again)
		}
		back, err := abi.DecodeHTTPRequest(again)
		if err != nil || back.Method != req.Method || back.URL != req.URL || !slices.Equal(back.Headers, req.Headers) || !bytes.Equal(back.Body, req.Body) {
			t.Fatalf("%+v came back as %+v, %v", req, back, err)
		}
	})
}
