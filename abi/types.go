package abi

import (
	"encoding/json"
	"fmt"
)

// Describe is the document ExportDescribe returns. Fields a host does not
// know are ignored, so later ABI minor additions do not break older hosts.
type Describe struct {
	// Tools are the module's tool definitions, at most MaxTools.
	Tools []Tool `json:"tools"`
	// Resources, ResourceTemplates and Prompts are what the module offers
	// beside its tools (resources.go), served through ExportRead,
	// ExportPrompt and ExportComplete.
	Resources         []Resource         `json:"resources,omitempty"`
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates,omitempty"`
	Prompts           []Prompt           `json:"prompts,omitempty"`
	// Permissions, when present, is what the module asks the operator for
	// beyond the closed sandbox. A host grants at most the intersection of
	// this request and its operator's policy, never more; nil asks for
	// nothing.
	Permissions *Permissions `json:"permissions,omitempty"`
}

// Permissions is a module's request for capabilities (ABI.md section 4).
type Permissions struct {
	// FS are the directories the module wants to see, by guest path.
	FS []FSPermission `json:"fs,omitempty"`
	// Env are the names of the environment variables it wants to read.
	Env []string `json:"env,omitempty"`
	// Clock asks for the host's real clocks instead of deterministic ones.
	Clock bool `json:"clock,omitempty"`
	// Random asks for a cryptographic random source instead of a
	// deterministic one.
	Random bool `json:"random,omitempty"`
	// Net are the origins the module wants to reach with ImportHTTPRequest:
	// "https://api.example.com", "https://*.example.com" (its subdomains),
	// "http://127.0.0.1:8080", or "*" for any origin the policy allows.
	Net []string `json:"net,omitempty"`
}

// FSPermission asks for one directory, at an absolute guest path.
type FSPermission struct {
	Path string `json:"path"`
	// Write asks for write access; without it the request is read-only.
	Write bool `json:"write,omitempty"`
}

// Tool is one tool definition, shaped as MCP's Tool object. InputSchema and
// OutputSchema are kept as raw JSON so that a host passes them to clients
// exactly as the guest wrote them.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	// Icons are images a client may show beside the tool.
	Icons []Icon `json:"icons,omitempty"`
	// Execution says how the tool may be run (MCP 2025-11-25).
	Execution *ToolExecution `json:"execution,omitempty"`
	// Meta is MCP's _meta: opaque to wasmcp, passed to clients as given.
	Meta map[string]any `json:"_meta,omitempty"`
}

// Icon is MCP's Icon: an image a client may display for a tool.
type Icon struct {
	// Src is an https, http or data URI.
	Src      string `json:"src"`
	MimeType string `json:"mimeType,omitempty"`
	// Sizes are "WxH" (such as "48x48") or "any".
	Sizes []string `json:"sizes,omitempty"`
	// Theme is "light" or "dark": the background the icon is made for.
	Theme string `json:"theme,omitempty"`
}

// ToolExecution is MCP's ToolExecution.
type ToolExecution struct {
	// TaskSupport is "forbidden", "optional" or "required": whether the tool
	// may be run as an MCP task. wasmcp runs no tasks, so a client sees the
	// value but never gets the tasks capability.
	TaskSupport string `json:"taskSupport,omitempty"`
}

// ToolAnnotations are MCP's behavioural hints. Clients must treat them as
// untrusted; wasmcp passes them through and enforces nothing with them.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Result is the document ExportCall returns, shaped as MCP's
// CallToolResult. A host completes it before it reaches a client (ABI.md
// section 4): it adds a text block when Content is empty, an empty object
// when a successful result has no StructuredContent, and removes an error's
// StructuredContent unless it conforms to the tool's outputSchema.
type Result struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              map[string]any  `json:"_meta,omitempty"`
}

// Content types, the values of Content.Type.
const (
	ContentText         = "text"
	ContentImage        = "image"
	ContentAudio        = "audio"
	ContentResourceLink = "resource_link"
	ContentResource     = "resource"
)

