package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The pre-reader: checks of incoming JSON-RPC messages made before go-sdk
// sees them, on stdio (stdio.go) and over HTTP (http.go), so that what
// go-sdk cannot represent is refused with a clear error instead of being
// answered wrongly or ending the session.
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
//
// A string id is answered as go-sdk encodes the string it decoded, so one
// is accepted only when that gives back its bytes: "\u0041" would come back
// as "A", and a lone surrogate or a byte that is not UTF-8 as U+FFFD, the
// same id as other requests'.
func parseID(raw json.RawMessage) (jsonrpc.ID, error) {
	raw = trimJSONSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return jsonrpc.ID{}, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc.ID{}, fmt.Errorf("id %s is not a valid string", clip(raw))
		}
		if again, err := Marshal(s); err != nil || !bytes.Equal(again, raw) {
			return jsonrpc.ID{}, fmt.Errorf("id %s cannot be answered with the same bytes: write the string "+
				"in UTF-8 without escapes other than those JSON requires", clip(raw))
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
	b, _ := Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, &jsonrpc.Error{Code: r.code, Message: r.message}}) // a code, a string and a valid id always marshal
	return b
}

// incoming is one checked message: what the adapter needs of it, and the
// message as received.
type incoming struct {
	raw       json.RawMessage // the message as received
	rawID     json.RawMessage // a request's id as sent
	id        jsonrpc.ID      // a request's id as go-sdk reads it; a response's
	method    string          // a request's
	params    json.RawMessage
	isRequest bool
}

// request reports whether the message is a request (or a notification)
// rather than a response.
func (in incoming) request() bool { return in.isRequest }

// call reports whether the message is a request that expects an answer.
func (in incoming) call() bool { return in.request() && in.id.IsValid() }

// decodeMessages checks a JSON value received as one message or a batch of
// at most maxBatch of them. It reports a refusal for a value that is not a
// JSON-RPC message (or a batch holding one), a request whose id go-sdk would
// not answer with the same bytes, or a batch that is empty or too long.
func decodeMessages(data []byte, maxBatch int) (msgs []incoming, batch bool, _ *refusal) {
	data = trimJSONSpace(data)
	if !json.Valid(data) {
		return nil, false, &refusal{code: jsonrpc.CodeParseError, message: "parse error: not a JSON value"}
	}
	if tooDeep(data) {
		return nil, false, &refusal{id: prefixID(data), code: jsonrpc.CodeInvalidRequest,
			message: fmt.Sprintf("message nested more than %d levels deep", maxDepth)}
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
	if len(raws) > maxBatch {
		return nil, true, &refusal{code: jsonrpc.CodeInvalidRequest,
			message: fmt.Sprintf("batch of %d messages, over the limit of %d", len(raws), maxBatch)}
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

// decodeMessage checks one message, which is valid JSON, as go-sdk will
// decode it: what go-sdk cannot decode ends its session.
func decodeMessage(data []byte) (incoming, *refusal) {
	members, err := objectMembers(data)
	if err != nil {
		return incoming{}, &refusal{code: jsonrpc.CodeInvalidRequest, message: "not a JSON-RPC 2.0 message: " + err.Error()}
	}
	rawID, rawMethod := members["id"], members["method"]
	id, idErr := parseID(rawID)
	in := incoming{raw: data, id: id, params: members["params"]}
	// The id a refusal may name: a readable one, unless the message is a
	// response, whose id is one of ours.
	var answerable json.RawMessage
	if idErr == nil && (rawMethod != nil || members["result"] == nil && members["error"] == nil) {
		answerable = rawID
	}
	refuse := func(format string, args ...any) (incoming, *refusal) {
		return incoming{}, &refusal{id: answerable, code: jsonrpc.CodeInvalidRequest,
			message: "not a JSON-RPC 2.0 message: " + fmt.Sprintf(format, args...)}
	}
	var version string
	if v, ok := members["jsonrpc"]; !ok {
		return refuse(`"jsonrpc" is missing`)
	} else if json.Unmarshal(v, &version) != nil || version != "2.0" {
		return refuse(`"jsonrpc" is %s, not "2.0"`, clip(v))
	}
	if rawMethod != nil {
		if idErr != nil {
			return incoming{}, &refusal{code: jsonrpc.CodeInvalidRequest, message: idErr.Error()}
		}
		// go-sdk reads null as "", a method it answers with -32601 as it
		// answers "", but null is not a name.
		if trimJSONSpace(rawMethod)[0] != '"' || json.Unmarshal(rawMethod, &in.method) != nil {
			return refuse(`"method" is %s, not a method name`, clip(rawMethod))
		}
		in.rawID, in.isRequest = rawID, true
		return in, nil
	}
	// A response, to a request of ours.
	rawResult, rawError := members["result"], members["error"]
	switch {
	case idErr != nil || !id.IsValid():
		return refuse("a response without a valid id")
	case rawResult == nil && rawError == nil:
		return refuse(`neither "method", "result" nor "error"`)
	}
	if rawError != nil {
		if err := checkError(rawError); err != nil {
			return refuse(`"error" is not a JSON-RPC error object: %v`, err)
		}
	}
	return in, nil
}

// checkError reports why a response's error is not one go-sdk reads: null,
// or an object whose "code" is an integer and whose "message" a string, its
// members matched by their exact names, as go-sdk matches them.
func checkError(raw json.RawMessage) error {
	if string(trimJSONSpace(raw)) == "null" {
		return nil
	}
	members, err := objectMembers(raw)
	if err != nil {
		return err
	}
	var code int64
	var message string
	if c, ok := members["code"]; ok && json.Unmarshal(c, &code) != nil {
		return fmt.Errorf(`"code" is %s, not an integer`, clip(c))
	}
	if m, ok := members["message"]; ok && json.Unmarshal(m, &message) != nil {
		return fmt.Errorf(`"message" is %s, not a string`, clip(m))
	}
	return nil
}

// prefixID is the id of the request a message too long or too deep to
// decode begins, when its first members, read by encoding/json's tokenizer
// up to where it fails, name a method and an id that can be answered; nil
// otherwise.
func prefixID(prefix []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var id json.RawMessage
	method := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		switch key {
		case "id":
			id = v
		case "method":
			method = true
		}
	}
	if _, err := parseID(id); !method || err != nil || id == nil {
		return nil
	}
	return id
}

// objectMembers returns the members of the JSON object data, refusing
// another value or a member that appears twice: go-sdk would read one of
// the two, perhaps not the one checked.
func objectMembers(data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	members := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string) // a member name, in a valid object
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := members[key]; dup {
			return nil, fmt.Errorf("member %q appears twice", clip([]byte(key)))
		}
		members[key] = v
	}
	return members, nil
}

// maxDepth is the deepest nesting of arrays and objects go-sdk decodes; a
// deeper message ends its session.
const maxDepth = 1000

// tooDeep reports whether the valid JSON value data nests arrays and
// objects more than maxDepth deep.
func tooDeep(data []byte) bool {
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inString && c == '\\':
			i++ // the escaped byte
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			if depth++; depth > maxDepth {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

// trimJSONSpace trims the white space JSON allows around a value, and only
// that.
func trimJSONSpace(b []byte) []byte { return bytes.Trim(b, " \t\r\n") }

// Marshal is json.Marshal as go-sdk encodes its messages, without escaping
// <, > and &: what is sent beside go-sdk must read the same.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// clip keeps a value quoted in an error message short.
func clip(b []byte) []byte {
	if len(b) > 64 {
		return append(b[:64:64], "..."...)
	}
	return b
}
