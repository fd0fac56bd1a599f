package wasmcp_test

import (
	"cmp"
	"errors"
	"fmt"
	"testing"

	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
	"github.com/wasmcp/wasmcp/sdk-guest/go/wasmcptest"
)

// Examples call their tools through wasmcptest, which reports problems to a
// testing.TB; a test passes its *testing.T. Examples have none, so t panics.
var t testing.TB = panicTB{}

type panicTB struct{ testing.TB }

func (panicTB) Helper()                        {}
func (panicTB) Fatalf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }
func (panicTB) Errorf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }

type WeatherArgs struct {
	City  string `json:"city" description:"City name." jsonschema:"enum=Paris|Oslo"`
	Units string `json:"units,omitempty" description:"Temperature units." jsonschema:"enum=C|F,default=C"`
}

type Weather struct {
	Temperature float64 `json:"temperature"`
	Conditions  string  `json:"conditions"`
}

func init() {
	// Out is a struct: the result is structured content with a derived
	// output schema.
	wasmcp.AddTool("weather", "Reports the weather.", func(in WeatherArgs) (Weather, error) {
		w := Weather{Temperature: 18, Conditions: "sunny"}
		if in.City == "Oslo" {
			w = Weather{Temperature: 4, Conditions: "snow"}
		}
		if in.Units == "F" {
			w.Temperature = w.Temperature*9/5 + 32
		}
		return w, nil
	}, wasmcp.ReadOnly(), wasmcp.OpenWorld(false))

	// Out is *Result: the tool builds its content blocks.
	wasmcp.AddTool("badge", "Draws a badge.", func(in struct {
		Label string `json:"label"`
	}) (*wasmcp.Result, error) {
		if in.Label == "" {
			return wasmcp.Error("label must not be empty"), nil
		}
		return wasmcp.NewResult(wasmcp.Text("badge for "+in.Label), wasmcp.Image([]byte("GIF89a"), "image/gif")), nil
	})

	// Out is string: one text block. Errors become tool errors.
	wasmcp.AddTool("divide", "Divides a by b.", func(in struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}) (string, error) {
		if in.B == 0 {
			return "", errors.New("division by zero")
		}
		wasmcp.Logf(wasmcp.LevelDebug, "dividing %v by %v", in.A, in.B)
		return fmt.Sprint(in.A / in.B), nil
	})
}

var notes = map[string]string{"1": "# Groceries\n- eggs", "2": "# Ideas\n- a tool"}

func init() {
	// A resource of text: the item's URI and MIME type are the definition's.
	wasmcp.AddResource(wasmcp.Resource{URI: "notes://index", Name: "index", MimeType: "text/markdown"},
		func() (string, error) { return "# Notes\n- notes://1\n- notes://2", nil })

	// A template: the SDK matches the URI and hands over its variables.
	wasmcp.AddResourceTemplate(wasmcp.ResourceTemplate{URITemplate: "notes://{id}", Name: "note", MimeType: "text/markdown"},
		func(uri string, vars map[string]string) (string, error) {
			note, ok := notes[vars["id"]]
			if !ok {
				return "", fmt.Errorf("note %s: %w", vars["id"], wasmcp.ErrNotFound)
			}
			return note, nil
		}, wasmcp.Complete("id", wasmcp.Choices("1", "2")))

	// A prompt, with the completion of one of its arguments.
	wasmcp.AddPrompt(wasmcp.Prompt{
		Name:        "summarize",
		Description: "Summarizes a note.",
		Arguments: []wasmcp.PromptArgument{
			{Name: "id", Description: "The note's number.", Required: true},
			{Name: "style", Description: "brief or detailed."},
		},
	}, func(args map[string]string) ([]wasmcp.PromptMessage, error) {
		note, ok := notes[args["id"]]
		if !ok {
			return nil, fmt.Errorf("note %s: %w", args["id"], wasmcp.ErrInvalidParams)
		}
		style := cmp.Or(args["style"], "brief")
		return []wasmcp.PromptMessage{
			wasmcp.UserMessage(wasmcp.EmbeddedText("notes://"+args["id"], "text/markdown", note)),
			wasmcp.UserMessage(wasmcp.Text("Summarize this note, " + style + ".")),
		}, nil
	}, wasmcp.Complete("style", wasmcp.Choices("brief", "detailed")))
}

