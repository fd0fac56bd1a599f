package mcpadapter

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
)

// toMCPTool translates a definition. Schemas stay raw JSON so that clients see
// them byte for byte as the guest wrote them.
func toMCPTool(t abi.Tool) *mcp.Tool {
	mt := &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: t.InputSchema,
		Meta:        mcp.Meta(t.Meta),
	}
	// Assigned only when present: a nil json.RawMessage inside the interface
	// would be sent as "outputSchema": null.
	if len(t.OutputSchema) > 0 {
		mt.OutputSchema = t.OutputSchema
	}
	for _, i := range t.Icons {
		mt.Icons = append(mt.Icons, mcp.Icon{Source: i.Src, MIMEType: i.MimeType, Sizes: i.Sizes, Theme: mcp.IconTheme(i.Theme)})
	}
	if a := t.Annotations; a != nil {
		// The SDK's readOnlyHint and idempotentHint are plain bools; absent
		// and false mean the same thing in the spec (both default to false).
		mt.Annotations = &mcp.ToolAnnotations{
			Title:           a.Title,
			ReadOnlyHint:    a.ReadOnlyHint != nil && *a.ReadOnlyHint,
			DestructiveHint: a.DestructiveHint,
			IdempotentHint:  a.IdempotentHint != nil && *a.IdempotentHint,
			OpenWorldHint:   a.OpenWorldHint,
		}
	}
	return mt
}

// toCallToolResult translates a completed host result, whose
// structuredContent the host has already settled (ABI.md section 4). A
// content block whose base64 payload does not decode cannot be represented
// by the SDK's types; it turns the whole result into a tool error that says
// so, as a malformed guest result does in the host.
// maxWire is the largest result sent: what go-sdk's client reads in one
// message by default, less room for the response around the result.
const maxWire = mcp.DefaultMaxLineLength - 64<<10

// overWire reports the size of r as go-sdk sends it, when that is over
// maxWire. go-sdk encodes text with json.Marshal, which writes <, > and &
// as six bytes each, so a result within the host's output limit may still
// be more than a client reads: its session would end. The size is counted,
// not encoded: a result of megabytes of "<" would take tens of megabytes to
// encode only to be refused.
func overWire(r *abi.Result) (int, bool) {
	// What the content blocks' member names, quotes and commas take, at
	// most.
	const perBlock = 256
	n := perBlock + jsonWireLen(r.StructuredContent) + metaSize(r.Meta)
	for _, c := range r.Content {
		n += perBlock + wireLen(c.Type) + wireLen(c.Text) + wireLen(c.Data) + wireLen(c.URI) + wireLen(c.Name) +
			wireLen(c.Title) + wireLen(c.Description) + wireLen(c.MimeType) + metaSize(c.Meta)
		if a := c.Annotations; a != nil {
			n += perBlock + wireLen(a.LastModified)
			for _, s := range a.Audience {
				n += wireLen(s) + 3
			}
		}
		if rc := c.Resource; rc != nil {
			n += perBlock + wireLen(rc.URI) + wireLen(rc.MimeType) + metaSize(rc.Meta)
			if rc.Text != nil {
				n += wireLen(*rc.Text)
			}
			if rc.Blob != nil {
				n += wireLen(*rc.Blob)
			}
		}
	}
	return n, n > maxWire
}

// wireLen is the length of s as json.Marshal writes it, quotes included.
func wireLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '<' || c == '>' || c == '&':
				n += 6
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// jsonWireLen is the length of the JSON value v as json.Marshal writes a
// json.RawMessage, at most: compacted, with <, >, & and U+2028 and U+2029
// escaped as six bytes.
func jsonWireLen(v []byte) int {
	n := len(v)
	for _, c := range v {
		if c == '<' || c == '>' || c == '&' {
			n += 5
		}
	}
	return n + 3*bytes.Count(v, []byte("\u2028")) + 3*bytes.Count(v, []byte("\u2029"))
}

