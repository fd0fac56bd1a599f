package wire

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A response's error is checked as go-sdk reads it, members matched by
// their exact names: what go-sdk reads is passed on, what it cannot read is
// refused.
func TestResponseErrorAsGoSDKReadsIt(t *testing.T) {
	for _, tc := range []struct {
		name, msg string
		ok        bool
	}{
		{"exact names", `{"jsonrpc":"2.0","id":0,"error":{"code":-1,"message":"m","data":[1]}}`, true},
		{"names in other case", `{"jsonrpc":"2.0","id":0,"error":{"Code":"x","messAge":{}}}`, true},
		{"null", `{"jsonrpc":"2.0","id":0,"error":null,"result":{}}`, true},
		{"code not an integer", `{"jsonrpc":"2.0","id":0,"error":{"code":1.5,"message":"m"}}`, false},
		{"message not a string", `{"jsonrpc":"2.0","id":0,"error":{"code":1,"message":7}}`, false},
		{"not an object", `{"jsonrpc":"2.0","id":0,"error":"x"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, refused := decodeMessage([]byte(tc.msg))
			_, sdkErr := jsonrpc.DecodeMessage([]byte(tc.msg))
			if (refused == nil) != tc.ok || (sdkErr == nil) != tc.ok {
				t.Errorf("%s: refused %v, go-sdk reads it with error %v; want both to read it: %v", tc.msg, refused, sdkErr, tc.ok)
			}
		})
	}
}

// A request whose method is "" goes on to go-sdk, which answers it with
// -32601 as it answers any method it does not have; one whose method is not
// a string is refused, though go-sdk would read null as "".
func TestMethodName(t *testing.T) {
	for _, tc := range []struct {
		name, msg string
		ok        bool
	}{
		{"empty", `{"jsonrpc":"2.0","id":7,"method":""}`, true},
		{"null", `{"jsonrpc":"2.0","id":7,"method":null}`, false},
		{"number", `{"jsonrpc":"2.0","id":7,"method":7}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, _, refused := decodeMessages([]byte(tc.msg), 1)
			if (refused == nil) != tc.ok {
				t.Fatalf("%s: refused %v, want it passed: %v", tc.msg, refused, tc.ok)
			}
			if tc.ok && (!msgs[0].call() || msgs[0].method != "") {
				t.Errorf("%s: read as %+v, want a call of method \"\"", tc.msg, msgs[0])
			}
		})
	}
}
