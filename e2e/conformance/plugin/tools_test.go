package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"image/png"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/wasmcptest"
)

// The fixtures that need no client return what the suite's scenario
// descriptions ask for; run.sh checks them, and the others, against the
// suite itself.
func TestFixturesWithoutClient(t *testing.T) {
	if res := wasmcptest.Call(t, "test_simple_text", nil); res.IsError || res.Text() != "This is a simple text response for testing." {
		t.Errorf("test_simple_text: %+v", res)
	}
	if res := wasmcptest.Call(t, "test_error_handling", `{}`); !res.IsError ||
		res.Text() != "This tool intentionally returns an error for testing" {
		t.Errorf("test_error_handling: %+v", res)
	}
	res := wasmcptest.Call(t, "test_embedded_resource", `{}`)
	if c := res.Content; len(c) != 1 || c[0].Type != abi.ContentResource || c[0].Resource.URI != "test://embedded-resource" ||
		c[0].Resource.MimeType != "text/plain" || c[0].Resource.Text == nil || *c[0].Resource.Text != "This is an embedded resource content." {
		t.Errorf("test_embedded_resource: %+v", res)
	}
	res = wasmcptest.Call(t, "test_multiple_content_types", `{}`)
	if c := res.Content; len(c) != 3 || c[0].Type != abi.ContentText || c[1].Type != abi.ContentImage || c[2].Type != abi.ContentResource ||
		c[2].Resource.Text == nil || !json.Valid([]byte(*c[2].Resource.Text)) {
		t.Errorf("test_multiple_content_types: %+v", res)
	}
	res = wasmcptest.Call(t, "test_tool_with_logging", `{}`)
	if len(res.Logs) != 3 || res.Logs[0].Level != abi.LogInfo || res.Logs[2].Message != "Tool execution completed" {
		t.Errorf("test_tool_with_logging logs: %+v", res.Logs)
	}
	if res := wasmcptest.Call(t, "json_schema_2020_12_tool", `{"name":"n","address":{"city":"c"}}`); res.IsError {
		t.Errorf("json_schema_2020_12_tool: %+v", res)
	}
}

func TestMedia(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(redPixelPNG))
	if err != nil {
		t.Fatalf("decode PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1 || b.Dy() != 1 {
		t.Errorf("PNG is %v, want 1x1", b)
	}
	if r, g, b, _ := img.At(0, 0).RGBA(); r != 0xffff || g != 0 || b != 0 {
		t.Errorf("pixel is %d,%d,%d, want red", r, g, b)
	}
	le := binary.LittleEndian
	w := silentWAV
	if string(w[:4]) != "RIFF" || string(w[8:16]) != "WAVEfmt " || string(w[36:40]) != "data" ||
		int(le.Uint32(w[4:])) != len(w)-8 || int(le.Uint32(w[40:])) != len(w)-44 {
		t.Errorf("bad WAV header: % x", w[:44])
	}
}

// The elicitation schemas are sent as they are: they must be JSON objects.
func TestElicitationSchemas(t *testing.T) {
	for name, s := range map[string]json.RawMessage{"user": userSchema, "defaults": defaultsSchema, "enums": enumsSchema} {
		var v struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(s, &v); err != nil || v.Type != "object" || len(v.Properties) == 0 {
			t.Errorf("%s schema: %v %+v", name, err, v)
		}
	}
}
