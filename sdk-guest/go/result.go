package wasmcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/guest"
)

// Content is one MCP content block. Build blocks with Text, Image, Audio,
// ResourceLink, EmbeddedText and EmbeddedBlob, and set the optional fields
// (Annotations, Meta, a resource link's Title, ...) on the returned value.
type Content = abi.Content

// Result is a tool result built by hand, for tools whose Out type is
// *Result: several content blocks, images, a tool error, or structured
// content alongside a custom text.
type Result struct {
	// Content is what clients show the model. The host adds a text block
	// mirroring StructuredContent when Content is empty.
	Content []Content
	// StructuredContent, when not nil, is encoded as the result's
	// structuredContent and must encode to a JSON object. A json.RawMessage
	// is sent as is.
	StructuredContent any
	// IsError marks a tool error the model should read and may correct.
	IsError bool
	// Meta is the result's _meta object.
	Meta map[string]any
}

// NewResult returns a successful result made of the given content blocks.
func NewResult(content ...Content) *Result {
	return &Result{Content: content}
}

// Structured returns a successful result whose structuredContent is v, which
// must encode to a JSON object.
func Structured(v any) *Result {
	return &Result{StructuredContent: v}
}

// Error returns a tool error result with msg as its text. (To log at error
// level, use Log(LevelError, msg).)
func Error(msg string) *Result {
	return &Result{Content: []Content{abi.Text(msg)}, IsError: true}
}

// Errorf is Error with fmt.Sprintf formatting.
func Errorf(format string, args ...any) *Result {
	return Error(fmt.Sprintf(format, args...))
}

func (r *Result) toABI() *abi.Result {
	if r == nil {
		return nil // reported by the dispatcher as "returned no result"
	}
	res := &abi.Result{Content: r.Content, IsError: r.IsError, Meta: r.Meta}
	switch sc := r.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		if !json.Valid(sc) {
			return guest.ErrorResult("structured content is not valid JSON")
		}
		res.StructuredContent = sc
	default:
		b, err := json.Marshal(sc)
		if err != nil {
			return guest.ErrorResult(fmt.Sprintf("encode structured content: %v", err))
		}
		res.StructuredContent = b
	}
	return res
}

// Text returns a text content block.
func Text(text string) Content { return abi.Text(text) }

// Image returns an image content block holding data (raw bytes, base64
// encoded here) of the given MIME type, such as "image/png".
func Image(data []byte, mimeType string) Content {
	return abi.Image(base64.StdEncoding.EncodeToString(data), mimeType)
}

// Audio returns an audio content block holding data (raw bytes, base64
// encoded here) of the given MIME type, such as "audio/wav".
func Audio(data []byte, mimeType string) Content {
	return abi.Audio(base64.StdEncoding.EncodeToString(data), mimeType)
}

// ResourceLink returns a block linking to a resource the client may fetch.
// Set Title, Description, MimeType or Size on the result as needed.
func ResourceLink(uri, name string) Content {
	return Content{Type: abi.ContentResourceLink, URI: uri, Name: name}
}

// EmbeddedText returns a block embedding a text resource. mimeType may be "".
func EmbeddedText(uri, mimeType, text string) Content {
	return Content{Type: abi.ContentResource, Resource: &abi.ResourceContents{URI: uri, MimeType: mimeType, Text: &text}}
}

// EmbeddedBlob returns a block embedding a binary resource (data is base64
// encoded here). mimeType may be "".
func EmbeddedBlob(uri, mimeType string, data []byte) Content {
	blob := base64.StdEncoding.EncodeToString(data)
	return Content{Type: abi.ContentResource, Resource: &abi.ResourceContents{URI: uri, MimeType: mimeType, Blob: &blob}}
}
