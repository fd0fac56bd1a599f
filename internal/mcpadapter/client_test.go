package mcpadapter

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
)

// askingHost is a fake host whose one tool, ask, acts like a guest using the
// client features: it reports progress twice, then sends its arguments'
// "sample" object as a sampling request and its "elicit" object as an
// elicitation, and returns what happened as text, one line per request.
func askingHost() *fakeHost {
	h := &fakeHost{tools: []host.Tool{tool("ask", `{"type":"object"}`)}}
	h.call = func(ctx context.Context, req host.CallRequest) (*host.Result, error) {
		if req.Progress != nil {
			req.Progress(1, 2, "half")
			req.Progress(2, 2, "")
		}
		var args map[string]json.RawMessage
		if err := json.Unmarshal(req.Arguments, &args); err != nil {
			return nil, err
		}
		var lines []string
		for _, k := range []string{"sample", "elicit", "roots"} {
			fn := map[string]host.RequestFunc{"sample": req.Sample, "elicit": req.Elicit, "roots": req.Roots}[k]
			params, ok := args[k]
			switch {
			case !ok:
				continue
			case fn == nil:
				lines = append(lines, k+": no function")
				continue
			}
			reply, err := fn(ctx, params)
			switch {
			case errors.Is(err, host.ErrInputRequired):
				// As the sandbox does: the guest stops where it asked.
				return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text("stopped")}, IsError: true}, Failure: err}, nil
			case errors.Is(err, host.ErrNotSupported):
				lines = append(lines, k+": unsupported: "+err.Error())
			case err != nil:
				lines = append(lines, k+": failed: "+err.Error())
			default:
				lines = append(lines, k+": "+string(reply))
			}
		}
		return &host.Result{Result: abi.Result{Content: []abi.Content{abi.Text(strings.Join(lines, "\n"))}}}, nil
	}
	return h
}

// dialWith connects a client with opts (which decide its capabilities) to a.
func dialWith(t *testing.T, a *Adapter, opts *mcp.ClientOptions, protocolVersion string) *mcp.ClientSession {
	t.Helper()
	return dialClient(t, a, mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts), protocolVersion)
}

// dialClient connects client to a.
func dialClient(t *testing.T, a *Adapter, client *mcp.Client, protocolVersion string) *mcp.ClientSession {
	t.Helper()
	ctx := testContext(t)
	sctx, stop := context.WithCancel(ctx)
	ct, served := serveStdio(sctx, a)
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		stop()
		<-served
	})
	return cs
}

const askArgs = `{"sample":{"messages":[{"role":"user","content":{"type":"text","text":"2+2?"}}],"maxTokens":10},` +
	`"elicit":{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`

// drainProgress calls ask with the progress token "later" and waits until
// the client has handled its two progress reports, which later reports
// says: the client handles notifications in order but apart from
// responses, so by then it has handled every report sent before.
func drainProgress(t *testing.T, cs *mcp.ClientSession, later func() int) {
	t.Helper()
	if _, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Meta: mcp.Meta{"progressToken": "later"}, Name: "ask", Arguments: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	for ctx := testContext(t); later() < 2; {
		select {
		case <-ctx.Done():
			t.Fatal("the progress of the later call never arrived")
		case <-time.After(time.Millisecond):
		}
	}
}

func callAsk(t *testing.T, cs *mcp.ClientSession, meta mcp.Meta) string {
	t.Helper()
	res, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Meta: meta, Name: "ask", Arguments: json.RawMessage(askArgs)})
	if err != nil {
		t.Fatal(err)
	}
	return textOf(res)
}

func TestClientFeaturesWithCapabilities(t *testing.T) {
	a := New(askingHost(), Options{})
	defer a.Close()
	var mu sync.Mutex
	var progress []string
	var later int
	var sampled, elicited string
	cs := dialWith(t, a, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			sampled = req.Params.Messages[0].Content.(*mcp.TextContent).Text
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: &mcp.TextContent{Text: "4"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			elicited = req.Params.Message
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			p := req.Params
			if p.ProgressToken == "later" {
				later++
				return
			}
			progress = append(progress, mustJSON(t, p))
		},
	}, legacy)

	got := callAsk(t, cs, mcp.Meta{"progressToken": "tok"})
	want := `sample: {"content":{"type":"text","text":"4"},"model":"test-model","role":"assistant"}` + "\n" +
		`elicit: {"action":"accept","content":{"name":"Ada"}}`
	if got != want {
		t.Errorf("result:\n%s\nwant:\n%s", got, want)
	}
	if sampled != "2+2?" || elicited != "Your name?" {
		t.Errorf("client saw sample %q, elicit %q", sampled, elicited)
	}
	// Notifications are sent before the response, in order.
	drainProgress(t, cs, func() int {
		mu.Lock()
		defer mu.Unlock()
		return later
	})
	mu.Lock()
	defer mu.Unlock()
	wantProgress := []string{
		`{"progressToken":"tok","message":"half","progress":1,"total":2}`,
		`{"progressToken":"tok","progress":2,"total":2}`,
	}
	if strings.Join(progress, "\n") != strings.Join(wantProgress, "\n") {
		t.Errorf("progress:\n%s\nwant:\n%s", strings.Join(progress, "\n"), strings.Join(wantProgress, "\n"))
	}
}

func TestClientFeaturesWithoutCapabilities(t *testing.T) {
	a := New(askingHost(), Options{})
	defer a.Close()
	progressed := false
	cs := dialWith(t, a, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progressed = true },
	}, legacy)
	// No progress token: no progress function; no capabilities: unsupported.
	got := callAsk(t, cs, nil)
	want := "sample: unsupported: not supported by the client: the client did not declare the sampling capability\n" +
		"elicit: unsupported: not supported by the client: the client did not declare the elicitation capability"
	if got != want {
		t.Errorf("result:\n%s\nwant:\n%s", got, want)
	}
	if progressed {
		t.Error("progress sent for a request without a progress token")
	}
}

// A client that refuses sampling is a failed request, not an unsupported one.
func TestClientRefusesSampling(t *testing.T) {
	a := New(askingHost(), Options{})
	defer a.Close()
	cs := dialWith(t, a, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return nil, errors.New("user rejected sampling request")
		},
	}, legacy)
	res, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: "ask", Arguments: json.RawMessage(`{"sample":{"messages":[],"maxTokens":1}}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(res); !strings.HasPrefix(got, "sample: failed: ") || !strings.Contains(got, "user rejected sampling request") {
		t.Errorf("result %q", got)
	}
}
