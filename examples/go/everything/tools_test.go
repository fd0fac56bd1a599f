package main

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/sdk-guest/go/wasmcptest"
)

func TestTools(t *testing.T) {
	var names []string
	for _, tool := range wasmcptest.Tools(t) {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.Annotations == nil || !*tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: description %q, annotations %+v", tool.Name, tool.Description, tool.Annotations)
		}
	}
	want := "echo get-sum get-structured-content get-tiny-image get-resource-links get-error"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("tools %q, want %q", got, want)
	}
}

func TestEcho(t *testing.T) {
	res := wasmcptest.Call(t, "echo", `{"message":"hello, world"}`)
	if res.IsError || res.Text() != "Echo: hello, world" {
		t.Errorf("echo: %+v", res)
	}
	if len(res.Logs) != 1 || res.Logs[0].Message != "echo: hello, world" {
		t.Errorf("echo logs: %+v", res.Logs)
	}
	if res := wasmcptest.Call(t, "echo", `{}`); !res.IsError || !strings.Contains(res.Text(), "message") {
		t.Errorf("missing message: %+v", res)
	}
}

func TestGetSum(t *testing.T) {
	for _, tc := range []struct{ name, args, want string }{
		{"integers", `{"a":7,"b":5}`, "The sum of 7 and 5 is 12."},
		{"fraction", `{"a":0.5,"b":-2}`, "The sum of 0.5 and -2 is -1.5."},
		{"large", `{"a":1e21,"b":0}`, "The sum of 1000000000000000000000 and 0 is 1000000000000000000000."},
		{"rounding", `{"a":0.1,"b":0.2}`, "The sum of 0.1 and 0.2 is 0.30000000000000004."},
		{"zero", `{"a":-7.25,"b":7.25}`, "The sum of -7.25 and 7.25 is 0."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if res := wasmcptest.Call(t, "get-sum", tc.args); res.IsError || res.Text() != tc.want {
				t.Errorf("get-sum %s: %q, want %q", tc.args, res.Text(), tc.want)
			}
		})
	}
	if res := wasmcptest.Call(t, "get-sum", `{"a":"7","b":5}`); !res.IsError {
		t.Errorf("string argument accepted: %+v", res)
	}
	for _, tc := range []struct{ name, args string }{{"positive", `{"a":1e308,"b":1e308}`}, {"negative", `{"a":-1e308,"b":-1e308}`}} {
		t.Run(tc.name, func(t *testing.T) {
			if res := wasmcptest.Call(t, "get-sum", tc.args); !res.IsError || res.Text() != "The sum is out of the range of a 64-bit float." {
				t.Errorf("get-sum %s: %+v, want the overflow error", tc.args, res)
			}
		})
	}
}

func TestGetStructuredContent(t *testing.T) {
	for city, want := range weather {
		t.Run(city, func(t *testing.T) {
			var got Weather
			wasmcptest.Call(t, "get-structured-content", map[string]string{"location": city}).Decode(t, &got)
			if got != want {
				t.Errorf("%s: %+v, want %+v", city, got, want)
			}
		})
	}
	res := wasmcptest.Call(t, "get-structured-content", `{"location":"Paris"}`)
	if !res.IsError || !strings.Contains(res.Text(), "must be one of") {
		t.Errorf("unknown city: %+v", res)
	}
}

func TestGetTinyImage(t *testing.T) {
	res := wasmcptest.Call(t, "get-tiny-image", nil)
	if res.IsError || len(res.Content) != 3 || res.Content[1].Type != "image" || res.Content[1].MimeType != "image/png" {
		t.Fatalf("get-tiny-image: %+v", res)
	}
	data, err := base64.StdEncoding.DecodeString(res.Content[1].Data)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 16 || b.Dy() != 16 {
		t.Errorf("image is %v, want 16x16", b)
	}
}

func TestGetResourceLinks(t *testing.T) {
	res := wasmcptest.Call(t, "get-resource-links", `{"count":2}`)
	if len(res.Content) != 3 || res.Content[2].Type != "resource_link" || res.Content[2].URI != "test://static/resource/2" {
		t.Errorf("two links: %+v", res.Content)
	}
	if res := wasmcptest.Call(t, "get-resource-links", nil); len(res.Content) != 4 {
		t.Errorf("default count: %d blocks", len(res.Content))
	}
	if res := wasmcptest.Call(t, "get-resource-links", `{"count":11}`); !res.IsError {
		t.Errorf("count over the maximum accepted")
	}
}

func TestGetError(t *testing.T) {
	res := wasmcptest.Call(t, "get-error", nil)
	if !res.IsError || res.Text() != "get-error: this tool always fails" {
		t.Errorf("get-error: %+v", res)
	}
	res = wasmcptest.Call(t, "get-error", `{"message":"disk on fire"}`)
	if !res.IsError || res.Text() != "get-error: disk on fire" || len(res.Logs) != 1 {
		t.Errorf("get-error with message: %+v", res)
	}
}
