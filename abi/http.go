package abi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// HTTPRequest is the request a guest passes to ImportHTTPRequest (ABI.md
// section 5). In the document, the body follows a one-line JSON head.
type HTTPRequest struct {
	// Method is the HTTP method; empty means GET.
	Method string `json:"method,omitempty"`
	// URL is an absolute http or https URL.
	URL string `json:"url"`
	// Headers are sent in this order; a name may repeat. Headers the
	// operator's policy sets for the origin replace the guest's of the same
	// name.
	Headers []HTTPHeader `json:"headers,omitempty"`
	// Body is the request body, raw after the head's line feed.
	Body []byte `json:"-"`
}

// HTTPResponse is the reply of ImportHTTPRequest with StatusOK: the server's
// answer, whatever its HTTP status.
type HTTPResponse struct {
	// Status is the HTTP status code.
	Status int `json:"status"`
	// URL is the URL that answered, after redirects.
	URL string `json:"url"`
	// Headers are the response's headers, sorted by name, a name repeated
	// for each of its values. Request headers never appear here.
	Headers []HTTPHeader `json:"headers"`
	// Body is the whole response body, raw after the head's line feed,
	// decompressed if the host asked for compression (it then drops
	// Content-Encoding and Content-Length).
	Body []byte `json:"-"`
}

// HTTPHeader is one header line. In JSON it is a two-element array,
// ["Name", "value"], so that a name may repeat and order is kept.
type HTTPHeader struct {
	Name, Value string
}

// MarshalJSON implements json.Marshaler.
func (h HTTPHeader) MarshalJSON() ([]byte, error) {
	return json.Marshal([2]string{h.Name, h.Value})
}

var errHeaderPair = errors.New(`a header must be a ["Name", "value"] array of two strings`)

// UnmarshalJSON implements json.Unmarshaler. It refuses anything but an
// array of exactly two strings.
func (h *HTTPHeader) UnmarshalJSON(b []byte) error {
	var pair []*string
	if err := json.Unmarshal(b, &pair); err != nil || len(pair) != 2 || pair[0] == nil || pair[1] == nil {
		return errHeaderPair
	}
	h.Name, h.Value = *pair[0], *pair[1]
	return nil
}

// Bodies travel raw after the head, not inside the JSON: base64 would make
// every byte of a download cost a third more to move and a decode on each
// side. encoding/json never writes a raw line feed, so the first one ends
// the head.

// EncodeHTTPRequest returns the document of r: its head, then, when r has a
// body, a line feed and the body.
func EncodeHTTPRequest(r HTTPRequest) ([]byte, error) {
	head, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("http request: %w", err)
	}
	if len(r.Body) == 0 {
		return head, nil
	}
	return append(append(append(make([]byte, 0, len(head)+1+len(r.Body)), head...), '\n'), r.Body...), nil
}

// DecodeHTTPRequest reads a document of EncodeHTTPRequest, at most
// MaxHTTPRequestSize bytes. The body is a slice of doc, not a copy.
func DecodeHTTPRequest(doc []byte) (HTTPRequest, error) {
	if len(doc) > MaxHTTPRequestSize {
		return HTTPRequest{}, fmt.Errorf("the document of %d bytes is over the limit of %d", len(doc), MaxHTTPRequestSize)
	}
	head, body, _ := bytes.Cut(doc, []byte{'\n'})
	if len(head) > MaxHTTPHeadSize {
		return HTTPRequest{}, fmt.Errorf("the head of %d bytes is over the limit of %d", len(head), MaxHTTPHeadSize)
	}
	var r struct {
		HTTPRequest
		// A body inside the head is refused, not ignored: a guest that
		// put it there would otherwise send an empty one.
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(head, &r); err != nil {
		return HTTPRequest{}, fmt.Errorf("the head is not a request object: %w", err)
	}
	if r.Body != nil {
		return HTTPRequest{}, errors.New(`the head has a "body" member; the body follows the head after a line feed`)
	}
	r.HTTPRequest.Body = body
	return r.HTTPRequest, nil
}

// EncodeHTTPResponse returns the reply of r: its head, a line feed, and the
// body.
func EncodeHTTPResponse(r HTTPResponse) []byte {
	if r.Headers == nil {
		r.Headers = []HTTPHeader{}
	}
	head, err := json.Marshal(r)
	if err != nil {
		panic(err) // an int, a string and string pairs always encode
	}
	return append(append(append(make([]byte, 0, len(head)+1+len(r.Body)), head...), '\n'), r.Body...)
}

// DecodeHTTPResponse reads a reply of EncodeHTTPResponse. The body is a
// slice of reply, not a copy.
func DecodeHTTPResponse(reply []byte) (HTTPResponse, error) {
	head, body, ok := bytes.Cut(reply, []byte{'\n'})
	if !ok {
		return HTTPResponse{}, errors.New("http response: no line feed after the head")
	}
	var r HTTPResponse
	if err := json.Unmarshal(head, &r); err != nil {
		return HTTPResponse{}, fmt.Errorf("http response: %w", err)
	}
	r.Body = body
	return r, nil
}
