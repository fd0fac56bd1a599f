package main

import (
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/sdk-guest/go/wasmcptest"
)

// Natively there is no client: the long-running tool still completes (its
// progress goes nowhere), and sampling and elicitation are tool errors that
// say why.
func TestClientToolsWithoutClient(t *testing.T) {
	res := wasmcptest.Call(t, "trigger-long-running-operation", `{"duration":0.01,"steps":3}`)
	if res.IsError || !strings.HasPrefix(res.Text(), "Long running operation completed. Duration: 0.01 seconds, Steps: 3.") {
		t.Errorf("long-running: %+v", res)
	}
	for _, tool := range []string{"sample-llm", "elicit-favorite-color"} {
		t.Run(tool, func(t *testing.T) {
			args := `{}`
			if tool == "sample-llm" {
				args = `{"prompt":"hi"}`
			}
			res := wasmcptest.Call(t, tool, args)
			if !res.IsError || !strings.Contains(res.Text(), "not available outside a wasmcp host") {
				t.Errorf("%s: %+v", tool, res)
			}
		})
	}
}

func TestLogMessages(t *testing.T) {
	res := wasmcptest.Call(t, "log-messages", `{"message":"m"}`)
	if res.IsError || len(res.Logs) != 8 || res.Logs[0].Message != "debug: m" || res.Logs[7].Message != "emergency: m" {
		t.Errorf("log-messages: %+v", res)
	}
}
