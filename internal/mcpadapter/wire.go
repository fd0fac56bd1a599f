package mcpadapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The JSON-RPC wire format of the stdio connection (stdio.go). A message
// is decoded in one pass over its top-level keys, after one validity
// check, instead of go-sdk's three unmarshals (each of which allocates a 32
// KB decoder buffer); it means what jsonrpc.DecodeMessage makes of it
// (FuzzDecodeMessage checks that). Messages are encoded by appending their
// already-marshaled parts, which is what jsonrpc.EncodeMessage writes.

// errInvalidMessage is the cause of a valid JSON value that is not a
// JSON-RPC message.
var errInvalidMessage = errors.New("not a JSON-RPC 2.0 message")

// wireFields are a message's top-level members, raw; nil when absent.
type wireFields struct {
	version, id, method, params, result, error []byte
}

// decodeMessage decodes one JSON-RPC message, which the caller has checked
// to be valid JSON. The message keeps references to data.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	f, err := splitObject(data)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(f.version, version2) {
		// Written differently ("2\u002e0"), or not 2.0 at all.
		if v, err := decodeString(f.version); err != nil || v != "2.0" {
			return nil, fmt.Errorf("%w: jsonrpc is %s, want \"2.0\"", errInvalidMessage, f.version)
		}
	}
	id, err := decodeID(f.id)
	if err != nil {
		return nil, err
	}
	if f.method != nil {
		method, err := decodeString(f.method)
		if err != nil {
			return nil, fmt.Errorf("%w: method: %v", errInvalidMessage, err)
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: f.params}, nil
	}
	if !id.IsValid() {
		return nil, fmt.Errorf("%w: neither a method nor an id", errInvalidMessage)
	}
	resp := &jsonrpc.Response{ID: id, Result: f.result}
	if f.error != nil && !bytes.Equal(f.error, nullJSON) {
		e, err := decodeError(f.error)
		if err != nil {
			return nil, err
		}
		resp.Error = e
	}
	return resp, nil
}

var (
	nullJSON = []byte("null")
	version2 = []byte(`"2.0"`)
)

// splitObject finds the members of the JSON object data that a message
// may have. On input that is not valid JSON it stops with an error at the
// first member it cannot delimit, keeping those before it: the id of a line
// cut at the size limit may still be found.
func splitObject(data []byte) (wireFields, error) {
	var f wireFields
	err := eachMember(data, func(key, v []byte) {
		switch string(key) {
		case "jsonrpc":
			f.version = v
		case "id":
			f.id = v
		case "method":
			f.method = v
		case "params":
			f.params = v
		case "result":
			f.result = v
		case "error":
			f.error = v
		}
	})
	return f, err
}

// eachMember calls fn with each key and raw value of the JSON object data.
// Keys match exactly, as go-sdk matches them (encoding/json would also take
// "Method" for "method"); of a repeated key the caller keeps the last, as
// decoders do.
func eachMember(data []byte, fn func(key, value []byte)) error {
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return fmt.Errorf("%w: not an object", errInvalidMessage)
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for i < len(data) {
		keyEnd, err := skipString(data, i)
		if err != nil {
			return err
		}
		key := data[i+1 : keyEnd-1]
		if !plainASCII(key) {
			k, err := decodeString(data[i:keyEnd])
			if err != nil {
				return errTruncated
			}
			key = []byte(k)
		}
		i = skipSpace(data, keyEnd)
		if i == len(data) || data[i] != ':' {
			return errTruncated
		}
		start := skipSpace(data, i+1)
		end, err := skipValue(data, start)
		if err != nil {
			return err
		}
		fn(key, data[start:end])
		i = skipSpace(data, end)
		if i == len(data) || data[i] != ',' {
			break
		}
		i = skipSpace(data, i+1)
	}
	return nil
}

// decodeError decodes the error object of a response, keys matched as
// eachMember matches them.
func decodeError(data []byte) (*jsonrpc.Error, error) {
	var e jsonrpc.Error
	var err error
	walkErr := eachMember(data, func(key, v []byte) {
		switch string(key) {
		case "code":
			err = errors.Join(err, json.Unmarshal(v, &e.Code))
		case "message":
			m, mErr := decodeString(v)
			e.Message, err = m, errors.Join(err, mErr)
		case "data":
			e.Data = v
		}
	})
	if err = errors.Join(walkErr, err); err != nil {
		return nil, fmt.Errorf("%w: error: %v", errInvalidMessage, err)
	}
	return &e, nil
}

