// Command resguest is the module resourcemodule_test.go builds to drive the
// exports of resources, prompts and completion under a real runtime.
package main

import (
	"fmt"
	"strings"

	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
)

// pixel is a one-pixel GIF: binary contents, NUL bytes included.
var pixel = []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")

var notes = map[string]string{"alpha": "# Alpha\nfirst", "beta": "# Beta\nsecond"}

func init() {
	wasmcp.AddTool("echo", "Echoes text.", func(in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text, nil
	})

	wasmcp.AddResource(wasmcp.Resource{URI: "mem://readme", Name: "readme", MimeType: "text/markdown"},
		func() (string, error) {
			wasmcp.Info("reading the readme")
			return "# Readme\nhéllo", nil
		})
	wasmcp.AddResource(wasmcp.Resource{URI: "mem://pixel", Name: "pixel", MimeType: "image/gif"},
		func() ([]byte, error) { return pixel, nil })
	wasmcp.AddResource(wasmcp.Resource{URI: "mem://panic", Name: "panic"},
		func() (string, error) { panic("on purpose") })

	wasmcp.AddResourceTemplate(wasmcp.ResourceTemplate{URITemplate: "mem://notes/{id}", Name: "note", MimeType: "text/markdown"},
		func(uri string, vars map[string]string) (string, error) {
			note, ok := notes[vars["id"]]
			if !ok {
				return "", fmt.Errorf("no note %q: %w", vars["id"], wasmcp.ErrNotFound)
			}
			return note, nil
		}, wasmcp.Complete("id", wasmcp.Choices("alpha", "beta")))
	// A text of n bytes, for documents larger than the reused buffer.
	wasmcp.AddResourceTemplate(wasmcp.ResourceTemplate{URITemplate: "mem://big/{n}", Name: "big"},
		func(uri string, vars map[string]string) (string, error) {
			var n int
			if _, err := fmt.Sscan(vars["n"], &n); err != nil || n < 0 || n > 8<<20 {
				return "", fmt.Errorf("size %q: %w", vars["n"], wasmcp.ErrInvalidParams)
			}
			return strings.Repeat("b", n), nil
		})

	wasmcp.AddPrompt(wasmcp.Prompt{Name: "review", Description: "Reviews a diff.",
		Arguments: []wasmcp.PromptArgument{{Name: "diff", Required: true}, {Name: "focus"}}},
		func(args map[string]string) ([]wasmcp.PromptMessage, error) {
			msgs := []wasmcp.PromptMessage{
				wasmcp.UserMessage(wasmcp.Text("Review this change:\n" + args["diff"])),
				wasmcp.UserMessage(wasmcp.EmbeddedText("mem://readme", "text/markdown", "# Readme")),
			}
			if focus, ok := args["focus"]; ok {
				msgs = append(msgs, wasmcp.AssistantMessage(wasmcp.Text("I will look at "+focus+".")))
			}
			return msgs, nil
		}, wasmcp.Complete("focus", wasmcp.Choices("security", "style", "speed")))
}

func main() {}
