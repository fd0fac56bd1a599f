package mcpadapter

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// wireSeeds are messages and near-messages both decoders must agree on.
var wireSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
	`{"jsonrpc":"2.0","id":"abc","method":"ping"}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`,
	`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"m","data":{"x":1}}}`,
	`{"jsonrpc":"2.0","id":7,"error":null,"result":null}`,
	` { "id" : 1.5 , "method" : "m" , "jsonrpc" : "2.0" } `,
	`{"jsonrpc":"2.0","id":-0,"method":"m","params":null}`,
	`{"jsonrpc":"2.0","id":1e3,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1e400,"method":"m"}`,
	`{"jsonrpc":"2.0","id":null,"method":null}`,
	`{"jsonrpc":"2.0","id":true,"method":"m"}`,
	`{"jsonrpc":"2.0","id":{},"method":"m"}`,
	`{"jsonrpc":"1.0","id":1,"method":"m"}`,
	`{"jsonrpc":"2\u002e0","id":1,"method":"m"}`,
	`{"jsonrpc":2.0,"id":1,"method":"m"}`,
	`{"id":1,"method":"m"}`,
	`{"JSONRPC":"2.0","ID":1,"Method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
	`{"jsonrpc":"2.0","id":1,"method":"\u00e9\n\"x\\"}`,
	`{"jsonrpc":"2.0","id":"\ud800","method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"m\u0065thod":"m"}`,
	`{"jsonrpc":"2.0","result":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":5}`,
	`{"jsonrpc":"2.0","id":1,"error":"x"}`,
	`{}`, `[]`, `null`, `"x"`, `5`, `[{"jsonrpc":"2.0","id":1,"method":"m"}]`,
}

// FuzzDecodeMessage checks decodeMessage against the SDK's own decoder on
// any valid JSON: both refuse it, or both read the same message. (The
// details of an error object are not compared: the SDK matches its keys
// exactly, encoding/json, which decodes it here, in any case.)
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range wireSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return // answered with a parse error, not decoded
		}
		want, wantErr := jsonrpc.DecodeMessage(data)
		got, gotErr := decodeMessage(data)
		if (wantErr != nil) != (gotErr != nil) {
			t.Fatalf("%s: decodeMessage error %v, SDK's %v", data, gotErr, wantErr)
		}
		if wantErr != nil {
			return
		}
		if g, w := describe(got), describe(want); g != w {
			t.Fatalf("%s: decodeMessage read\n%s\nthe SDK\n%s", data, g, w)
		}
	})
}

func TestDecodeMessageSeeds(t *testing.T) {
	for _, s := range wireSeeds {
		data := []byte(s)
		want, wantErr := jsonrpc.DecodeMessage(data)
		got, gotErr := decodeMessage(data)
		if (wantErr != nil) != (gotErr != nil) {
			t.Errorf("%s: decodeMessage error %v, SDK's %v", data, gotErr, wantErr)
			continue
		}
		if wantErr == nil && describe(got) != describe(want) {
			t.Errorf("%s: decodeMessage read\n%s\nthe SDK\n%s", data, describe(got), describe(want))
		}
	}
}

// describe prints what a message means, for comparison.
func describe(m jsonrpc.Message) string {
	var b bytes.Buffer
	switch m := m.(type) {
	case *jsonrpc.Request:
		json.NewEncoder(&b).Encode([]any{"request", m.ID.Raw(), m.Method, string(m.Params)})
	case *jsonrpc.Response:
		var code any
		if e, ok := m.Error.(*jsonrpc.Error); ok {
			code = e != nil
		}
		json.NewEncoder(&b).Encode([]any{"response", m.ID.Raw(), string(m.Result), m.Error != nil, code})
	}
	return b.String()
}

// TestAppendMessage checks the hand-built encoding against the SDK's.
func TestAppendMessage(t *testing.T) {
	for _, m := range []jsonrpc.Message{
		&jsonrpc.Request{ID: intID(3), Method: "tools/call", Params: json.RawMessage(`{"a":"<b>&"}`)},
		&jsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(`{"level":"info"}`)},
		&jsonrpc.Request{ID: strID("é\"\n<"), Method: "m\u2028"},
		&jsonrpc.Request{ID: strID("s"), Method: "m", Params: json.RawMessage("{\n\"a\": 1}")},
		&jsonrpc.Response{ID: intID(-9), Result: json.RawMessage(`{"content":[{"type":"text","text":"<x>"}]}`)},
		&jsonrpc.Response{ID: strID("x"), Error: &jsonrpc.Error{Code: -32602, Message: "bad"}},
		&jsonrpc.Response{Error: &jsonrpc.Error{Code: -32600, Message: "dup"}},
		&jsonrpc.Response{ID: intID(0), Result: json.RawMessage(`{}`)},
	} {
		want, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendMessage([]byte("prefix"), m)
		if err != nil {
			t.Errorf("%s: %v", want, err)
		}
		if string(got) != "prefix"+string(want) {
			t.Errorf("appendMessage = %s\nwant prefix%s", got, want)
		}
	}
}

func intID(n int64) jsonrpc.ID {
	id, _ := jsonrpc.MakeID(float64(n))
	return id
}

func strID(s string) jsonrpc.ID {
	id, _ := jsonrpc.MakeID(s)
	return id
}
