package abi

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Resource is one resource definition, shaped as MCP's Resource (ABI.md
// section 4, "Resources and prompts").
type Resource struct {
	URI         string              `json:"uri"`
	Name        string              `json:"name"`
	Title       string              `json:"title,omitempty"`
	Description string              `json:"description,omitempty"`
	MimeType    string              `json:"mimeType,omitempty"`
	Size        *int64              `json:"size,omitempty"`
	Annotations *ContentAnnotations `json:"annotations,omitempty"`
	Icons       []Icon              `json:"icons,omitempty"`
	Meta        map[string]any      `json:"_meta,omitempty"`
}

// ResourceTemplate is one template of resource URIs, shaped as MCP's
// ResourceTemplate. URITemplate is an RFC 6570 template.
type ResourceTemplate struct {
	URITemplate string              `json:"uriTemplate"`
	Name        string              `json:"name"`
	Title       string              `json:"title,omitempty"`
	Description string              `json:"description,omitempty"`
	MimeType    string              `json:"mimeType,omitempty"`
	Annotations *ContentAnnotations `json:"annotations,omitempty"`
	Icons       []Icon              `json:"icons,omitempty"`
	Meta        map[string]any      `json:"_meta,omitempty"`
}

// Prompt is one prompt definition, shaped as MCP's Prompt.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"`
	Meta        map[string]any   `json:"_meta,omitempty"`
}

// PromptArgument is one argument a prompt takes; its value is a string.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// ReadResult is the document ExportRead returns, shaped as MCP's
// ReadResourceResult, or an error.
type ReadResult struct {
	Contents []ResourceContents `json:"contents"`
	Error    *GuestError        `json:"error,omitempty"`
}

// PromptResult is the document ExportPrompt returns, shaped as MCP's
// GetPromptResult, or an error.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	Error       *GuestError     `json:"error,omitempty"`
}

// PromptMessage is one message of a prompt: a role ("user" or "assistant")
// and one content block.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// CompleteRequest is the input of ExportComplete: the params of MCP's
// completion/complete.
type CompleteRequest struct {
	Ref      CompleteReference `json:"ref"`
	Argument CompleteArgument  `json:"argument"`
	Context  *CompleteContext  `json:"context,omitempty"`
}

// Values of CompleteReference.Type.
const (
	RefPrompt   = "ref/prompt"
	RefResource = "ref/resource"
)

// CompleteReference names what is completed: a prompt by Name (RefPrompt)
// or a resource template by its URITemplate in URI (RefResource).
type CompleteReference struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// CompleteArgument is the argument being completed and what the user has
// typed of it.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext holds the arguments already chosen.
type CompleteContext struct {
	Arguments map[string]string `json:"arguments,omitempty"`
}

// CompleteResult is the document ExportComplete returns, or an error.
type CompleteResult struct {
	Values  []string    `json:"values"`
	Total   *int        `json:"total,omitempty"`
	HasMore bool        `json:"hasMore,omitempty"`
	Error   *GuestError `json:"error,omitempty"`
}

// JSON-RPC codes a guest may give a GuestError; any other is sent as
// CodeInternalError.
const (
	CodeResourceNotFound = -32002
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
)

// GuestError is a guest's refusal of a read, a prompt or a completion.
type GuestError struct {
	Code    int    `json:"code,omitempty"`
	Message string `json:"message"`
}

// JSONRPCCode is the code the client gets for e.
func (e *GuestError) JSONRPCCode() int {
	switch e.Code {
	case CodeResourceNotFound, CodeInvalidParams:
		return e.Code
	}
	return CodeInternalError
}

// AppMimeType is the media type of an MCP Apps view, a resource of the
// scheme AppScheme; AppExtension is the extension's identifier.
const (
	AppMimeType  = "text/html;profile=mcp-app"
	AppScheme    = "ui"
	AppExtension = "io.modelcontextprotocol/ui"
)

// ValidateResource reports the first way r breaks ABI.md's rules for a
// resource.
func ValidateResource(r *Resource) error {
	if err := validURI(r.URI, false); err != nil {
		return err
	}
	if err := validCommon(r.Name, r.MimeType, r.Annotations, r.Icons); err != nil {
		return err
	}
	if r.Size != nil && *r.Size < 0 {
		return fmt.Errorf("size %d is negative", *r.Size)
	}
	if IsApp(r.URI) && r.MimeType != AppMimeType {
		return fmt.Errorf("a %s:// view must have the mimeType %q, not %q", AppScheme, AppMimeType, truncate(r.MimeType))
	}
	return nil
}

// ValidateResourceTemplate reports the first way t breaks ABI.md's rules
// for a template that do not need it parsed: its literal prefix holds a
// scheme.
func ValidateResourceTemplate(t *ResourceTemplate) error {
	if err := validURI(t.URITemplate, true); err != nil {
		return fmt.Errorf("uriTemplate: %w", err)
	}
	return validCommon(t.Name, t.MimeType, t.Annotations, t.Icons)
}

// TemplatePrefix is the text of a URI template before its first
// expression.
func TemplatePrefix(template string) string {
	prefix, _, _ := strings.Cut(template, "{")
	return prefix
}

