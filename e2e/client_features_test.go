package e2e

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// featureClient is a go-sdk client over stdio to "wasmcp serve" of the
// everything example, with the client options a test chooses (sampling and
// elicitation handlers declare those capabilities).
func featureClient(t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return featureClientAt(t, opts, "2025-11-25")
}

// featureClientAt is featureClient speaking protocolVersion.
func featureClientAt(t *testing.T, opts *mcp.ClientOptions, protocolVersion string) *mcp.ClientSession {
	t.Helper()
	dir := servedCopy(t, filepath.Join(pluginsDir, "everything.wasm"), filepath.Join(pluginsDir, "clientfeatures.wasm"))
	cmd := exec.Command(binPath, "serve", "--dir", dir, "--cache-dir", cacheDir, "--log-level", "debug")
	cs, _ := connectClient(t, cmd, mcp.NewClient(&mcp.Implementation{Name: "wasmcp-e2e", Version: "1"}, opts), protocolVersion)
	return cs
}

// connectClient starts the server cmd and connects client to it over
// stdio, speaking protocolVersion. The server must exit cleanly when the
// test ends; its log, which connectClient returns, is shown if the test
// failed.
func connectClient(t *testing.T, cmd *exec.Cmd, client *mcp.Client, protocolVersion string) (*mcp.ClientSession, *lockedBuffer) {
	t.Helper()
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	cs, err := client.Connect(testContext(t), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		t.Fatalf("connect: %v\nserver log:\n%s", err, stderr)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("server did not exit cleanly: %v", err)
		}
		if t.Failed() {
			t.Logf("server log:\n%s", stderr)
		}
	})
	return cs, stderr
}

func callText(t *testing.T, cs *mcp.ClientSession, params *mcp.CallToolParams) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(testContext(t), params)
	if err != nil {
		t.Fatalf("call %s: %v", params.Name, err)
	}
	return text(res), res.IsError
}

func TestProgressNotifications(t *testing.T) {
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	five := make(chan struct{})
	cs := featureClient(t, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, r.Params)
			if len(got) == 5 {
				close(five)
			}
		},
	})
	out, isErr := callText(t, cs, &mcp.CallToolParams{
		Meta: mcp.Meta{"progressToken": "p1"}, Name: "trigger-long-running-operation",
		Arguments: map[string]any{"duration": 0.05, "steps": 5},
	})
	if isErr || !strings.HasPrefix(out, "Long running operation completed.") {
		t.Fatalf("result %q (error %v)", out, isErr)
	}
	select {
	case <-five:
	case <-testContext(t).Done():
		t.Fatal("fewer than 5 progress notifications")
	}
	mu.Lock()
	defer mu.Unlock()
	for i, p := range got {
		if p.ProgressToken != "p1" || p.Progress != float64(i+1) || p.Total != 5 {
			t.Errorf("notification %d: %+v, want progress %d of 5 for p1", i, p, i+1)
		}
	}
}

// Cancelling a call stops it; the server goes on serving.
func TestCancelLongCall(t *testing.T) {
	first := make(chan struct{}, 1)
	cs := featureClient(t, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case first <- struct{}{}:
			default:
			}
		},
	})
	ctx, cancel := context.WithCancel(testContext(t))
	done := make(chan error, 1)
	go func() {
		// 20 s of computation in 100 steps: far longer than the test waits.
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{
			Meta: mcp.Meta{"progressToken": 1}, Name: "trigger-long-running-operation",
			Arguments: map[string]any{"duration": 20, "steps": 100},
		})
		done <- err
	}()
	<-first // the guest is running
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call returned %v, want context.Canceled", err)
	}
	out, isErr := callText(t, cs, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "still here"}})
	if isErr || out != "Echo: still here" {
		t.Errorf("call after cancel: %q (error %v)", out, isErr)
	}
}

// bothEras runs test with a client of each protocol era: 2025-11-25, which
// the server sends sampling and elicitation requests in the middle of a
// call, and 2026-07-28, which answers them in a new request of its own (the
// guest is run again with the answer).
func bothEras(t *testing.T, test func(t *testing.T, protocolVersion string)) {
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) { test(t, v) })
	}
}

func TestSamplingRoundTrip(t *testing.T) {
	bothEras(t, func(t *testing.T, protocolVersion string) {
		var prompts []string
		cs := featureClientAt(t, &mcp.ClientOptions{
			CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				prompts = append(prompts, r.Params.Messages[0].Content.(*mcp.TextContent).Text)
				return &mcp.CreateMessageResult{Role: "assistant", Model: "e2e-model", Content: &mcp.TextContent{Text: "Four."}}, nil
			},
		}, protocolVersion)
		out, isErr := callText(t, cs, &mcp.CallToolParams{Name: "sample-llm", Arguments: map[string]any{"prompt": "2+2?"}})
		if isErr || out != "LLM sampling result (e2e-model): Four." || strings.Join(prompts, "|") != "2+2?" {
			t.Errorf("result %q (error %v), client saw prompts %q", out, isErr, prompts)
		}
	})
}

func TestElicitationRoundTrip(t *testing.T) {
	bothEras(t, func(t *testing.T, protocolVersion string) {
		asked := 0
		cs := featureClientAt(t, &mcp.ClientOptions{
			ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				if r.Params.Message != "Which colour do you like best?" {
					return nil, errors.New("unexpected message " + r.Params.Message)
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue"}}, nil
			},
		}, protocolVersion)
		out, isErr := callText(t, cs, &mcp.CallToolParams{Name: "elicit-favorite-color", Arguments: map[string]any{}})
		if isErr || out != `The user answered: {"color":"blue"}` || asked != 1 {
			t.Errorf("result %q (error %v), the client was asked %d times", out, isErr, asked)
		}
	})
}

// Without the capabilities, the tools fail with a tool error that says so.
func TestClientFeaturesUndeclared(t *testing.T) {
	cs := featureClient(t, &mcp.ClientOptions{})
	out, isErr := callText(t, cs, &mcp.CallToolParams{Name: "sample-llm", Arguments: map[string]any{"prompt": "hi"}})
	if !isErr || !strings.Contains(out, "did not declare the sampling capability") {
		t.Errorf("sample-llm: %q (error %v)", out, isErr)
	}
	out, isErr = callText(t, cs, &mcp.CallToolParams{Name: "elicit-favorite-color", Arguments: map[string]any{}})
	if !isErr || !strings.Contains(out, "did not declare the elicitation capability") {
		t.Errorf("elicit-favorite-color: %q (error %v)", out, isErr)
	}
}

// goExampleCases call the tools of examples/go/clientfeatures, which only Go
// implements: the client features, called here by a client that declares none of
// them (client_features_test.go covers the round trips).
var goExampleCases = []toolCase{
	{"trigger-long-running-operation", `{"duration":0.01,"steps":2}`, func(t *testing.T, res *mcp.CallToolResult) {
		wantOK(t, res)
		if !strings.HasPrefix(text(res), "Long running operation completed. Duration: 0.01 seconds, Steps: 2.") {
			t.Errorf("text %q", text(res))
		}
	}},
	{"sample-llm", `{"prompt":"hi"}`, func(t *testing.T, res *mcp.CallToolResult) {
		wantToolError(t, res, "did not declare the sampling capability")
	}},
	{"elicit-favorite-color", `{}`, func(t *testing.T, res *mcp.CallToolResult) {
		wantToolError(t, res, "did not declare the elicitation capability")
	}},
	{"log-messages", `{"message":"m"}`, wantText("Sent 8 log lines.")},
}
