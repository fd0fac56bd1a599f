package mcpadapter

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/mcpadapter/internal/wire"
	"github.com/wasmcp/wasmcp/internal/seal"
)

// A client of the 2026-07-28 protocol answers the guest's requests in rounds:
// its SDK fulfils each input request and calls again, and the guest, run
// again each time, gets the answers in order. The client sees each request,
// progress report and log line once, and the result is the one a client of
// the earlier protocol gets.
func TestInputRequestRounds(t *testing.T) {
	a, log := auditedAdapter(t, askingHost(), Options{})
	var mu sync.Mutex
	var sampled, elicited int
	progress := map[any]int{} // notifications by token
	cs := dialWith(t, a, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			mu.Lock()
			defer mu.Unlock()
			sampled++
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: &mcp.TextContent{Text: "4"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			elicited++
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress[req.Params.ProgressToken]++
		},
	}, "")

	got := callAsk(t, cs, mcp.Meta{"progressToken": "tok"})
	want := `sample: {"content":{"type":"text","text":"4"},"model":"test-model","role":"assistant"}` + "\n" +
		`elicit: {"action":"accept","content":{"name":"Ada"}}`
	if got != want {
		t.Errorf("result:\n%s\nwant:\n%s", got, want)
	}
	drainProgress(t, cs, func() int {
		mu.Lock()
		defer mu.Unlock()
		return progress["later"]
	})
	mu.Lock()
	defer mu.Unlock()
	if sampled != 1 || elicited != 1 {
		t.Errorf("the client was asked to sample %d times and to elicit %d times, want once each", sampled, elicited)
	}
	if progress["tok"] != 2 {
		t.Errorf("%d progress notifications, want the first round's 2 only", progress["tok"])
	}
	var outcomes []string
	for _, line := range log.lines(t) {
		outcomes = append(outcomes, line["outcome"].(string))
	}
	if strings.Join(outcomes, " ") != "input_required input_required ok ok" {
		t.Errorf("audit outcomes %q, want two rounds of input_required, then ok, and the later call's ok", outcomes)
	}
}

// The client's roots reach the guest (hyper-mcp's list_roots) from a
// client of either protocol: asked in a round of a 2026-07-28 client, as
// sampling is, and on the session of a 2025-11-25 one.
func TestInputRequestRoots(t *testing.T) {
	for _, v := range []string{"", "2025-11-25"} {
		t.Run("protocol "+v, func(t *testing.T) {
			a := New(askingHost(), Options{})
			defer a.Close()
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			client.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
			cs := dialClient(t, a, client, v)
			res, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: "ask", Arguments: json.RawMessage(`{"roots":{}}`)})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := textOf(res), `roots: {"roots":[{"name":"work","uri":"file:///work"}]}`; got != want {
				t.Errorf("result %q, want %q", got, want)
			}
		})
	}
}

// Without the capabilities the guest is told the features are unsupported,
// as with a client of the earlier protocol.
func TestInputRequestsUndeclared(t *testing.T) {
	a := New(askingHost(), Options{})
	defer a.Close()
	cs := dialWith(t, a, &mcp.ClientOptions{}, "")
	got := callAsk(t, cs, nil)
	want := "sample: unsupported: not supported by the client: the client did not declare the sampling capability\n" +
		"elicit: unsupported: not supported by the client: the client did not declare the elicitation capability"
	if got != want {
		t.Errorf("result:\n%s\nwant:\n%s", got, want)
	}
}

// rawRound calls ask once with the client's own handling of input requests
// turned off, and returns the result.
func rawRound(t *testing.T, cs *mcp.ClientSession, args string, responses mcp.InputResponseMap, state string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(testContext(t), &mcp.CallToolParams{
		Name: "ask", Arguments: json.RawMessage(args), InputResponses: responses, RequestState: state,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func newProtocolClient(t *testing.T, h *fakeHost) *mcp.ClientSession {
	t.Helper()
	return newProtocolClientSealed(t, h, nil)
}

// newProtocolClientSealed is newProtocolClient with the adapter's requestState
// sealed by sealer (nil: a key of its own).
func newProtocolClientSealed(t *testing.T, h *fakeHost, sealer *seal.Sealer) *mcp.ClientSession {
	t.Helper()
	a := New(h, Options{StateSealer: sealer})
	t.Cleanup(a.Close)
	return dialWith(t, a, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "4"}}, nil
		},
	}, "")
}

const sampleArgs = `{"sample":{"messages":[{"role":"user","content":{"type":"text","text":"2+2?"}}],"maxTokens":10}}`

var sampleAnswer = mcp.InputResponseMap{"sampling-1": &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "4"}}}

