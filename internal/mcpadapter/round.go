package mcpadapter

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/host"
)

// A client of the 2026-07-28 protocol cannot be sent a request in the
// middle of a call. A tool that samples or elicits answers instead with the
// request ("input required"); the client calls the tool again with the
// answer (SEP-2322). A guest cannot be kept waiting between the two calls,
// so it is run again from the start, and the requests it makes are answered
// from the answers the client has given so far, in order, until it asks for
// one more. A guest's run is a function of its arguments and of these
// answers (its clock and randomness are fixed unless the operator grants
// real ones), so the second run makes the same requests as the first; a
// run that asks for something else is stopped with a tool error that says
// so, since its answers no longer fit.
//
// The answers of earlier rounds travel in the result's requestState, which
// the client sends back unchanged: the server keeps nothing between rounds,
// which also suits stateless HTTP. A client that edits the state can only
// change its own answers, which it could as well have given differently.

// Input request methods, as steps record them.
const (
	methodSample = "sampling/createMessage"
	methodElicit = "elicitation/create"
)

// maxRequestState bounds the state of one call's rounds: the answers given
// so far. The client sends it back inside its next request, which must fit
// the transport's limit around the arguments.
const maxRequestState = 1 << 20

// roundVersion tags the encoding of a requestState.
const roundVersion = 1

// roundState is what a requestState holds.
type roundState struct {
	V     int    `json:"v"`
	Tool  string `json:"tool"`
	Args  string `json:"args"` // hex SHA-256 of the arguments the rounds began with
	Steps []step `json:"steps"`
}

// A step is one request of the guest and the client's answer to it.
type step struct {
	Key      string          `json:"key"`
	Method   string          `json:"method"`
	Request  string          `json:"request"` // hex SHA-256 of the guest's params
	Response json.RawMessage `json:"response,omitempty"`
}

// round is one round of a tools/call that asks its client in rounds. Its
// methods run on the call's goroutine.
type round struct {
	tool, args string
	steps      []step // answered, in the order the guest asked
	next       int    // the step the guest's next request is matched with
	// pending is the request the client must answer next, set when the
	// guest asked past the answered steps.
	pending *pendingInput
	// diverged says how a run asked for something other than an answered
	// step; the call is then a tool error.
	diverged error
}

type pendingInput struct {
	step
	params mcp.InputRequest
}

// usesInputRequests reports whether req comes from a client of the
// 2026-07-28 protocol, which answers input requests in requests of its own.
func usesInputRequests(req *mcp.CallToolRequest) bool {
	v, _ := req.Params.Meta[mcp.MetaKeyProtocolVersion].(string)
	return modern(v)
}

