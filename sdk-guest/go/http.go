package wasmcp

import (
	"errors"

	"github.com/wasmcp/wasmcp/abi"
)

// HTTPRequest is one HTTP request a tool makes through the host; see
// ABI.md section 5. Method defaults to GET.
type HTTPRequest = abi.HTTPRequest

// HTTPResponse is the server's answer: its status, the URL that answered
// after redirects, its headers and its whole body.
type HTTPResponse = abi.HTTPResponse

// HTTPHeader is one header line of a request or response.
type HTTPHeader = abi.HTTPHeader

// ErrDenied is matched (errors.Is) by the error of HTTP when the operator's
// net policy refused the request: its origin, or an address its host
// resolved to. The error's text names the rule.
var ErrDenied = errors.New("denied by the net policy")

// HTTP makes one HTTP request through the host and returns the response,
// whatever its HTTP status. The host follows redirects (at most 5), each
// within the operator's net policy for this plugin, and the module must ask
// for the origins it needs (RequestPermissions, Net). The error is a
// *RequestError when the host did not get a response (the request was
// denied, invalid, failed or timed out; see ABI.md) and matches ErrDenied
// when the policy refused it.
//
// Package nethttp gives net/http's Client over this function; HTTP itself
// keeps net/http, megabytes of it, out of the module.
func HTTP(req HTTPRequest) (*HTTPResponse, error) {
	doc, err := abi.EncodeHTTPRequest(req)
	if err != nil {
		return nil, err
	}
	status, reply := sendHTTP(doc)
	if status != abi.StatusOK {
		return nil, &RequestError{status, string(reply)}
	}
	res, err := abi.DecodeHTTPResponse(reply)
	if err != nil {
		return nil, err
	}
	return &res, nil
}
