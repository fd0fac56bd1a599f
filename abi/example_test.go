package abi_test

import (
	"encoding/json"
	"fmt"

	"github.com/wasmcp/wasmcp/abi"
)

// A guest returns a document's location as one i64.
func ExamplePack() {
	packed := abi.Pack(1024, 42)
	ptr, length := abi.Unpack(packed)
	fmt.Printf("%#x -> ptr %d, len %d\n", packed, ptr, length)
	// Output:
	// 0x4000000002a -> ptr 1024, len 42
}

func ExampleValidToolName() {
	for _, name := range []string{"text.upper", "hash_sha256", "not allowed!"} {
		fmt.Println(name, abi.ValidToolName(name))
	}
	// Output:
	// text.upper true
	// hash_sha256 true
	// not allowed! false
}

// A Result as a guest writes it: a text block and structured content.
func ExampleResult() {
	res := abi.Result{
		Content:           []abi.Content{abi.Text("3 words")},
		StructuredContent: json.RawMessage(`{"words":3}`),
	}
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	// Output:
	// {"content":[{"type":"text","text":"3 words"}],"structuredContent":{"words":3}}
}