// errTruncated stops splitObject at a member it cannot delimit.
var errTruncated = fmt.Errorf("%w: truncated", errInvalidMessage)

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the end of the string that starts at data[i].
func skipString(data []byte, i int) (int, error) {
	if i >= len(data) || data[i] != '"' {
		return 0, errTruncated
	}
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, errTruncated
}

// skipValue returns the end of the value that starts at data[i]. It
// delimits values; it does not check them.
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, errTruncated
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				end, err := skipString(data, i)
				if err != nil {
					return 0, err
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, nil
				}
			}
		}
		return 0, errTruncated
	}
	// A number, true, false or null.
	end := i
	for end < len(data) && !endsScalar(data[end]) {
		end++
	}
	if end == i || end == len(data) {
		return 0, errTruncated
	}
	return end, nil
}

func endsScalar(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// decodeID decodes a request id as go-sdk does: a JSON number becomes an
// integer (a fraction is truncated), null or absence means none.
func decodeID(raw []byte) (jsonrpc.ID, error) {
	if raw == nil || bytes.Equal(raw, nullJSON) {
		return jsonrpc.ID{}, nil
	}
	switch c := raw[0]; {
	case c == '"':
		s, err := decodeString(raw)
		if err != nil {
			return jsonrpc.ID{}, fmt.Errorf("%w: id: %v", errInvalidMessage, err)
		}
		return jsonrpc.MakeID(s)
	case c == '-' || c >= '0' && c <= '9':
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			// Out of float64's range: go-sdk's decoder refuses it too.
			return jsonrpc.ID{}, fmt.Errorf("%w: id %s", errInvalidMessage, raw)
		}
		return jsonrpc.MakeID(f)
	}
	return jsonrpc.ID{}, fmt.Errorf("%w: id %s is neither a string nor a number", errInvalidMessage, raw)
}

// decodeString decodes a JSON string, or null as "".
func decodeString(raw []byte) (string, error) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		s := raw[1 : len(raw)-1]
		if plainASCII(s) {
			return string(s), nil
		}
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// plainASCII reports whether s is printable ASCII with nothing JSON
// escapes: such a string is its own JSON encoding, between quotes.
func plainASCII[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// appendMessage appends the wire form of msg to b, as
// jsonrpc.EncodeMessage writes it. Parts already marshaled by the SDK
// (params, result) are copied as they are; a message whose parts would
// break the line (a raw newline) or that carries an error is left to
// jsonrpc.EncodeMessage, which compacts and converts.
func appendMessage(b []byte, msg jsonrpc.Message) ([]byte, error) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if bytes.IndexByte(m.Params, '\n') < 0 {
			b = append(b, `{"jsonrpc":"2.0"`...)
			if m.ID.IsValid() {
				b = appendID(append(b, `,"id":`...), m.ID)
			}
			if m.Method != "" {
				b = appendString(append(b, `,"method":`...), m.Method)
			}
			if len(m.Params) > 0 {
				b = append(append(b, `,"params":`...), m.Params...)
			}
			return append(b, '}'), nil
		}
	case *jsonrpc.Response:
		if m.Error == nil && len(m.Result) > 0 && bytes.IndexByte(m.Result, '\n') < 0 {
			b = append(b, `{"jsonrpc":"2.0"`...)
			if m.ID.IsValid() {
				b = appendID(append(b, `,"id":`...), m.ID)
			}
			b = append(append(b, `,"result":`...), m.Result...)
			return append(b, '}'), nil
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	return append(b, data...), err
}

func appendID(b []byte, id jsonrpc.ID) []byte {
	switch v := id.Raw().(type) {
	case int64:
		return strconv.AppendInt(b, v, 10)
	case string:
		return appendString(b, v)
	}
	return append(b, "null"...)
}

// appendString appends s as a JSON string, escaped as go-sdk escapes it
// (no HTML escaping).
func appendString(b []byte, s string) []byte {
	if plainASCII(s) {
		return append(append(append(b, '"'), s...), '"')
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}