// The first round asks; the state it returns takes the call up again only
// with the same arguments, and with an answer to what it asked.
func TestInputRequestState(t *testing.T) {
	cs := newProtocolClient(t, askingHost())
	args := `{"n":1,` + sampleArgs[1:]
	first := rawRound(t, cs, args, nil, "")
	// The client's SDK reads a sampling request as the newer type.
	ir, ok := first.InputRequests["sampling-1"].(*mcp.CreateMessageWithToolsParams)
	if !ok || len(first.Content) != 0 || first.RequestState == "" {
		t.Fatalf("first round: %s, want an input request sampling-1 and a requestState", mustJSON(t, first))
	}
	if ir.MaxTokens != 10 || len(ir.Messages) != 1 {
		t.Errorf("input request %s, want the guest's params", mustJSON(t, ir))
	}
	// The same arguments encoded otherwise (members in another order,
	// other spacing) are the same call.
	reordered := `{ "sample" :` + sampleArgs[len(`{"sample":`):len(sampleArgs)-1] + ` , "n" : 1 }`
	if got := textOf(rawRound(t, cs, reordered, sampleAnswer, first.RequestState)); !strings.HasPrefix(got, `sample: {"content":{"type":"text","text":"4"}`) {
		t.Errorf("second round with the arguments encoded otherwise: %q", got)
	}

	for _, tc := range []struct {
		name, args, state string
		responses         mcp.InputResponseMap
		want              string
	}{
		{"other arguments", sampleArgs, first.RequestState, sampleAnswer,
			"requestState belongs to a call of another tool or other arguments"},
		{"no answer", args, first.RequestState, nil, `inputResponses has no answer to input request "sampling-1"`},
		{"wrong answer", args, first.RequestState, mcp.InputResponseMap{"sampling-1": &mcp.ElicitResult{Action: "accept"}},
			`"sampling-1" is answered with a *mcp.ElicitResult, not a result of sampling/createMessage`},
		{"not ours", sampleArgs, "bm90IG91cnM", sampleAnswer, "requestState is not one this server made"},
		{"answers without state", sampleArgs, "", sampleAnswer, "inputResponses without the requestState they answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := rawRound(t, cs, tc.args, tc.responses, tc.state)
			if !res.IsError || !strings.Contains(textOf(res), tc.want) {
				t.Errorf("result %s, want a tool error saying %q", mustJSON(t, res), tc.want)
			}
		})
	}
}

// A guest that asks for something else when run again, because it depends
// on more than its arguments and its answers, is stopped with a tool error.
func TestInputRequestsDiverge(t *testing.T) {
	h := askingHost()
	var mu sync.Mutex
	runs := 0
	ask := h.call
	h.call = func(ctx context.Context, req host.CallRequest) (*host.Result, error) {
		mu.Lock()
		runs++
		n := runs
		mu.Unlock()
		// Each run asks a different question, as a guest reading a real
		// clock would.
		req.Arguments = json.RawMessage(strings.Replace(sampleArgs, "2+2?", strings.Repeat("?", n), 1))
		return ask(ctx, req)
	}
	cs := newProtocolClient(t, h)
	first := rawRound(t, cs, sampleArgs, nil, "")
	second := rawRound(t, cs, sampleArgs, sampleAnswer, first.RequestState)
	if want := "tool ask asked for something else when run again with its client's answers (request 1, sampling/createMessage, with other params)"; !second.IsError || !strings.Contains(textOf(second), want) {
		t.Errorf("second round: %s, want a tool error saying %q", mustJSON(t, second), want)
	}
}

