package main

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"unicode/utf8"
)

const encodings = "base64|base64url|base64-raw|base64url-raw|hex|url|url-path"

// EncodeArgs are the arguments of encode.
type EncodeArgs struct {
	Data
	Encoding string `json:"encoding" description:"base64 and base64url are padded, the -raw variants are not; url escapes for a query string (space as +), url-path for a path segment (space as %20)." jsonschema:"enum=base64|base64url|base64-raw|base64url-raw|hex|url|url-path"`
}

// EncodeOutput is the result of encode.
type EncodeOutput struct {
	Encoded string `json:"encoded"`
	Bytes   int    `json:"bytes" description:"Length of the input in bytes."`
}

// DecodeArgs are the arguments of decode.
type DecodeArgs struct {
	Data     string `json:"data" description:"The encoded data."`
	Encoding string `json:"encoding" description:"The encoding of data. The base64 decodings accept either alphabet, with or without padding." jsonschema:"enum=base64|base64url|base64-raw|base64url-raw|hex|url|url-path"`
}

// DecodeOutput is the result of decode.
type DecodeOutput struct {
	UTF8   bool   `json:"utf8" description:"Whether the decoded bytes are valid UTF-8 text."`
	Text   string `json:"text,omitempty" description:"The decoded bytes as text, when they are UTF-8."`
	Base64 string `json:"base64,omitempty" description:"The decoded bytes as standard base64, when they are not UTF-8."`
	Bytes  int    `json:"bytes" description:"Length of the decoded data in bytes."`
}

func encodeTool(in EncodeArgs) (EncodeOutput, error) {
	data, err := in.bytes()
	if err != nil {
		return EncodeOutput{}, err
	}
	var s string
	switch in.Encoding {
	case "base64":
		s = base64.StdEncoding.EncodeToString(data)
	case "base64url":
		s = base64.URLEncoding.EncodeToString(data)
	case "base64-raw":
		s = base64.RawStdEncoding.EncodeToString(data)
	case "base64url-raw":
		s = base64.RawURLEncoding.EncodeToString(data)
	case "hex":
		s = hex.EncodeToString(data)
	case "url":
		s = url.QueryEscape(string(data))
	case "url-path":
		s = url.PathEscape(string(data))
	default:
		return EncodeOutput{}, fmt.Errorf("unknown encoding %q (want one of %s)", in.Encoding, encodings)
	}
	return EncodeOutput{Encoded: s, Bytes: len(data)}, nil
}

func decodeTool(in DecodeArgs) (DecodeOutput, error) {
	var data []byte
	var err error
	switch in.Encoding {
	case "base64", "base64-raw":
		data, err = decodeBase64(in.Data, false)
	case "base64url", "base64url-raw":
		data, err = decodeBase64(in.Data, true)
	case "hex":
		data, err = hex.DecodeString(in.Data)
	case "url":
		var s string
		s, err = url.QueryUnescape(in.Data)
		data = []byte(s)
	case "url-path":
		var s string
		s, err = url.PathUnescape(in.Data)
		data = []byte(s)
	default:
		return DecodeOutput{}, fmt.Errorf("unknown encoding %q (want one of %s)", in.Encoding, encodings)
	}
	if err != nil {
		return DecodeOutput{}, fmt.Errorf("decode %s: %v", in.Encoding, err)
	}
	out := DecodeOutput{UTF8: utf8.Valid(data), Bytes: len(data)}
	if out.UTF8 {
		out.Text = string(data)
	} else {
		out.Base64 = base64.StdEncoding.EncodeToString(data)
	}
	return out, nil
}
