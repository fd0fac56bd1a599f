package main

import (
	"encoding/json"
	"errors"
	"fmt"

	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
)

// noArgs is the argument type of the fixtures that take none.
type noArgs struct{}

// jsonSchema2020Tool is the input schema of json_schema_2020_12_tool, given
// as text because the suite checks that $schema, $defs and
// additionalProperties reach the client unchanged.
const jsonSchema2020Tool = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {
		"address": {
			"type": "object",
			"properties": {"street": {"type": "string"}, "city": {"type": "string"}}
		}
	},
	"properties": {
		"name": {"type": "string"},
		"address": {"$ref": "#/$defs/address"}
	},
	"additionalProperties": false
}`

// userSchema is what test_elicitation asks the user for.
var userSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"username":{"type":"string","description":"User's response"},` +
	`"email":{"type":"string","description":"User's email address"}},` +
	`"required":["username","email"]}`)

// defaultsSchema has a default for every primitive type (SEP-1034).
var defaultsSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"name":{"type":"string","description":"Name","default":"John Doe"},` +
	`"age":{"type":"integer","description":"Age","default":30},` +
	`"score":{"type":"number","description":"Score","default":95.5},` +
	`"status":{"type":"string","description":"Status","enum":["active","inactive","pending"],"default":"active"},` +
	`"verified":{"type":"boolean","description":"Verified","default":true}}}`)

// enumsSchema has the five enum forms of SEP-1330.
var enumsSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"untitledSingle":{"type":"string","description":"Untitled single-select","enum":["option1","option2","option3"]},` +
	`"titledSingle":{"type":"string","description":"Titled single-select","oneOf":[` +
	`{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
	`"legacyEnum":{"type":"string","description":"Legacy titled enum","enum":["opt1","opt2","opt3"],` +
	`"enumNames":["Option One","Option Two","Option Three"]},` +
	`"untitledMulti":{"type":"array","description":"Untitled multi-select","items":{"type":"string","enum":["option1","option2","option3"]}},` +
	`"titledMulti":{"type":"array","description":"Titled multi-select","items":{"anyOf":[` +
	`{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`)

func init() {
	wasmcp.AddTool("test_simple_text", "Returns a simple text response.", func(noArgs) (string, error) {
		return "This is a simple text response for testing.", nil
	}, wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("test_image_content", "Returns a 1x1 red PNG image.", func(noArgs) (*wasmcp.Result, error) {
		return wasmcp.NewResult(wasmcp.Image(redPixelPNG, "image/png")), nil
	}, wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("test_audio_content", "Returns a short silent WAV file.", func(noArgs) (*wasmcp.Result, error) {
		return wasmcp.NewResult(wasmcp.Audio(silentWAV, "audio/wav")), nil
	}, wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("test_embedded_resource", "Returns an embedded text resource.", func(noArgs) (*wasmcp.Result, error) {
		return wasmcp.NewResult(wasmcp.EmbeddedText("test://embedded-resource", "text/plain",
			"This is an embedded resource content.")), nil
	}, wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("test_multiple_content_types", "Returns text, an image and an embedded resource.",
		func(noArgs) (*wasmcp.Result, error) {
			return wasmcp.NewResult(
				wasmcp.Text("Multiple content types test:"),
				wasmcp.Image(redPixelPNG, "image/png"),
				wasmcp.EmbeddedText("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`),
			), nil
		}, wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("test_error_handling", "Always fails with a tool error.", func(noArgs) (string, error) {
		return "", errors.New("This tool intentionally returns an error for testing")
	}, wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100.", func(noArgs) (string, error) {
		for _, p := range []float64{0, 50, 100} {
			wasmcp.Progress(p, 100, "")
		}
		return "Progress tool completed: reported 0/100, 50/100 and 100/100.", nil
	}, wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("test_tool_with_logging", "Sends three info log messages while it runs.", func(noArgs) (string, error) {
		wasmcp.Info("Tool execution started")
		wasmcp.Info("Tool processing data")
		wasmcp.Info("Tool execution completed")
		return "Logging tool completed: sent 3 log messages.", nil
	}, wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("test_sampling", "Asks the client's model to answer a prompt (sampling).", func(in struct {
		Prompt string `json:"prompt" description:"The prompt to send to the LLM"`
	}) (string, error) {
		res, err := wasmcp.Sample(wasmcp.CreateMessageRequest{
			Messages:  []wasmcp.SamplingMessage{{Role: "user", Content: wasmcp.Text(in.Prompt)}},
			MaxTokens: 100,
		})
		if err != nil {
			return "", err
		}
		return "LLM response: " + res.Text(), nil
	}, wasmcp.ReadOnly(), wasmcp.OpenWorld(true))

	wasmcp.AddTool("test_elicitation", "Asks the user for a username and an email address (elicitation).", func(in struct {
		Message string `json:"message" description:"The message to show the user"`
	}) (string, error) {
		answer, err := elicit(in.Message, userSchema)
		if err != nil {
			return "", err
		}
		return "User response: " + answer, nil
	}, wasmcp.ReadOnly(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("test_elicitation_sep1034_defaults", "Elicits values whose schema has a default for every primitive type (SEP-1034).",
		func(noArgs) (string, error) {
			answer, err := elicit("Please review and update the form fields with defaults", defaultsSchema)
			if err != nil {
				return "", err
			}
			return "Elicitation completed: " + answer, nil
		}, wasmcp.ReadOnly(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("test_elicitation_sep1330_enums", "Elicits values with the five enum schema forms (SEP-1330).",
		func(noArgs) (string, error) {
			answer, err := elicit("Please select options from the enum fields", enumsSchema)
			if err != nil {
				return "", err
			}
			return "Elicitation completed: " + answer, nil
		}, wasmcp.ReadOnly(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", func(in map[string]any) (string, error) {
		args, err := json.Marshal(in)
		if err != nil {
			return "", err
		}
		return "JSON Schema 2020-12 tool called with " + string(args), nil
	}, wasmcp.InputSchema(jsonSchema2020Tool), wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))
}

// elicit asks the user with schema and describes the answer as
// "action=<action>, content=<JSON>", the form the suite's fixtures return.
func elicit(message string, schema json.RawMessage) (string, error) {
	action, content, err := wasmcp.Elicit(message, schema)
	if err != nil {
		return "", err
	}
	if content == nil {
		content = map[string]any{}
	}
	c, err := json.Marshal(content)
	if err != nil {
		return "", fmt.Errorf("encode the user's answer: %w", err)
	}
	return "action=" + action + ", content=" + string(c), nil
}
