package plugin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/wasmcp/wasmcp/host/internal/plugin"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
)

// This example loads a plugin, lists its tools and calls one twice: once
// with valid arguments and once with arguments its inputSchema refuses,
// which the model receives as a tool error it can correct.
func Example() {
	ctx := context.Background()

	// testdata/hello.wasm is built from the WAT text in testdata/hello.wat.
	wasm, err := os.ReadFile("testdata/hello.wasm")
	if err != nil {
		log.Fatal(err)
	}

	// The runtime is shared by the plugins of a host.
	rt, err := sandbox.NewRuntime(ctx, sandbox.RuntimeConfig{})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)
	p, err := plugin.Load(ctx, "plugins/hello.wasm", wasm, plugin.Options{Runtime: rt})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close(ctx)

	for _, tool := range p.Tools() {
		fmt.Printf("%s/%s: %s\n", p.Name(), tool.Name, tool.Description)
	}

	res, err := p.Call(ctx, "hello", nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	out, _ := json.Marshal(res) // an MCP CallToolResult
	fmt.Println(string(out))

	res, err = p.Call(ctx, "hello", json.RawMessage(`{"name":"Ada"}`), nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.IsError, res.Content[0].Text)

	// Output:
	// hello/hello: Greets the world.
	// {"content":[{"type":"text","text":"Hello from WebAssembly!"}],"structuredContent":{}}
	// true invalid arguments for tool hello: at (root): additional properties 'name' not allowed
}