// newRounds takes up the rounds of req where its requestState and
// inputResponses leave them.
func newRound(req *mcp.CallToolRequest) (*round, error) {
	p := req.Params
	r := &round{tool: p.Name, args: argsDigest(p.Arguments)}
	if p.RequestState == "" {
		if len(p.InputResponses) > 0 {
			return nil, errors.New("inputResponses without the requestState they answer")
		}
		return r, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(p.RequestState)
	var st roundState
	if err == nil {
		err = json.Unmarshal(raw, &st)
	}
	switch {
	case err != nil:
		return nil, fmt.Errorf("requestState is not one this server made: %v", err)
	case st.V != roundVersion:
		return nil, fmt.Errorf("requestState of version %d, want %d", st.V, roundVersion)
	case st.Tool != r.tool || st.Args != r.args:
		return nil, errors.New("requestState belongs to a call of another tool or other arguments")
	case len(st.Steps) == 0:
		return nil, errors.New("requestState has no input request")
	}
	for i := range st.Steps[:len(st.Steps)-1] {
		if len(st.Steps[i].Response) == 0 {
			return nil, fmt.Errorf("requestState: input request %q has no answer", st.Steps[i].Key)
		}
	}
	last := &st.Steps[len(st.Steps)-1]
	if len(last.Response) == 0 {
		answer, ok := p.InputResponses[last.Key]
		if !ok {
			return nil, fmt.Errorf("inputResponses has no answer to input request %q", last.Key)
		}
		if !answers(last.Method, answer) {
			return nil, fmt.Errorf("inputResponses: %q is answered with a %T, not a result of %s", last.Key, answer, last.Method)
		}
		if last.Response, err = json.Marshal(answer); err != nil {
			return nil, fmt.Errorf("inputResponses: %q: %v", last.Key, err)
		}
	}
	r.steps = st.Steps
	return r, nil
}

// answers reports whether a is a result of the input request method.
func answers(method string, a mcp.InputResponse) bool {
	switch a.(type) {
	case *mcp.CreateMessageResult, *mcp.CreateMessageWithToolsResult:
		return method == methodSample
	case *mcp.ElicitResult:
		return method == methodElicit
	}
	return false
}

// ask is the sampling or elicitation function of the call (host.CallRequest
// Sample and Elicit) for the input request method, whose params are a P: it
// answers the guest's requests from the answered steps, and stops the guest
// at the first one past them.
func ask[P any, PT interface {
	*P
	mcp.InputRequest
}](r *round, method string, declared bool) func(context.Context, json.RawMessage) (json.RawMessage, error) {
	return func(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
		if !declared {
			return nil, notDeclared(feature(method))
		}
		req := digest(params)
		if r.next < len(r.steps) {
			s := r.steps[r.next]
			if s.Method != method || s.Request != req {
				what := fmt.Sprintf("%s, with other params", method)
				if s.Method != method {
					what = fmt.Sprintf("%s where the client answered %s", method, s.Method)
				}
				r.diverged = fmt.Errorf("tool %s asked for something else when run again with its client's answers "+
					"(request %d, %s): it depends on more than its arguments and those answers, "+
					"so it can ask its client only with a client of a protocol before %s", r.tool, r.next+1, what, modernProtocol)
				return nil, fmt.Errorf("%w: %v", host.ErrInputRequired, r.diverged)
			}
			r.next++
			return s.Response, nil
		}
		p, err := decodeParams[P](method, params)
		if err != nil {
			return nil, err
		}
		r.pending = &pendingInput{
			step:   step{Key: fmt.Sprintf("%s-%d", feature(method), len(r.steps)+1), Method: method, Request: req},
			params: PT(p),
		}
		return nil, host.ErrInputRequired
	}
}

// replaying reports whether the guest is still going over what it did in
// earlier rounds, whose log lines and progress the client has had.
func (r *round) replaying() bool { return r.next < len(r.steps) }

// result is the answer to the round of a call that stopped with
// host.ErrInputRequired: the input request for the client, or why the call
// cannot go on. inputRequired tells the two apart.
func (r *round) result() (res *mcp.CallToolResult, inputRequired bool) {
	fail := func(msg string) (*mcp.CallToolResult, bool) {
		return toCallToolResult(&refusedResult(msg).Result), false
	}
	switch {
	case r.diverged != nil:
		return fail(r.diverged.Error())
	case r.pending == nil:
		// The host reports input required only after a request of ours.
		return fail(fmt.Sprintf("tool %s stopped for an input request that was not made", r.tool))
	}
	st := roundState{V: roundVersion, Tool: r.tool, Args: r.args, Steps: append(r.steps[:len(r.steps):len(r.steps)], r.pending.step)}
	raw, err := json.Marshal(st)
	if err != nil {
		return fail(fmt.Sprintf("tool %s: input request state: %v", r.tool, err))
	}
	if n := base64.RawURLEncoding.EncodedLen(len(raw)); n > maxRequestState {
		return fail(fmt.Sprintf("tool %s asked its client more than its answers can carry: %d bytes of requestState, over the limit of %d",
			r.tool, n, maxRequestState))
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{r.pending.Key: r.pending.params},
		RequestState:  base64.RawURLEncoding.EncodeToString(raw),
	}, true
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// argsDigest is the digest of the arguments as a value, not as bytes: a
// client may encode them again for the next round, with its keys in
// another order or other spacing.
func argsDigest(args json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return digest(args) // the host refuses them anyway
	}
	canonical, err := json.Marshal(v) // object keys sorted
	if err != nil {
		return digest(args)
	}
	return digest(canonical)
}
