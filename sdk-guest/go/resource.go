package wasmcp

import (
	"encoding/base64"
	"fmt"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/guest"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/uritemplate"
)

// Resource defines a resource: its URI, its name and what clients show of
// it (Title, Description, MimeType, Size, Annotations, Icons, Meta). ABI.md
// section 4, "Resources and prompts", gives the rules.
type Resource = abi.Resource

// ResourceTemplate defines a family of resources by an RFC 6570 URI
// template, such as "notes://{id}" or "file:///{+path}".
type ResourceTemplate = abi.ResourceTemplate

// ResourceContents is one item of a read: a URI and its text or blob. Build
// items with TextContents and BlobContents.
type ResourceContents = abi.ResourceContents

// Contents is what a read function returns. A string is one text item and
// a []byte one binary item, each with the URI read and the definition's
// MIME type. A []ResourceContents is sent as given, an item without a URI
// taking the URI read.
type Contents interface {
	string | []byte | []ResourceContents
}

// Errors a read, prompt or completion function returns, or wraps with
// fmt.Errorf's %w, to choose the JSON-RPC error the client gets: resource
// not found (-32002) or invalid params (-32602). Any other error is an
// internal error (-32603). The client reads the error's text either way.
var (
	ErrNotFound      = guest.ErrNotFound
	ErrInvalidParams = guest.ErrInvalidParams
)

// AddResource registers a resource whose contents read returns. Call it
// from an init function, as AddTool.
//
//	wasmcp.AddResource(wasmcp.Resource{URI: "notes://index", Name: "index", MimeType: "text/markdown"},
//		func() (string, error) { return "# Notes", nil })
//
// A panic in read is recovered as an internal error. AddResource panics when
// the definition is one the host would refuse (see AddTool).
func AddResource[C Contents](def Resource, read func() (C, error)) {
	mustRegister("AddResource", addResource(def, read))
}

func addResource[C Contents](def Resource, read func() (C, error)) error {
	if read == nil {
		return fmt.Errorf("resource %q: nil read function", def.URI)
	}
	return guest.RegisterResource(def, func(uri string, _ map[string]string) ([]ResourceContents, error) {
		out, err := read()
		if err != nil {
			return nil, err
		}
		return contents(out, uri, def.MimeType), nil
	})
}

// AddResourceTemplate registers a resource template. When a client reads a
// URI that no resource names, the SDK matches it against the templates, the
// longest text before the first expression first (as the host routes
// URIs), and calls the read function of the first that matches with the
// URI and the values of the variables.
//
//	wasmcp.AddResourceTemplate(wasmcp.ResourceTemplate{URITemplate: "notes://{id}", Name: "note"},
//		func(uri string, vars map[string]string) (string, error) {
//			note, ok := notes[vars["id"]]
//			if !ok {
//				return "", fmt.Errorf("note %s: %w", vars["id"], wasmcp.ErrNotFound)
//			}
//			return note, nil
//		}, wasmcp.Complete("id", wasmcp.Choices("1", "2")))
//
// The template may use every operator of RFC 6570 (levels 1 to 3) and the
// prefix modifier ({id:8}); a variable that the URI leaves undefined has no
// entry in vars. Values are percent-decoded and valid UTF-8, and a value
// that stands for path segments (every operator but ?, & and #) never has a
// "." or ".." segment: such a URI matches nothing. The explode modifier
// ({path*}) is refused: {+path} takes a value that holds '/'.
//
// complete gives the completions of some variables.
func AddResourceTemplate[C Contents](def ResourceTemplate, read func(uri string, vars map[string]string) (C, error), complete ...Completion) {
	mustRegister("AddResourceTemplate", addResourceTemplate(def, read, complete))
}

func addResourceTemplate[C Contents](def ResourceTemplate, read func(string, map[string]string) (C, error), complete []Completion) error {
	if read == nil {
		return fmt.Errorf("resource template %q: nil read function", def.URITemplate)
	}
	t, err := uritemplate.Parse(def.URITemplate)
	if err != nil {
		return fmt.Errorf("resource template %q: %w", def.URITemplate, err)
	}
	completions, err := completionMap(complete)
	if err != nil {
		return fmt.Errorf("resource template %q: %w", def.URITemplate, err)
	}
	return guest.RegisterTemplate(def, t.Names(), t.Match, func(uri string, vars map[string]string) ([]ResourceContents, error) {
		out, err := read(uri, vars)
		if err != nil {
			return nil, err
		}
		return contents(out, uri, def.MimeType), nil
	}, completions)
}

func contents[C Contents](out C, uri, mimeType string) []ResourceContents {
	switch v := any(out).(type) {
	case string:
		return []ResourceContents{{URI: uri, MimeType: mimeType, Text: &v}}
	case []byte:
		return []ResourceContents{BlobContents(uri, mimeType, v)}
	}
	return any(out).([]ResourceContents)
}

// TextContents returns an item of text contents. mimeType may be "".
func TextContents(uri, mimeType, text string) ResourceContents {
	return ResourceContents{URI: uri, MimeType: mimeType, Text: &text}
}

// BlobContents returns an item of binary contents (data is base64 encoded
// here). mimeType may be "".
func BlobContents(uri, mimeType string, data []byte) ResourceContents {
	blob := base64.StdEncoding.EncodeToString(data)
	return ResourceContents{URI: uri, MimeType: mimeType, Blob: &blob}
}

// mustRegister panics with err, naming the function, after logging it to
// the host, since a guest's standard error is discarded.
func mustRegister(fn string, err error) {
	if err != nil {
		msg := "wasmcp." + fn + ": " + err.Error()
		guest.Log(abi.LogCritical, msg)
		panic(msg)
	}
}