func ExampleAddResource() {
	res := wasmcptest.Read(t, "notes://index")
	fmt.Println(res.Contents[0].URI, res.Contents[0].MimeType)
	fmt.Println(res.Text())
	// Output:
	// notes://index text/markdown
	// # Notes
	// - notes://1
	// - notes://2
}

func ExampleAddResourceTemplate() {
	fmt.Println(wasmcptest.Read(t, "notes://2").Text())
	res := wasmcptest.Read(t, "notes://3")
	fmt.Println(res.Error.Code, res.Error.Message)
	fmt.Println(wasmcptest.Complete(t, wasmcptest.TemplateRef("notes://{id}"), "id", "", nil).Values)
	// Output:
	// # Ideas
	// - a tool
	// -32002 note 3: resource not found
	// [1 2]
}

func ExampleAddPrompt() {
	res := wasmcptest.GetPrompt(t, "summarize", map[string]string{"id": "1"})
	fmt.Println(res.Description)
	for _, m := range res.Messages {
		if m.Content.Resource != nil {
			fmt.Println(m.Role, "embeds", m.Content.Resource.URI)
		} else {
			fmt.Println(m.Role+":", m.Content.Text)
		}
	}
	res = wasmcptest.GetPrompt(t, "summarize", nil) // refused as the host refuses it
	fmt.Println(res.Error.Code, res.Error.Message)
	fmt.Println(wasmcptest.Complete(t, wasmcptest.PromptRef("summarize"), "style", "d", nil).Values)
	// Output:
	// Summarizes a note.
	// user embeds notes://1
	// user: Summarize this note, brief.
	// -32602 prompt summarize: missing required argument "id"
	// [detailed]
}

func ExampleAddTool() {
	for _, tool := range wasmcptest.Tools(t) {
		if tool.Name == "weather" {
			fmt.Println(string(tool.InputSchema))
			fmt.Println(string(tool.OutputSchema))
		}
	}
	res := wasmcptest.Call(t, "weather", map[string]string{"city": "Oslo", "units": "F"})
	fmt.Println(string(res.StructuredContent))
	// Output:
	// {"type":"object","properties":{"city":{"type":"string","description":"City name.","enum":["Paris","Oslo"]},"units":{"type":"string","description":"Temperature units.","default":"C","enum":["C","F"]}},"required":["city"],"additionalProperties":false}
	// {"type":"object","properties":{"temperature":{"type":"number"},"conditions":{"type":"string"}},"required":["temperature","conditions"],"additionalProperties":false}
	// {"temperature":39.2,"conditions":"snow"}
}

func ExampleNewResult() {
	res := wasmcptest.Call(t, "badge", `{"label":"ok"}`)
	fmt.Println(res.Content[0].Text)
	fmt.Println(res.Content[1].MimeType, res.Content[1].Data)
	res = wasmcptest.Call(t, "badge", `{"label":""}`)
	fmt.Println(res.IsError, res.Text())
	// Output:
	// badge for ok
	// image/gif R0lGODlh
	// true label must not be empty
}

func ExampleLogf() {
	res := wasmcptest.Call(t, "divide", `{"a":1,"b":4}`)
	fmt.Println(res.Text(), res.Logs)
	res = wasmcptest.Call(t, "divide", `{"a":1,"b":0}`)
	fmt.Println(res.IsError, res.Text())
	// Output:
	// 0.25 [{debug dividing 1 by 4}]
	// true division by zero
}
