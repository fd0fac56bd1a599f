package wasmcp

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/guest"
)

// Progress reports the progress of the current call. When the client asked
// for progress, it gets notifications/progress; otherwise nothing happens.
// progress must increase from one report to the next (the host drops a
// report that does not); total is the value progress reaches at the end,
// or negative when unknown; msg may be empty.
func Progress(progress, total float64, msg string) {
	if guest.Client != nil {
		guest.Client.Progress(progress, total, msg)
	}
}

// Cancelled reports whether the client cancelled the current call. The host
// stops a cancelled call by itself, so a tool needs this only to skip
// costly work, such as a further Sample, once it no longer matters.
func Cancelled() bool { return guest.Client != nil && guest.Client.Cancelled() }

// SamplingMessage is one message of a sampling conversation: MCP's
// SamplingMessage. Content is a text, image or audio block.
type SamplingMessage struct {
	Role    string  `json:"role"` // "user" or "assistant"
	Content Content `json:"content"`
}

// ModelHint names a model, or a family of models, the client may prefer.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// ModelPreferences are the server's model preferences, as MCP defines them;
// priorities are between 0 and 1.
type ModelPreferences struct {
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// CreateMessageRequest asks the client's model for a message: the params of
// MCP's sampling/createMessage.
type CreateMessageRequest struct {
	Messages         []SamplingMessage `json:"messages"`
	MaxTokens        int               `json:"maxTokens"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	Temperature      *float64          `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	// IncludeContext is "none", "thisServer" or "allServers".
	IncludeContext string         `json:"includeContext,omitempty"`
	Metadata       map[string]any `json:"metadata,omitempty"`
}

// CreateMessageResult is the client's answer to a sampling request: MCP's
// CreateMessageResult.
type CreateMessageResult struct {
	Role       string  `json:"role"`
	Content    Content `json:"content"`
	Model      string  `json:"model"`
	StopReason string  `json:"stopReason,omitempty"`
}

// Text returns the text of a text answer, or "" for an image or audio one.
func (r *CreateMessageResult) Text() string {
	if r.Content.Type != "text" {
		return ""
	}
	return r.Content.Text
}

// ErrUnsupported is matched (errors.Is) by the error of Sample or Elicit
// when the client does not support the request, or there is no client.
var ErrUnsupported = errors.New("not supported by the client")

// RequestError is the error of a Sample, Elicit or HTTP that did not get an
// answer. Returned from a tool handler it becomes a tool error whose text
// says why, so a model can read it.
type RequestError struct {
	Status  abi.ReplyStatus
	Message string // the host's explanation
}

func (e *RequestError) Error() string { return e.Message }

// Is makes errors.Is(err, ErrUnsupported) true for abi.StatusUnsupported,
// and errors.Is(err, ErrDenied) for abi.StatusDenied.
func (e *RequestError) Is(target error) bool {
	return target == ErrUnsupported && e.Status == abi.StatusUnsupported ||
		target == ErrDenied && e.Status == abi.StatusDenied
}

// Sample asks the client's model to create a message, for example to
// summarise or classify something the tool found. The client decides which
// model answers, and may show the request to its user first. The error is a
// *RequestError when the client did not answer (see ABI.md for the
// statuses) and matches ErrUnsupported when it cannot sample.
func Sample(req CreateMessageRequest) (*CreateMessageResult, error) {
	if req.Messages == nil {
		req.Messages = []SamplingMessage{}
	}
	var res CreateMessageResult
	if err := request(false, req, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Elicitation actions.
const (
	ActionAccept  = "accept"  // the user answered; content holds the answer
	ActionDecline = "decline" // the user explicitly declined
	ActionCancel  = "cancel"  // the user dismissed the request
)

// Elicit asks the user, through the client, for the values that schema
// describes: a flat JSON Schema object whose properties are strings,
// numbers, booleans or enums (MCP's restricted form). It returns the
// user's action and, on accept, the values. Declining is not an error.
func Elicit(message string, schema json.RawMessage) (action string, content map[string]any, err error) {
	params := struct {
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}{message, schema}
	var res struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content,omitempty"`
	}
	if err := request(true, params, &res); err != nil {
		return "", nil, err
	}
	return res.Action, res.Content, nil
}

// request sends params as a sampling (elicit false) or elicitation request
// and decodes the client's result into res.
func request(elicit bool, params, res any) error {
	feature := "sampling"
	if elicit {
		feature = "elicitation"
	}
	if guest.Client == nil {
		return &RequestError{abi.StatusUnsupported, feature + " is not available outside a wasmcp host"}
	}
	body, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s request: %w", feature, err)
	}
	status, reply := guest.Client.Request(elicit, body)
	if status != abi.StatusOK {
		return &RequestError{status, string(reply)}
	}
	if err := json.Unmarshal(reply, res); err != nil {
		return fmt.Errorf("%s reply: %w", feature, err)
	}
	return nil
}
