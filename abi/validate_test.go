package abi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
)

func ptr[T any](v T) *T { return &v }

func TestValidateTool(t *testing.T) {
	ok := []abi.Tool{
		{Name: "a"},
		{Name: "a", Icons: []abi.Icon{
			{Src: "https://example.com/i.png", MimeType: "image/png", Sizes: []string{"48x48", "any"}, Theme: "dark"},
			{Src: "data:image/svg+xml;base64,PHN2Zy8+"},
			{Src: "HTTP://example.com/i.png", Theme: "light"},
		}},
		{Name: "a", Execution: &abi.ToolExecution{}},
		{Name: "a", Execution: &abi.ToolExecution{TaskSupport: abi.TaskOptional}},
	}
	for i, tool := range ok {
		t.Run(fmt.Sprintf("ok-%d", i), func(t *testing.T) {
			if err := abi.ValidateTool(&tool); err != nil {
				t.Errorf("ValidateTool(%+v) = %v, want nil", tool, err)
			}
		})
	}
	bad := []struct {
		tool abi.Tool
		want string
	}{
		{abi.Tool{}, "name is missing"},
		{abi.Tool{Name: "a b"}, "name must be"},
		{abi.Tool{Name: "a", Icons: make([]abi.Icon, abi.MaxIcons+1)}, "17 icons, more than 16"},
		{abi.Tool{Name: "a", Icons: []abi.Icon{{Src: "javascript:alert(1)"}}}, `scheme "javascript"`},
		{abi.Tool{Name: "a", Icons: []abi.Icon{{Src: "https://x", Sizes: []string{"0x48"}}}}, `icon size "0x48"`},
		{abi.Tool{Name: "a", Icons: []abi.Icon{{Src: "https://x", Sizes: []string{"+4x4"}}}}, `icon size "+4x4"`},
		{abi.Tool{Name: "a", Icons: []abi.Icon{{Src: "https://x", Sizes: make([]string, 17)}}}, "17 sizes"},
		{abi.Tool{Name: "a", Icons: []abi.Icon{{Src: "https://x", Theme: "Dark"}}}, `icon theme "Dark"`},
		{abi.Tool{Name: "a", Execution: &abi.ToolExecution{TaskSupport: "Optional"}}, `taskSupport "Optional"`},
	}
	for i, tc := range bad {
		t.Run(fmt.Sprintf("bad-%d", i), func(t *testing.T) {
			if err := abi.ValidateTool(&tc.tool); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ValidateTool(%+v) = %v, want an error containing %q", tc.tool, err, tc.want)
			}
		})
	}
}

func TestContentAnnotations(t *testing.T) {
	ok := []*abi.ContentAnnotations{
		nil,
		{},
		{Audience: []string{"user", "assistant"}, Priority: ptr(0.0), LastModified: "2025-01-12T15:00:58Z"},
		{Priority: ptr(1.0), LastModified: "2025-01-12T15:00:58.123+01:00"},
		{LastModified: "2025-01-12T15:00:58.123456789012-23:59"},
		{LastModified: "2024-02-29T23:59:59+00:00"},
		{LastModified: "0000-01-12T15:00:58Z"},
	}
	for i, a := range ok {
		t.Run(fmt.Sprintf("ok-%d", i), func(t *testing.T) {
			c := abi.Content{Type: abi.ContentText, Annotations: a}
			if err := c.Validate(); err != nil {
				t.Errorf("Validate(%+v) = %v, want nil", a, err)
			}
		})
	}
	bad := []struct {
		a    abi.ContentAnnotations
		want string
	}{
		{abi.ContentAnnotations{Audience: []string{"alien"}}, `annotations.audience "alien"`},
		{abi.ContentAnnotations{Priority: ptr(7.0)}, "annotations.priority 7 is not between 0 and 1"},
		{abi.ContentAnnotations{Priority: ptr(-0.5)}, "annotations.priority -0.5"},
		{abi.ContentAnnotations{LastModified: "yesterday"}, `annotations.lastModified "yesterday"`},
		{abi.ContentAnnotations{LastModified: "2025-01-12"}, `annotations.lastModified "2025-01-12"`},
		{abi.ContentAnnotations{LastModified: "2025-01-12T15:00:58"}, "not an RFC 3339"},
		// Go's time.Parse takes these; the TypeScript SDK's client refuses
		// them, and the whole result with them.
		{abi.ContentAnnotations{LastModified: "2025-01-12T15:00:58+24:00"}, "not an RFC 3339"},
		{abi.ContentAnnotations{LastModified: "2025-01-12T15:00:58-24:00"}, "not an RFC 3339"},
		{abi.ContentAnnotations{LastModified: "2025-01-12T15:00:58+00:60"}, "not an RFC 3339"},
		{abi.ContentAnnotations{LastModified: "2025-01-12T15:00:58,5Z"}, "not an RFC 3339"},
		// Both refuse these.
		{abi.ContentAnnotations{LastModified: "2025-01-12t15:00:58z"}, "not an RFC 3339"},
		{abi.ContentAnnotations{LastModified: "2025-01-12 15:00:58Z"}, "not an RFC 3339"},
		{abi.ContentAnnotations{LastModified: "2025-01-12T15:00:58.Z"}, "not an RFC 3339"},
		{abi.ContentAnnotations{LastModified: "2025-02-29T15:00:58Z"}, "not an RFC 3339"},
		{abi.ContentAnnotations{LastModified: "1900-02-29T15:00:58Z"}, "not an RFC 3339"},
		{abi.ContentAnnotations{LastModified: "2016-12-31T23:59:60Z"}, "not an RFC 3339"},
		{abi.ContentAnnotations{LastModified: "2025-01-12T24:00:00Z"}, "not an RFC 3339"},
		{abi.ContentAnnotations{LastModified: "2025-01-12T15:00Z"}, "not an RFC 3339"},
		{abi.ContentAnnotations{LastModified: "+2025-01-12T15:00:58Z"}, "not an RFC 3339"},
		{abi.ContentAnnotations{LastModified: "2025-01-12T15:00:58+0100"}, "not an RFC 3339"},
	}
	for i, tc := range bad {
		t.Run(fmt.Sprintf("bad-%d", i), func(t *testing.T) {
			c := abi.Content{Type: abi.ContentText, Annotations: &tc.a}
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate(%+v) = %v, want an error containing %q", tc.a, err, tc.want)
			}
		})
	}
}
