package abi

import (
	"encoding/json"
	"errors"
)

// HTTPRequest is the document a guest passes to ImportHTTPRequest (ABI.md
// section 5).
type HTTPRequest struct {
	// Method is the HTTP method; empty means GET.
	Method string `json:"method,omitempty"`
	// URL is an absolute http or https URL.
	URL string `json:"url"`
	// Headers are sent in this order; a name may repeat. Headers the
	// operator's policy sets for the origin replace the guest's of the same
	// name.
	Headers []HTTPHeader `json:"headers,omitempty"`
	// Body is the request body, base64 in JSON.
	Body []byte `json:"body,omitempty"`
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
	// Body is the whole response body, base64 in JSON, decompressed if the
	// host asked for compression (it then drops Content-Encoding and
	// Content-Length).
	Body []byte `json:"body"`
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
