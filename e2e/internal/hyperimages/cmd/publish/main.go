// Command publish publishes hyper-mcp's rstime plugin as hyper-mcp
// publishes its plugins (package hyperimages) and prints the references as
// JSON, for the TypeScript end-to-end tests.
//
//	go run ./e2e/internal/hyperimages/cmd/publish -registry 127.0.0.1:5000 -dir DIR -wasm rstime.wasm
package main

import (
	"context"
	"encoding/json"
	"flag"
	"log"
	"os"

	"github.com/wasmcp/wasmcp/e2e/internal/hyperimages"
)

func main() {
	registry := flag.String("registry", "", "the registry's host:port")
	dir := flag.String("dir", "", "where to write the Sigstore policy")
	wasm := flag.String("wasm", "", "the plugin module")
	flag.Parse()
	if *registry == "" || *dir == "" || *wasm == "" {
		log.Fatal("publish: -registry, -dir and -wasm are required")
	}
	module, err := os.ReadFile(*wasm)
	if err != nil {
		log.Fatalf("publish: %v", err)
	}
	refs, err := hyperimages.Publish(context.Background(), *registry, *dir, module)
	if err != nil {
		log.Fatalf("publish: %v", err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(refs); err != nil {
		log.Fatal(err)
	}
}