func metaSize(m map[string]any) int {
	if len(m) == 0 {
		return 0
	}
	b, _ := json.Marshal(m)
	return len(b)
}

func toCallToolResult(r *abi.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{
		Meta:    mcp.Meta(r.Meta),
		Content: make([]mcp.Content, 0, len(r.Content)),
		IsError: r.IsError,
	}
	if len(r.StructuredContent) > 0 {
		// Assigned only when present: a nil json.RawMessage inside the
		// interface would be sent as "structuredContent": null.
		out.StructuredContent = r.StructuredContent
	}
	for i, c := range r.Content {
		mc, err := toMCPContent(c)
		if err != nil {
			return &mcp.CallToolResult{
				Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("malformed tool result: content[%d]: %v", i, err)}},
				IsError: true,
			}
		}
		out.Content = append(out.Content, mc)
	}
	if len(out.Content) == 0 {
		// The host completes results so this does not happen; MCP requires
		// at least one block, so keep the promise here too.
		out.Content = append(out.Content, &mcp.TextContent{Text: ""})
	}
	return out
}

func toMCPContent(c abi.Content) (mcp.Content, error) {
	ann := toMCPAnnotations(c.Annotations)
	meta := mcp.Meta(c.Meta)
	switch c.Type {
	case abi.ContentText:
		return &mcp.TextContent{Text: c.Text, Meta: meta, Annotations: ann}, nil
	case abi.ContentImage, abi.ContentAudio:
		data, err := decodeBase64(c.Data)
		if err != nil {
			return nil, fmt.Errorf("%s data: %w", c.Type, err)
		}
		if c.Type == abi.ContentImage {
			return &mcp.ImageContent{Data: data, MIMEType: c.MimeType, Meta: meta, Annotations: ann}, nil
		}
		return &mcp.AudioContent{Data: data, MIMEType: c.MimeType, Meta: meta, Annotations: ann}, nil
	case abi.ContentResourceLink:
		return &mcp.ResourceLink{
			URI:         c.URI,
			Name:        c.Name,
			Title:       c.Title,
			Description: c.Description,
			MIMEType:    c.MimeType,
			Size:        c.Size,
			Meta:        meta,
			Annotations: ann,
		}, nil
	case abi.ContentResource:
		if c.Resource == nil {
			return nil, fmt.Errorf("resource content has no resource")
		}
		rc := &mcp.ResourceContents{URI: c.Resource.URI, MIMEType: c.Resource.MimeType, Meta: mcp.Meta(c.Resource.Meta)}
		switch {
		case c.Resource.Text != nil:
			rc.Text = *c.Resource.Text
		case c.Resource.Blob != nil:
			blob, err := decodeBase64(*c.Resource.Blob)
			if err != nil {
				return nil, fmt.Errorf("resource blob: %w", err)
			}
			rc.Blob = blob
		}
		return &mcp.EmbeddedResource{Resource: rc, Meta: meta, Annotations: ann}, nil
	}
	return nil, fmt.Errorf("content type %q is not one of text, image, audio, resource_link, resource", c.Type)
}

func toMCPAnnotations(a *abi.ContentAnnotations) *mcp.Annotations {
	if a == nil {
		return nil
	}
	out := &mcp.Annotations{LastModified: a.LastModified}
	for _, r := range a.Audience {
		out.Audience = append(out.Audience, mcp.Role(r))
	}
	if a.Priority != nil {
		out.Priority = *a.Priority
	}
	return out
}

// decodeBase64 accepts standard base64 with or without padding. The SDK
// holds binary payloads as bytes and encodes them again on the wire, always
// padded.
func decodeBase64(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err == nil {
		return b, nil
	}
	if b, err2 := base64.RawStdEncoding.DecodeString(s); err2 == nil {
		return b, nil
	}
	return nil, fmt.Errorf("not valid base64: %w", err)
}