func newSealer(t testing.TB) *seal.Sealer {
	t.Helper()
	s, err := seal.New(DefaultStateMaxAge, seal.NewKey())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The state carries the answers as the guest read them, sealed for the tool
// and its arguments so that a client passes it on as an opaque string.
func TestInputRequestStateEncoding(t *testing.T) {
	sealer := newSealer(t)
	cs := newProtocolClientSealed(t, askingHost(), sealer)
	first := rawRound(t, cs, sampleArgs, nil, "")
	raw, err := sealer.Open(first.RequestState, stateAD("ask", argsDigest(json.RawMessage(sampleArgs))))
	if err != nil {
		t.Fatalf("requestState %q: %v", first.RequestState, err)
	}
	var st roundState
	if err := json.Unmarshal(raw, &st); err != nil || len(st.Steps) != 1 || st.Steps[0].Key != "sampling-1" || st.Steps[0].Response != nil {
		t.Errorf("state %s (%v), want one unanswered step sampling-1", raw, err)
	}
}

// A state that was altered, or sealed by a server of another key, is
// refused with a tool error that says which, and what to do.
func TestInputRequestStateSealed(t *testing.T) {
	sealer := newSealer(t)
	cs := newProtocolClientSealed(t, askingHost(), sealer)
	first := rawRound(t, cs, sampleArgs, nil, "")
	// A bit of the ciphertext, flipped in the decoded bytes: flipping a
	// letter of the text may leave no base64 at all.
	b, err := base64.RawURLEncoding.DecodeString(first.RequestState)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	altered := base64.RawURLEncoding.EncodeToString(b)
	other := rawRound(t, newProtocolClient(t, askingHost()), sampleArgs, nil, "")
	replica := newProtocolClientSealed(t, askingHost(), sealer)
	if got := textOf(rawRound(t, replica, sampleArgs, sampleAnswer, first.RequestState)); !strings.HasPrefix(got, "sample: {") {
		t.Errorf("a replica of the same key continuing the round: %q", got)
	}
	for _, tc := range []struct{ name, state, want string }{
		{"altered", altered, "requestState belongs to a call of another tool or other arguments, or was altered; call the tool again"},
		{"other key", other.RequestState, "requestState was sealed under a state key this server does not hold"},
		{"cut short", first.RequestState[:20], "requestState is not one this server made: not a sealed state"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := rawRound(t, cs, sampleArgs, sampleAnswer, tc.state)
			if !res.IsError || !strings.Contains(textOf(res), tc.want) {
				t.Errorf("result %s, want a tool error saying %q", mustJSON(t, res), tc.want)
			}
		})
	}
}

// A stale state is refused with the time it was sealed (the seal package
// tests the clock).
func TestStateErrorStale(t *testing.T) {
	err := stateError(fmt.Errorf("%w: sealed at 2026-07-28T12:00:00Z, 1h0m1s ago; states last 1h0m0s", seal.ErrStale))
	if want := "requestState is stale: sealed at 2026-07-28T12:00:00Z, 1h0m1s ago; states last 1h0m0s; call the tool again"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("%v, want %q", err, want)
	}
}

// Over HTTP a client of the 2026-07-28 protocol has no session; its rounds
// need none.
func TestInputRequestRoundsOverHTTP(t *testing.T) {
	a := New(askingHost(), Options{})
	defer a.Close()
	asked := 0
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			asked++
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "4"}}, nil
		},
	}).Connect(testContext(t), &mcp.StreamableClientTransport{Endpoint: serveHTTP(t, a, HTTPOptions{})}, &mcp.ClientSessionOptions{ProtocolVersion: wire.ModernProtocol})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: "ask", Arguments: json.RawMessage(sampleArgs)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := textOf(res), `sample: {"content":{"type":"text","text":"4"},"model":"m","role":"assistant"}`; got != want || asked != 1 {
		t.Errorf("result %q after %d sampling requests, want %q after one", got, asked, want)
	}
}

// FuzzRequestState feeds newRounds what a client controls: the state it
// echoes and its answers. It must refuse or accept without failing, and what
// it accepts is a replay the guest can consume: every step answered, with a
// result of its own method.
func FuzzRequestState(f *testing.F) {
	// A fixed key, so that the states a fuzzing process finds open in every
	// process.
	sealer, err := seal.New(DefaultStateMaxAge, make([]byte, seal.KeySize))
	if err != nil {
		f.Fatal(err)
	}
	valid, _ := json.Marshal(roundState{V: roundVersion, Steps: []step{{Key: "sampling-1", Method: methodSample, Request: digest([]byte("{}"))}}})
	sealed := sealer.Seal(valid, stateAD("ask", argsDigest(json.RawMessage(sampleArgs))))
	for _, seed := range []string{"", sealed, "bm90IG91cnM", "e30", "!!"} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	f.Fuzz(func(t *testing.T, state string, answer bool) {
		var responses mcp.InputResponseMap
		if answer {
			responses = sampleAnswer
		}
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
			Name: "ask", Arguments: json.RawMessage(sampleArgs), RequestState: state, InputResponses: responses,
		}}
		r, err := newRound(req, nil, sealer)
		if err != nil {
			return
		}
		for i, s := range r.steps {
			if len(s.Response) == 0 || !json.Valid(s.Response) {
				t.Fatalf("state %q accepted with step %d unanswered: %+v", state, i, s)
			}
			if s.Method != methodSample && s.Method != methodElicit && i == len(r.steps)-1 && answer {
				t.Fatalf("state %q: the client's sampling answer accepted for method %q", state, s.Method)
			}
		}
	})
}
