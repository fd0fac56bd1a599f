package mcpadapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Checks of incoming JSON-RPC messages made before go-sdk sees them, on
// stdio (stdio.go) and over HTTP (http.go), so that what go-sdk cannot
// represent is refused with a clear error instead of being answered wrongly
// or ending the session.
//
// go-sdk decodes a numeric request id as a float64 and keeps its integer
// part: 1.5 is answered as 1 (another request's id, which can settle the
// wrong call in the client), 9007199254740993 as ...992, 1e308 as the
// smallest int64. An id is therefore accepted only when go-sdk answers it
// with the very bytes the client sent: a string, or an integer written
// plainly with at most 2^53-1 in magnitude. Any other id is refused with
// -32600 and id null, as JSON-RPC asks of an id that cannot be read.

// maxSafeID is the largest integer id go-sdk returns exactly.
const maxSafeID = 1<<53 - 1

var plainInteger = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// parseID converts the id member of a request as sent into the id go-sdk
// makes of it, or reports why it cannot be answered with those bytes. A
// missing or null id is a notification's: none, and no error.
func parseID(raw json.RawMessage) (jsonrpc.ID, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return jsonrpc.ID{}, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc.ID{}, fmt.Errorf("id %s is not a valid string", clip(raw))
		}
		return jsonrpc.MakeID(s)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if !plainInteger.Match(raw) || string(raw) == "-0" || err != nil || n > maxSafeID || n < -maxSafeID {
			return jsonrpc.ID{}, fmt.Errorf("id %s cannot be answered exactly: use a string, or an integer "+
				"without fraction or exponent of at most 2^53-1 in magnitude", clip(raw))
		}
		return jsonrpc.MakeID(float64(n))
	}
	return jsonrpc.ID{}, fmt.Errorf("id %s is neither a string nor a number", clip(raw))
}

// A refusal is a message, or a line, that is not passed on: the error it is
// answered with, and the id to answer (null when it cannot be read).
type refusal struct {
	id      json.RawMessage // nil: null
	code    int64
	message string
}

func (r *refusal) Error() string { return r.message }

// response is the JSON-RPC error response of r.
func (r *refusal) response() []byte {
	id := r.id
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, &jsonrpc.Error{Code: r.code, Message: r.message}}) // a code, a string and a valid id always marshal
	return b
}

// incoming is one checked message: go-sdk's decoding of it, and the id of a
// request as sent.
type incoming struct {
	raw   json.RawMessage // the message as received
	msg   jsonrpc.Message
	rawID json.RawMessage
}

// call returns the request when the message is one that expects an answer.
func (in incoming) call() (*jsonrpc.Request, bool) {
	req, ok := in.msg.(*jsonrpc.Request)
	return req, ok && req.IsCall()
}

// decodeMessages checks a JSON value received as one message or a batch of
// them. It reports a refusal for a value that is not a JSON-RPC message (or
// a batch holding one), a request whose id go-sdk would not answer with the
// same bytes, or an empty batch.
func decodeMessages(data []byte) (msgs []incoming, batch bool, _ *refusal) {
	data = bytes.TrimSpace(data)
	if !json.Valid(data) {
		return nil, false, &refusal{code: jsonrpc.CodeParseError, message: "parse error: not a JSON value"}
	}
	if data[0] != '[' {
		in, r := decodeMessage(data)
		if r != nil {
			return nil, false, r
		}
		return []incoming{in}, false, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil || len(raws) == 0 {
		return nil, true, &refusal{code: jsonrpc.CodeInvalidRequest, message: "empty batch"}
	}
	for _, raw := range raws {
		in, r := decodeMessage(raw)
		if r != nil {
			// go-sdk refuses a batch whole when one message is not one.
			r.id, r.message = nil, "batch: "+r.message
			return nil, true, r
		}
		msgs = append(msgs, in)
	}
	return msgs, true, nil
}

// decodeMessage checks one message, which is valid JSON.
func decodeMessage(data []byte) (incoming, *refusal) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return incoming{}, &refusal{code: jsonrpc.CodeInvalidRequest, message: "not a JSON-RPC 2.0 message: not an object"}
	}
	rawID := members["id"]
	_, isRequest := members["method"]
	id, idErr := parseID(rawID)
	answerable := rawID // the id a refusal may name: a request's, readable
	if !isRequest || idErr != nil {
		answerable = nil
	}
	if isRequest && idErr != nil {
		return incoming{}, &refusal{code: jsonrpc.CodeInvalidRequest, message: idErr.Error()}
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return incoming{}, &refusal{id: answerable, code: jsonrpc.CodeInvalidRequest,
			message: fmt.Sprintf("not a JSON-RPC 2.0 message: %v", err)}
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return incoming{raw: data, msg: msg}, nil // a response to a request of ours
	}
	if req.ID != id {
		// go-sdk read another id than the one we checked (a repeated key).
		return incoming{}, &refusal{code: jsonrpc.CodeInvalidRequest, message: fmt.Sprintf("ambiguous id %s", clip(rawID))}
	}
	return incoming{raw: data, msg: msg, rawID: rawID}, nil
}

// clip keeps a value quoted in an error message short.
func clip(b []byte) []byte {
	if len(b) > 64 {
		return append(b[:64:64], "..."...)
	}
	return b
}
