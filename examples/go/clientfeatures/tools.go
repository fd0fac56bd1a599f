package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
)

// LongRunningArgs are the arguments of trigger-long-running-operation.
type LongRunningArgs struct {
	Duration float64 `json:"duration,omitempty" description:"Roughly how many seconds of computation to do (guest clocks are not real, so the tool computes rather than sleeps)." jsonschema:"minimum=0,maximum=20,default=10"`
	Steps    int     `json:"steps,omitempty" description:"Number of steps, each reported as progress." jsonschema:"minimum=1,maximum=100,default=5"`
}

// workPerSecond is about how many rounds of work() a Go guest does per second
// under wazero; it only scales the duration, nothing depends on it exactly.
const workPerSecond = 40_000_000

// work does n rounds of xorshift, real computation the compiler cannot drop
// because its result is returned.
func work(n int, x uint64) uint64 {
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// SampleArgs are the arguments of sample-llm.
type SampleArgs struct {
	Prompt    string `json:"prompt" description:"The prompt to send to the client's model."`
	MaxTokens int    `json:"maxTokens,omitempty" description:"Most tokens the answer may have." jsonschema:"minimum=1,default=100"`
}

// colorSchema is what elicit-favorite-color asks the user for.
var colorSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"name":{"type":"string","description":"Your name"},` +
	`"color":{"type":"string","enum":["red","green","blue"],"description":"Your favourite colour"}},` +
	`"required":["color"]}`)

func init() {
	wasmcp.AddTool("trigger-long-running-operation",
		"Does a computation in steps and reports progress after each (send a progressToken to receive notifications/progress).",
		func(in LongRunningArgs) (string, error) {
			if in.Steps == 0 {
				in.Steps = 5
			}
			rounds := int(in.Duration * workPerSecond / float64(in.Steps))
			x := uint64(88172645463325252)
			for i := 1; i <= in.Steps; i++ {
				if wasmcp.Cancelled() {
					return "", errors.New("cancelled")
				}
				x = work(rounds, x)
				wasmcp.Progress(float64(i), float64(in.Steps), fmt.Sprintf("step %d of %d", i, in.Steps))
			}
			return fmt.Sprintf("Long running operation completed. Duration: %s seconds, Steps: %d. Checksum: %016x.",
				number(in.Duration), in.Steps, x), nil
		}, wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("sample-llm", "Asks the client's model to answer a prompt (MCP sampling); the client must support sampling.",
		func(in SampleArgs) (string, error) {
			if in.MaxTokens == 0 {
				in.MaxTokens = 100
			}
			res, err := wasmcp.Sample(wasmcp.CreateMessageRequest{
				Messages:     []wasmcp.SamplingMessage{{Role: "user", Content: wasmcp.Text(in.Prompt)}},
				MaxTokens:    in.MaxTokens,
				SystemPrompt: "You are a helpful assistant.",
			})
			if err != nil {
				return "", err
			}
			return "LLM sampling result (" + res.Model + "): " + res.Text(), nil
		}, wasmcp.ReadOnly(), wasmcp.OpenWorld(true))

	wasmcp.AddTool("elicit-favorite-color", "Asks the user for their favourite colour (MCP elicitation); the client must support elicitation.",
		func(struct{}) (string, error) {
			action, content, err := wasmcp.Elicit("Which colour do you like best?", colorSchema)
			if err != nil {
				return "", err
			}
			if action != wasmcp.ActionAccept {
				return "The user chose to " + action + " the request.", nil
			}
			answer, err := json.Marshal(content)
			if err != nil {
				return "", err
			}
			return "The user answered: " + string(answer), nil
		}, wasmcp.ReadOnly(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("log-messages", "Emits one log line at each level from debug to emergency (set a level with logging/setLevel to receive them).",
		func(in struct {
			Message string `json:"message,omitempty" description:"Text of each line." jsonschema:"default=hello"`
		}) (string, error) {
			if in.Message == "" {
				in.Message = "hello"
			}
			for l := wasmcp.LevelDebug; l <= wasmcp.LevelEmergency; l++ {
				wasmcp.Logf(l, "%s: %s", l, in.Message)
			}
			return "Sent 8 log lines.", nil
		}, wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))
}

// number formats n without exponent or trailing zeros (7, 0.5, 12.25).
func number(n float64) string { return strconv.FormatFloat(n, 'f', -1, 64) }
