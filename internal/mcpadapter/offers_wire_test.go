package mcpadapter

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
)

// hugePromptHost answers every prompt with one message of more than a
// client reads in one message.
type hugePromptHost struct{ offersHost }

func (h *hugePromptHost) GetPrompt(context.Context, string, json.RawMessage, host.Request) (*abi.PromptResult, host.Module, error) {
	return &abi.PromptResult{Messages: []abi.PromptMessage{{Role: "user", Content: abi.Text(strings.Repeat("x", mcp.DefaultMaxLineLength))}}},
		host.Module{Plugin: "notes"}, nil
}

// A prompt over what a client reads in one message is an error the client
// reads, as a read over it is, rather than a message that ends its session.
func TestPromptOverWire(t *testing.T) {
	h := &hugePromptHost{offersHost{prompts: []host.Prompt{{Prompt: abi.Prompt{Name: "big"}, Plugin: "notes"}}}}
	a := New(h, Options{})
	defer a.Close()
	c := connect(t, a, legacy)
	ctx := testContext(t)
	_, err := c.GetPrompt(ctx, &mcp.GetPromptParams{Name: "big"})
	if je, ok := errors.AsType[*jsonrpc.Error](err); !ok || je.Code != jsonrpc.CodeInternalError {
		t.Fatalf("prompt over the wire's limit: %v, want an internal error", err)
	}
	if _, err := c.ListPrompts(ctx, nil); err != nil {
		t.Errorf("the session did not survive: %v", err)
	}
}

// hugeCompletionHost completes with values of more than a client reads in
// one message, as a plugin whose output limit was raised may return.
type hugeCompletionHost struct{ offersHost }

func (h *hugeCompletionHost) Complete(context.Context, abi.CompleteRequest, host.Request) (*abi.CompleteResult, error) {
	values := make([]string, abi.MaxCompletionValues)
	for i := range values {
		values[i] = strings.Repeat("x", mcp.DefaultMaxLineLength/abi.MaxCompletionValues+1)
	}
	return &abi.CompleteResult{Values: values}, nil
}

// A completion over what a client reads in one message is an error the
// client reads rather than a message that ends its session.
func TestCompletionOverWire(t *testing.T) {
	a := New(&hugeCompletionHost{}, Options{})
	defer a.Close()
	c := connect(t, a, legacy)
	ctx := testContext(t)
	_, err := c.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "p"},
		Argument: mcp.CompleteParamsArgument{Name: "a"}})
	if je, ok := errors.AsType[*jsonrpc.Error](err); !ok || je.Code != jsonrpc.CodeInternalError {
		t.Fatalf("completion over the wire's limit: %v, want an internal error", err)
	}
	if _, err := c.ListPrompts(ctx, nil); err != nil {
		t.Errorf("the session did not survive: %v", err)
	}
}
