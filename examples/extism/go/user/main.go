// Command user is a hyper-mcp v2 plugin written with the Extism Go PDK that
// calls every host function hyper-mcp gives its plugins in extism:host/user,
// declared as hyper-mcp's Go plugin template declares them (imports.go):
// progress, logging, sampling, elicitation, roots, keyring secrets, OAuth
// tokens and the list-changed notifications. It knows nothing of wasmcp.
//
// Its tool list depends on its Extism variables: each call of grow adds a
// tool and tells the host that its lists changed, so that a host that reads
// them again sees a real change.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o extism-user-go.wasm ./user
package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

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
		Context struct {
			Meta map[string]any `json:"_meta"`
		} `json:"context"`
	}
	callToolResult struct {
		Content []textContent `json:"content"`
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

// The user tools, in list order: name, description, string arguments.
var tools = []struct {
	name, description string
	args              []string
	run               func(args map[string]any, meta map[string]any) (string, error)
}{
	{"progress", "Reports three steps of progress to the call's progress token, asking the client's model the prompt given, if any, after each.", []string{"prompt"}, progress},
	{"log", "Sends a logging message at the level given.", []string{"level", "message"}, logMessage},
	{"sample", "Asks the client's model the prompt given (sampling).", []string{"prompt"}, sample},
	{"elicit", "Asks the user for their name (form elicitation).", nil, elicit},
	{"roots", "Lists the client's roots.", nil, roots},
	{"secret", "Reads the keyring secret of service and user.", []string{"service", "user"}, secret},
	{"token", "Asks the host for an OAuth access token.", nil, token},
	{"url_done", "Says that the URL elicitation of the id given is complete.", []string{"id"}, urlDone},
	{"resource_updated", "Says that the resource of the URI given was updated.", []string{"uri"}, resourceUpdated},
	{"grow", "Adds a tool to the plugin's list and says that its list (tools, prompts or resources) changed.", []string{"list"}, grow},
}

func newTool(name, description string, args ...string) tool {
	props := map[string]any{}
	for _, a := range args {
		props[a] = map[string]any{"type": "string"}
	}
	return tool{Name: name, Description: description, InputSchema: map[string]any{"type": "object", "properties": props}}
}

//go:wasmexport list_tools
func listTools() int32 {
	list := make([]tool, 0, len(tools))
	for _, t := range tools {
		list = append(list, newTool(t.name, t.description, t.args...))
	}
	for i := range pdk.GetVarInt("grown") {
		list = append(list, newTool(fmt.Sprintf("extra_%d", i+1), "A tool grow added."))
	}
	return output(map[string]any{"tools": list})
}

//go:wasmexport call_tool
func callTool() int32 {
	var in callToolRequest
	if err := pdk.InputJSON(&in); err != nil {
		pdk.SetError(fmt.Errorf("call_tool: %w", err))
		return 1
	}
	name := in.Request.Name
	if num, ok := strings.CutPrefix(name, "extra_"); ok {
		if n, err := strconv.Atoi(num); err == nil && n >= 1 && n <= pdk.GetVarInt("grown") {
			return output(result(name + " was added by grow"))
		}
	}
	for _, t := range tools {
		if t.name == name {
			text, err := t.run(in.Request.Arguments, in.Context.Meta)
			if err != nil {
				pdk.SetError(err)
				return 1
			}
			return output(result(text))
		}
	}
	pdk.SetErrorString("unknown tool " + name)
	return 1
}

func result(text string) callToolResult {
	return callToolResult{Content: []textContent{{Type: "text", Text: text}}}
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

func progress(args, meta map[string]any) (string, error) {
	tok, ok := meta["progressToken"]
	if !ok {
		return "no progress token", nil
	}
	for i := 1; i <= 3; i++ {
		if err := NotifyProgress(ProgressNotificationParam{ProgressToken: tok, Progress: float64(i), Total: 3,
			Message: fmt.Sprintf("step %d of 3", i)}); err != nil {
			return "", err
		}
		if prompt := stringArg(args, "prompt"); prompt != "" {
			if _, err := sample(args, meta); err != nil {
				return "", err
			}
		}
	}
	return "reported 3 steps", nil
}

func logMessage(args, _ map[string]any) (string, error) {
	level := stringArg(args, "level")
	if level == "" {
		level = "info"
	}
	msg := stringArg(args, "message")
	return "sent", NotifyLoggingMessage(LoggingMessageNotificationParam{Level: level, Logger: "user-go", Data: msg})
}

func sample(args, _ map[string]any) (string, error) {
	res, err := CreateMessage(CreateMessageRequestParam{
		Messages:  []SamplingMessage{{Role: "user", Content: textContent{Type: "text", Text: stringArg(args, "prompt")}}},
		MaxTokens: 100,
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s said: %s", res.Model, res.Content.Text), nil
}

func elicit(_, _ map[string]any) (string, error) {
	res, err := CreateElicitation(ElicitRequestParamWithTimeout{
		Mode:    "form",
		Message: "What is your name?",
		RequestedSchema: map[string]any{"type": "object", "required": []string{"name"},
			"properties": map[string]any{"name": map[string]any{"type": "string"}}},
		Timeout: 60,
	})
	if err != nil {
		return "", err
	}
	name, _ := res.Content["name"].(string)
	return res.Action + " " + name, nil
}

func roots(_, _ map[string]any) (string, error) {
	res, err := ListRoots()
	if err != nil {
		return "", err
	}
	if len(res.Roots) == 0 {
		return "no roots", nil
	}
	uris := make([]string, len(res.Roots))
	for i, r := range res.Roots {
		uris[i] = r.URI
	}
	return strings.Join(uris, " "), nil
}

func secret(args, _ map[string]any) (string, error) {
	b, err := GetKeyringSecret(KeyringEntryId{Service: stringArg(args, "service"), User: stringArg(args, "user")})
	if err != nil {
		return "", err
	}
	if len(b) == 0 {
		return "no secret", nil
	}
	return string(b), nil
}

func token(_, _ map[string]any) (string, error) {
	tok, err := GetAccessToken(OauthCredentials{ClientID: "wasmcp-example", TokenEndpointURL: "https://auth.example/token"})
	if err != nil {
		return "", err
	}
	if tok == nil {
		return "", errors.New("no access token")
	}
	return "got a token", nil
}

func urlDone(args, _ map[string]any) (string, error) {
	return "sent", NotifyURLElicitationCompleted(ElicitationResponseNotificationParam{ElicitationID: stringArg(args, "id")})
}

func resourceUpdated(args, _ map[string]any) (string, error) {
	return "sent", NotifyResourceUpdated(ResourceUpdatedNotificationParam{URI: stringArg(args, "uri")})
}

func grow(args, _ map[string]any) (string, error) {
	n := pdk.GetVarInt("grown") + 1
	pdk.SetVarInt("grown", n)
	var err error
	switch list := stringArg(args, "list"); list {
	case "", "tools":
		err = NotifyToolListChanged()
	case "prompts":
		err = NotifyPromptListChanged()
	case "resources":
		err = NotifyResourceListChanged()
	default:
		return "", errors.New("list is tools, prompts or resources, not " + strconv.Quote(list))
	}
	return fmt.Sprintf("%d extra tools", n), err
}
