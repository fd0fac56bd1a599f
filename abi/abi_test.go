package abi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
)

// Every name and limit of abi.go appears in ABI.md, so that the two cannot
// drift apart unnoticed.
func TestDocumentNamesConstants(t *testing.T) {
	md, err := os.ReadFile("ABI.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		abi.ExportMemory, abi.ExportInitialize, abi.ExportVersion, abi.ExportAlloc, abi.ExportDescribe,
		abi.ExportCall, abi.ImportModule, abi.ImportLog, abi.ImportProgress, abi.ImportCancelled,
		abi.ImportSample, abi.ImportElicit, abi.ImportReadReply,
	} {
		if !strings.Contains(string(md), "`"+name+"`") {
			t.Errorf("ABI.md does not mention `%s`", name)
		}
	}
	for _, phrase := range []string{
		"# The wasmcp guest ABI, version 1",
		"At most 1024 tools per module; the document is at most 4 MiB.",
		"Messages over 64 KiB are truncated.",
		"1–128 characters",
	} {
		if !strings.Contains(string(md), phrase) {
			t.Errorf("ABI.md does not say %q", phrase)
		}
	}
	if abi.Version != 1 || abi.MaxTools != 1024 || abi.MaxDescribeSize != 4<<20 || abi.MaxLogSize != 64<<10 || abi.MaxToolNameLen != 128 {
		t.Error("a constant of abi.go disagrees with the numbers of ABI.md checked above")
	}
}

func TestPackUnpack(t *testing.T) {
	for i, c := range []struct{ ptr, n uint32 }{{0, 0}, {16, 120}, {1024, 0}, {0xFFFFFFFF, 0xFFFFFFFF}} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			v := abi.Pack(c.ptr, c.n)
			if ptr, n := abi.Unpack(v); ptr != c.ptr || n != c.n {
				t.Errorf("Unpack(Pack(%d, %d)) = %d, %d", c.ptr, c.n, ptr, n)
			}
		})
	}
	if abi.Pack(16, 120) != 16<<32|120 {
		t.Error("Pack does not put the pointer in the high 32 bits")
	}
}

func TestValidToolName(t *testing.T) {
	for _, tc := range []struct {
		name, tool string
		want       bool
	}{
		{"word", "echo", true}, {"punctuation", "a.b-c_D9", true}, {"128 characters", strings.Repeat("x", 128), true},
		{"empty", "", false}, {"129 characters", strings.Repeat("x", 129), false}, {"space", "a b", false},
		{"slash", "a/b", false}, {"non-ASCII", "é", false}, {"colon", "a:b", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := abi.ValidToolName(tc.tool); got != tc.want {
				t.Errorf("ValidToolName(%q) = %v, want %v", tc.tool, got, tc.want)
			}
		})
	}
}

func TestLogLevelString(t *testing.T) {
	if abi.LogDebug.String() != "debug" || abi.LogNotice.String() != "notice" || abi.LogEmergency.String() != "emergency" {
		t.Error("LogLevel names differ from MCP's")
	}
	if abi.LogLevel(99).String() != "emergency" {
		t.Error("a level above emergency is not emergency")
	}
}

func TestContent(t *testing.T) {
	text, blob, size := "t", "YQ==", int64(3)
	tests := []struct {
		c       abi.Content
		json    string // "" when Validate must fail
		problem string
	}{
		{abi.Text(""), `{"type":"text","text":""}`, ""},
		{abi.Image("aGk=", "image/png"), `{"type":"image","data":"aGk=","mimeType":"image/png"}`, ""},
		{abi.Audio("aGk=", "audio/wav"), `{"type":"audio","data":"aGk=","mimeType":"audio/wav"}`, ""},
		{abi.Content{Type: abi.ContentResourceLink, URI: "file:///a", Name: "a", Size: &size},
			`{"type":"resource_link","uri":"file:///a","name":"a","size":3}`, ""},
		{abi.Content{Type: abi.ContentResource, Resource: &abi.ResourceContents{URI: "u", Text: &text}},
			`{"type":"resource","resource":{"uri":"u","text":"t"}}`, ""},
		{abi.Content{Type: abi.ContentResource, Resource: &abi.ResourceContents{URI: "u", Blob: &blob}},
			`{"type":"resource","resource":{"uri":"u","blob":"YQ=="}}`, ""},
		{abi.Image("", "image/png"), "", "image content needs data and mimeType"},
		{abi.Content{Type: abi.ContentResourceLink, URI: "u"}, "", "resource_link content needs uri and name"},
		{abi.Content{Type: abi.ContentResource}, "", "resource content needs resource.uri"},
		{abi.Content{Type: abi.ContentResource, Resource: &abi.ResourceContents{URI: "u", Text: &text, Blob: &blob}}, "",
			"resource content needs exactly one of resource.text and resource.blob"},
		{abi.Content{}, "", "content block has no type"},
		{abi.Content{Type: "video"}, "", `content type "video" is not one of text, image, audio, resource_link, resource`},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			err := tt.c.Validate()
			if tt.problem != "" {
				if err == nil || err.Error() != tt.problem {
					t.Errorf("Validate(%+v) = %v, want %q", tt.c, err, tt.problem)
				}
				return
			}
			if err != nil {
				t.Errorf("Validate(%+v) = %v", tt.c, err)
			}
			got, err := json.Marshal(tt.c)
			if err != nil || string(got) != tt.json {
				t.Errorf("Marshal(%+v) = %s, %v; want %s", tt.c, got, err, tt.json)
			}
		})
	}
	if _, err := json.Marshal(abi.Content{Type: "video"}); err == nil {
		t.Error("Marshal of an unknown content type succeeded")
	}
}