// ValidatePrompt reports the first way p breaks ABI.md's rules for a
// prompt.
func ValidatePrompt(p *Prompt) error {
	switch {
	case p.Name == "":
		return errors.New("name is missing")
	case !ValidToolName(p.Name):
		return fmt.Errorf("name must be 1 to %d characters of [A-Za-z0-9_.-]", MaxToolNameLen)
	case len(p.Arguments) > MaxPromptArguments:
		return fmt.Errorf("%d arguments, more than %d", len(p.Arguments), MaxPromptArguments)
	}
	seen := make(map[string]bool, len(p.Arguments))
	for i, a := range p.Arguments {
		switch {
		case a.Name == "" || len(a.Name) > MaxToolNameLen:
			return fmt.Errorf("arguments[%d]: name must be 1 to %d bytes", i, MaxToolNameLen)
		case seen[a.Name]:
			return fmt.Errorf("arguments[%d]: %q defined twice", i, truncate(a.Name))
		}
		seen[a.Name] = true
	}
	return validIcons(p.Icons)
}

// Validate reports the first way r breaks ABI.md's rules for a Read
// document that is not an error.
func (r *ReadResult) Validate() error {
	if len(r.Contents) == 0 {
		return errors.New("contents is empty")
	}
	for i := range r.Contents {
		if err := r.Contents[i].Validate(); err != nil {
			return fmt.Errorf("contents[%d]: %w", i, err)
		}
	}
	return nil
}

// Validate reports the first way c breaks MCP's ResourceContents: a uri,
// and exactly one of text and blob, a blob being standard base64.
func (c *ResourceContents) Validate() error {
	switch {
	case c.URI == "":
		return errors.New("uri is missing")
	case (c.Text == nil) == (c.Blob == nil):
		return errors.New("needs exactly one of text and blob")
	case c.Blob != nil:
		if _, err := base64.StdEncoding.DecodeString(*c.Blob); err != nil {
			return fmt.Errorf("blob is not standard base64: %w", err)
		}
	}
	return nil
}

// Validate reports the first way r breaks ABI.md's rules for a Prompt
// document that is not an error.
func (r *PromptResult) Validate() error {
	if len(r.Messages) == 0 {
		return errors.New("messages is empty")
	}
	for i := range r.Messages {
		m := &r.Messages[i]
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Errorf(`messages[%d]: role %q is neither "user" nor "assistant"`, i, truncate(m.Role))
		}
		if err := m.Content.Validate(); err != nil {
			return fmt.Errorf("messages[%d]: %w", i, err)
		}
	}
	return nil
}

// IsApp reports whether uri names an MCP Apps view.
func IsApp(uri string) bool {
	scheme, _, ok := strings.Cut(uri, ":")
	return ok && strings.EqualFold(scheme, AppScheme)
}

// validURI checks an absolute URI (or, with template, the literal prefix of
// a URI template): a scheme, ':', printable ASCII without spaces, no
// fragment, at most MaxURILen bytes.
func validURI(uri string, template bool) error {
	switch {
	case uri == "":
		return errors.New("uri is missing")
	case len(uri) > MaxURILen:
		return fmt.Errorf("%d bytes, more than %d", len(uri), MaxURILen)
	}
	for i := 0; i < len(uri); i++ {
		if c := uri[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("%q holds a space, a control or a non-ASCII byte", truncate(uri))
		}
	}
	literal := uri
	if template {
		literal = TemplatePrefix(uri)
	}
	scheme, _, ok := strings.Cut(literal, ":")
	switch {
	case !ok || !validScheme(scheme):
		if template {
			return fmt.Errorf("%q does not begin with a scheme and ':' before its first expression", truncate(uri))
		}
		return fmt.Errorf("%q is not an absolute URI (scheme:...)", truncate(uri))
	case !template && strings.Contains(uri, "#"):
		return fmt.Errorf("%q has a fragment", truncate(uri))
	}
	return nil
}

func validScheme(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !('0' <= c && c <= '9') && c != '+' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// validCommon checks the fields resources and templates share.
func validCommon(name, mimeType string, a *ContentAnnotations, icons []Icon) error {
	switch {
	case name == "":
		return errors.New("name is missing")
	case len(name) > 256:
		return fmt.Errorf("name of %d bytes, more than 256", len(name))
	case mimeType != "" && !validMediaType(mimeType):
		return fmt.Errorf("mimeType %q is not a media type (type/subtype)", truncate(mimeType))
	}
	if err := a.Validate(); err != nil {
		return err
	}
	return validIcons(icons)
}

func validIcons(icons []Icon) error {
	if len(icons) > MaxIcons {
		return fmt.Errorf("%d icons, more than %d", len(icons), MaxIcons)
	}
	for i := range icons {
		if err := icons[i].Validate(); err != nil {
			return fmt.Errorf("icons[%d]: %w", i, err)
		}
	}
	return nil
}

// validMediaType reports whether s is type/subtype, each a token, with
// optional parameters after ';'.
func validMediaType(s string) bool {
	mt, _, _ := strings.Cut(s, ";")
	typ, sub, ok := strings.Cut(strings.TrimSpace(mt), "/")
	return ok && isToken(typ) && isToken(sub)
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c > '~' || strings.IndexByte(`()<>@,;:\"/[]?={}`, c) >= 0 {
			return false
		}
	}
	return true
}
