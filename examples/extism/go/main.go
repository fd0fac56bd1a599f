// Command extism-go is a hyper-mcp v2 plugin written with the Extism Go PDK,
// the way Extism's documentation and hyper-mcp's plugin template describe
// one: it exports list_tools ({"context":{...}} -> {"tools":[...]}) and
// call_tool ({"request":{"name","arguments"},"context":{...}} -> a
// CallToolResult), and knows nothing of wasmcp. Its tools exercise each host
// function a plugin of that kind uses.
//
// Build it with standard Go (Extism's PDK README names TinyGo, which is not
// needed since Go 1.24's go:wasmexport):
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o extism-go.wasm .
package main

import (
	"errors"
	"fmt"
	"strconv"

	pdk "github.com/extism/go-pdk"
)

func main() {}

// Only the fields this plugin reads or writes of hyper-mcp's v2 types.
type (
	callToolRequest struct {
		Request struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments,omitempty"`
		} `json:"request"`
	}
	callToolResult struct {
		Content []textContent `json:"content"`
		IsError bool          `json:"isError,omitempty"`
	}
	textContent struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	tool struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		InputSchema map[string]any `json:"inputSchema"`
	}
)

// handlers maps each tool to its implementation and definition.
var handlers = map[string]struct {
	def tool
	run func(args map[string]any) (string, error)
}{
	"go_echo":     {newTool("go_echo", "Returns its text argument unchanged.", "text"), echo},
	"go_greeting": {newTool("go_greeting", "Returns the plugin's configured greeting (config key greeting)."), greeting},
	"go_counter":  {newTool("go_counter", "Increments a counter kept in a plugin variable and returns it."), counter},
	"go_fail":     {newTool("go_fail", "Fails with the given message, through error_set.", "message"), fail},
	"go_logs":     {newTool("go_logs", "Logs one line at each level (trace, debug, info, warn, error)."), logs},
	"go_fetch":    {newTool("go_fetch", "GETs a URL; returns the status on the first line, then the body.", "url"), fetch},
}

// order keeps list_tools stable.
var order = []string{"go_echo", "go_greeting", "go_counter", "go_fail", "go_logs", "go_fetch"}

func newTool(name, description string, required ...string) tool {
	props := map[string]any{}
	for _, r := range required {
		props[r] = map[string]any{"type": "string"}
	}
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	return tool{Name: name, Description: description, InputSchema: schema}
}

//go:wasmexport list_tools
func listTools() int32 {
	tools := make([]tool, 0, len(order))
	for _, name := range order {
		tools = append(tools, handlers[name].def)
	}
	return output(map[string]any{"tools": tools})
}

//go:wasmexport call_tool
func callTool() int32 {
	var in callToolRequest
	if err := pdk.InputJSON(&in); err != nil {
		pdk.SetError(fmt.Errorf("call_tool: %w", err))
		return 1
	}
	h, ok := handlers[in.Request.Name]
	if !ok {
		pdk.SetErrorString("unknown tool " + in.Request.Name)
		return 1
	}
	text, err := h.run(in.Request.Arguments)
	if err != nil {
		pdk.SetError(err)
		return 1
	}
	return output(callToolResult{Content: []textContent{{Type: "text", Text: text}}})
}

func output(v any) int32 {
	if err := pdk.OutputJSON(v); err != nil {
		pdk.SetError(err)
		return 1
	}
	return 0
}

func stringArg(args map[string]any, key string) string {
	s, _ := args[key].(string)
	return s
}

func echo(args map[string]any) (string, error) { return stringArg(args, "text"), nil }

func greeting(map[string]any) (string, error) {
	if g, ok := pdk.GetConfig("greeting"); ok {
		return g, nil
	}
	return "(no greeting configured)", nil
}

func counter(map[string]any) (string, error) {
	n := 0
	if b := pdk.GetVar("counter"); b != nil {
		n, _ = strconv.Atoi(string(b))
	}
	n++
	pdk.SetVar("counter", []byte(strconv.Itoa(n)))
	return strconv.Itoa(n), nil
}

func fail(args map[string]any) (string, error) { return "", errors.New(stringArg(args, "message")) }

func logs(map[string]any) (string, error) {
	pdk.Log(pdk.LogTrace, "go_logs trace")
	pdk.Log(pdk.LogDebug, "go_logs debug")
	pdk.Log(pdk.LogInfo, "go_logs info")
	pdk.Log(pdk.LogWarn, "go_logs warn")
	pdk.Log(pdk.LogError, "go_logs error")
	return "logged at trace, debug, info, warn and error", nil
}

func fetch(args map[string]any) (string, error) {
	res := pdk.NewHTTPRequest(pdk.MethodGet, stringArg(args, "url")).Send()
	return fmt.Sprintf("%d\n%s", res.Status(), res.Body()), nil
}