// Every reply status is in ABI.md's status table, by number and name.
func TestDocumentReplyStatuses(t *testing.T) {
	md, err := os.ReadFile("ABI.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []abi.ReplyStatus{abi.StatusOK, abi.StatusUnsupported, abi.StatusFailed, abi.StatusInvalid, abi.StatusTimeout, abi.StatusDenied} {
		row := fmt.Sprintf("| `%d` | `%s` |", uint32(s), s)
		if !strings.Contains(string(md), row) {
			t.Errorf("ABI.md has no status row %q", row)
		}
	}
	if got := abi.ReplyStatus(77).String(); got != "status 77" {
		t.Errorf("unknown status String() = %q", got)
	}
}

func TestPackReply(t *testing.T) {
	for i, c := range []struct {
		s abi.ReplyStatus
		n uint32
	}{{abi.StatusOK, 0}, {abi.StatusFailed, 17}, {abi.StatusTimeout, 1<<32 - 1}} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			v := abi.PackReply(c.s, c.n)
			if v>>32 != uint64(c.s) || uint32(v) != c.n {
				t.Errorf("PackReply(%v, %d) = %#x", c.s, c.n, v)
			}
			if s, n := abi.UnpackReply(v); s != c.s || n != c.n {
				t.Errorf("UnpackReply(%#x) = %v, %d", v, s, n)
			}
		})
	}
}

// A request is a one-line JSON head, then the raw body; a header is a pair
// in JSON, and nothing else decodes as one.
func TestHTTPRequestDocument(t *testing.T) {
	body := []byte("a\nb\x00\n")
	doc, err := abi.EncodeHTTPRequest(abi.HTTPRequest{URL: "https://example.org/", Headers: []abi.HTTPHeader{{Name: "Accept", Value: "text/html"}}, Body: body})
	if want := "{\"url\":\"https://example.org/\",\"headers\":[[\"Accept\",\"text/html\"]]}\n" + string(body); err != nil || string(doc) != want {
		t.Errorf("EncodeHTTPRequest = %q, %v; want %q", doc, err, want)
	}
	req, err := abi.DecodeHTTPRequest(doc)
	if err != nil || req.Headers[0] != (abi.HTTPHeader{Name: "Accept", Value: "text/html"}) || !bytes.Equal(req.Body, body) {
		t.Errorf("DecodeHTTPRequest = %+v, %v", req, err)
	}
	for _, tc := range []struct{ name, doc, want string }{
		{"no body", `{"url":"https://example.org/"}`, ""},
		{"empty body", "{\"url\":\"https://example.org/\"}\n", ""},
		{"body", "{\"url\":\"x\"}\r\n\r\n", "\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if req, err := abi.DecodeHTTPRequest([]byte(tc.doc)); err != nil || string(req.Body) != tc.want {
				t.Errorf("DecodeHTTPRequest(%q) = %q, %v; want body %q", tc.doc, req.Body, err, tc.want)
			}
		})
	}
	for i, bad := range []string{`{"url":"x","body":"aGk="}`, "{\"url\":\n\"x\"}", `["x"]`, ""} {
		t.Run(fmt.Sprintf("bad-%d", i), func(t *testing.T) {
			if req, err := abi.DecodeHTTPRequest([]byte(bad)); err == nil {
				t.Errorf("DecodeHTTPRequest(%q) = %+v, want an error", bad, req)
			}
		})
	}
	reply := abi.EncodeHTTPResponse(abi.HTTPResponse{Status: 200, URL: "https://example.org/"})
	if want := "{\"status\":200,\"url\":\"https://example.org/\",\"headers\":[]}\n"; string(reply) != want {
		t.Errorf("EncodeHTTPResponse = %q, want %q", reply, want)
	}
	res, err := abi.DecodeHTTPResponse(abi.EncodeHTTPResponse(abi.HTTPResponse{Status: 404, Body: body}))
	if err != nil || res.Status != 404 || !bytes.Equal(res.Body, body) {
		t.Errorf("DecodeHTTPResponse = %+v, %v", res, err)
	}
	if res, err := abi.DecodeHTTPResponse([]byte(`{"status":200}`)); err == nil {
		t.Errorf("a reply without a line feed decoded as %+v", res)
	}
	for i, bad := range []string{`[]`, `["a"]`, `["a","b","c"]`, `["a",1]`, `[null,"b"]`, `{"a":"b"}`, `"a: b"`} {
		t.Run(fmt.Sprintf("header-%d", i), func(t *testing.T) {
			var h abi.HTTPHeader
			if err := json.Unmarshal([]byte(bad), &h); err == nil {
				t.Errorf("header %s decoded as %+v", bad, h)
			}
		})
	}
}