// Content is one MCP content block. Which fields apply depends on Type:
//
//	text           Text
//	image, audio   Data (base64) and MimeType
//	resource_link  URI, Name, and optionally Title, Description, MimeType, Size
//	resource       Resource (an embedded resource with URI and Text or Blob)
//
// Annotations and Meta apply to every type.
type Content struct {
	Type        string              `json:"type"`
	Text        string              `json:"text"`
	Data        string              `json:"data"`
	MimeType    string              `json:"mimeType,omitempty"`
	URI         string              `json:"uri"`
	Name        string              `json:"name"`
	Title       string              `json:"title,omitempty"`
	Description string              `json:"description,omitempty"`
	Size        *int64              `json:"size,omitempty"`
	Resource    *ResourceContents   `json:"resource"`
	Annotations *ContentAnnotations `json:"annotations,omitempty"`
	Meta        map[string]any      `json:"_meta,omitempty"`
}

// ResourceContents is the body of an embedded resource: Text for text
// resources, Blob (base64) for binary ones.
type ResourceContents struct {
	URI      string         `json:"uri"`
	MimeType string         `json:"mimeType,omitempty"`
	Text     *string        `json:"text,omitempty"`
	Blob     *string        `json:"blob,omitempty"`
	Meta     map[string]any `json:"_meta,omitempty"`
}

// ContentAnnotations are MCP's audience, priority and lastModified hints.
type ContentAnnotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// Text returns a text content block.
func Text(s string) Content { return Content{Type: ContentText, Text: s} }

// Image returns an image content block from base64 data.
func Image(base64Data, mimeType string) Content {
	return Content{Type: ContentImage, Data: base64Data, MimeType: mimeType}
}

// Audio returns an audio content block from base64 data.
func Audio(base64Data, mimeType string) Content {
	return Content{Type: ContentAudio, Data: base64Data, MimeType: mimeType}
}

// MarshalJSON writes only the fields that belong to c.Type, so that a text
// block never carries "data":"" and an empty text is still written.
func (c Content) MarshalJSON() ([]byte, error) {
	type common struct {
		Type        string              `json:"type"`
		Annotations *ContentAnnotations `json:"annotations,omitempty"`
		Meta        map[string]any      `json:"_meta,omitempty"`
	}
	base := common{c.Type, c.Annotations, c.Meta}
	switch c.Type {
	case ContentText:
		return json.Marshal(struct {
			common
			Text string `json:"text"`
		}{base, c.Text})
	case ContentImage, ContentAudio:
		return json.Marshal(struct {
			common
			Data     string `json:"data"`
			MimeType string `json:"mimeType"`
		}{base, c.Data, c.MimeType})
	case ContentResourceLink:
		return json.Marshal(struct {
			common
			URI         string `json:"uri"`
			Name        string `json:"name"`
			Title       string `json:"title,omitempty"`
			Description string `json:"description,omitempty"`
			MimeType    string `json:"mimeType,omitempty"`
			Size        *int64 `json:"size,omitempty"`
		}{base, c.URI, c.Name, c.Title, c.Description, c.MimeType, c.Size})
	case ContentResource:
		return json.Marshal(struct {
			common
			Resource *ResourceContents `json:"resource"`
		}{base, c.Resource})
	}
	return nil, fmt.Errorf("content type %q is not one of text, image, audio, resource_link, resource", c.Type)
}

// Validate reports the first way c breaks the rules of its Type or of MCP's
// content annotations.
func (c *Content) Validate() error {
	if err := c.Annotations.Validate(); err != nil {
		return fmt.Errorf("%s content: %w", c.Type, err)
	}
	switch c.Type {
	case ContentText:
		return nil
	case ContentImage, ContentAudio:
		if c.Data == "" || c.MimeType == "" {
			return fmt.Errorf("%s content needs data and mimeType", c.Type)
		}
		return nil
	case ContentResourceLink:
		if c.URI == "" || c.Name == "" {
			return fmt.Errorf("resource_link content needs uri and name")
		}
		return nil
	case ContentResource:
		if c.Resource == nil || c.Resource.URI == "" {
			return fmt.Errorf("resource content needs resource.uri")
		}
		if (c.Resource.Text == nil) == (c.Resource.Blob == nil) {
			return fmt.Errorf("resource content needs exactly one of resource.text and resource.blob")
		}
		if err := c.Resource.Validate(); err != nil {
			return fmt.Errorf("resource content: %w", err)
		}
		return nil
	case "":
		return fmt.Errorf("content block has no type")
	}
	return fmt.Errorf("content type %q is not one of text, image, audio, resource_link, resource", c.Type)
}
