package mcpadapter

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/mcpadapter/internal/wire"
	"github.com/wasmcp/wasmcp/internal/seal"
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
// which also suits stateless HTTP and replicas. The specification has the
// server treat the state as attacker-controlled and protect its integrity
// when it affects behaviour, as it does here: it says which requests the
// guest has made. It is sealed (internal/seal) under the server's state key,
// bound to the tool and its arguments, and refused once stale, so that a
// client can neither forge a step nor move a state to another call.

// Input request methods, as steps record them.
const (
	methodSample = "sampling/createMessage"
	methodElicit = "elicitation/create"
	methodRoots  = "roots/list"
)

// maxRequestState bounds the state of one call's rounds: the answers given
// so far. The client sends it back inside its next request, which must fit
// the transport's limit around the arguments.
const maxRequestState = 1 << 20

// roundVersion tags the encoding of a requestState's payload.
const roundVersion = 1

// DefaultStateMaxAge is how long a requestState stays good: the time a
// client may take to answer, a person's answer to an elicitation included.
const DefaultStateMaxAge = time.Hour

// roundState is what a requestState holds, sealed for the tool and its
// arguments (stateAD).
type roundState struct {
	V     int    `json:"v"`
	Steps []step `json:"steps"`
	// Principal is the digest of the key of the principal the rounds
	// began for: another principal's replay is refused, saying so.
	Principal string `json:"p,omitempty"`
}

// stateAD binds a requestState to the call it continues: the tool, and the
// digest of the arguments the rounds began with.
func stateAD(tool, args string) []byte {
	return []byte("wasmcp requestState\x00" + tool + "\x00" + args)
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
	principal  string // digest of the caller's key, "" for none
	sealer     *seal.Sealer
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
	return wire.Modern(v)
}

// newRound takes up the rounds of req where its requestState and
// inputResponses leave them; sealer opens the state.
func newRound(req *mcp.CallToolRequest, principal *host.Principal, sealer *seal.Sealer) (*round, error) {
	p := req.Params
	r := &round{tool: p.Name, args: argsDigest(p.Arguments), sealer: sealer}
	if principal != nil {
		r.principal = digest([]byte(principal.Key()))
	}
	if p.RequestState == "" {
		if len(p.InputResponses) > 0 {
			return nil, errors.New("inputResponses without the requestState they answer")
		}
		return r, nil
	}
	raw, err := sealer.Open(p.RequestState, stateAD(r.tool, r.args))
	if err != nil {
		return nil, stateError(err)
	}
	var st roundState
	switch err := json.Unmarshal(raw, &st); {
	case err != nil:
		// Sealed by a server of another encoding, under the same key.
		return nil, fmt.Errorf("requestState is not one this server made: %v", err)
	case st.V != roundVersion:
		return nil, fmt.Errorf("requestState of version %d, want %d", st.V, roundVersion)
	case len(st.Steps) == 0:
		return nil, errors.New("requestState has no input request")
	case st.Principal != r.principal:
		return nil, errors.New("requestState was issued to another principal: a call's rounds continue only for whoever began them")
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

// stateError says why a requestState did not open, and what the client can
// do: start the call again.
func stateError(err error) error {
	const again = "; call the tool again without requestState and inputResponses"
	switch {
	case errors.Is(err, seal.ErrUnknownKey):
		return errors.New("requestState was sealed under a state key this server does not hold: by a replica " +
			"without the same -state-key-file, or by this server before a restart" + again)
	case errors.Is(err, seal.ErrForged):
		return errors.New("requestState belongs to a call of another tool or other arguments, or was altered" + again)
	case errors.Is(err, seal.ErrStale):
		return fmt.Errorf("requestState is %v%s", err, again)
	}
	return fmt.Errorf("requestState is not one this server made: %v", err)
}

// answers reports whether a is a result of the input request method.
func answers(method string, a mcp.InputResponse) bool {
	switch a.(type) {
	case *mcp.CreateMessageResult, *mcp.CreateMessageWithToolsResult:
		return method == methodSample
	case *mcp.ElicitResult:
		return method == methodElicit
	case *mcp.ListRootsResult:
		return method == methodRoots
	}
	return false
}

// ask is the sampling, elicitation or roots function of the call
// (host.CallRequest Sample, Elicit and Roots) for the input request method,
// whose params are a P: it
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
					"so it can ask its client only with a client of a protocol before %s", r.tool, r.next+1, what, wire.ModernProtocol)
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
	st := roundState{V: roundVersion, Steps: append(r.steps[:len(r.steps):len(r.steps)], r.pending.step), Principal: r.principal}
	raw, err := json.Marshal(st)
	if err != nil {
		return fail(fmt.Sprintf("tool %s: input request state: %v", r.tool, err))
	}
	if n := seal.SealedLen(len(raw)); n > maxRequestState {
		return fail(fmt.Sprintf("tool %s asked its client more than its answers can carry: %d bytes of requestState, over the limit of %d",
			r.tool, n, maxRequestState))
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{r.pending.Key: r.pending.params},
		RequestState:  r.sealer.Seal(raw, stateAD(r.tool, r.args)),
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
