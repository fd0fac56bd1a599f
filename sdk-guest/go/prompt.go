package wasmcp

import (
	"fmt"
	"strings"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/guest"
)

// Prompt defines a prompt: its name, what clients show of it and its
// Arguments, whose values are strings.
type Prompt = abi.Prompt

// PromptArgument is one argument of a prompt; Required ones are always
// given.
type PromptArgument = abi.PromptArgument

// PromptMessage is one message of a prompt: a role and one content block.
// Build messages with UserMessage and AssistantMessage.
type PromptMessage = abi.PromptMessage

// UserMessage returns a message of the user holding c.
func UserMessage(c Content) PromptMessage { return PromptMessage{Role: "user", Content: c} }

// AssistantMessage returns a message of the assistant holding c.
func AssistantMessage(c Content) PromptMessage {
	return PromptMessage{Role: "assistant", Content: c}
}

// AddPrompt registers a prompt whose messages get returns. Call it from an
// init function, as AddTool.
//
//	wasmcp.AddPrompt(wasmcp.Prompt{Name: "review", Description: "Reviews a change.",
//		Arguments: []wasmcp.PromptArgument{{Name: "diff", Required: true}, {Name: "focus"}}},
//		func(args map[string]string) ([]wasmcp.PromptMessage, error) {
//			return []wasmcp.PromptMessage{wasmcp.UserMessage(wasmcp.Text("Review this change:\n" + args["diff"]))}, nil
//		}, wasmcp.Complete("focus", wasmcp.Choices("security", "style")))
//
// The host checks the arguments before get runs: every Required argument
// is in args, and nothing else; an argument the client left out has no
// entry. The result's description is the definition's. complete gives the
// completions of some arguments.
//
// A panic in get is recovered as an internal error. AddPrompt panics when
// the definition is one the host would refuse (see AddTool).
func AddPrompt(def Prompt, get func(args map[string]string) ([]PromptMessage, error), complete ...Completion) {
	mustRegister("AddPrompt", addPrompt(def, get, complete))
}

func addPrompt(def Prompt, get func(map[string]string) ([]PromptMessage, error), complete []Completion) error {
	if get == nil {
		return fmt.Errorf("prompt %q: nil get function", def.Name)
	}
	completions, err := completionMap(complete)
	if err != nil {
		return fmt.Errorf("prompt %q: %w", def.Name, err)
	}
	return guest.RegisterPrompt(def, get, completions)
}

// Completer suggests values for an argument of a prompt or a variable of a
// resource template: value is what the user has typed of it, args the
// arguments (or variables) already chosen. The host sends the first 100
// values, saying that there are more.
type Completer func(value string, args map[string]string) ([]string, error)

// Completion is the completer of one argument, for AddPrompt and
// AddResourceTemplate.
type Completion struct {
	arg      string
	complete Completer
}

// Complete completes the argument (or template variable) named arg with c.
func Complete(arg string, c Completer) Completion { return Completion{arg, c} }

// Choices is a Completer offering the values that begin with what the user
// typed, ignoring case, in the order given.
func Choices(values ...string) Completer {
	return func(typed string, _ map[string]string) ([]string, error) {
		typed = strings.ToLower(typed)
		var out []string
		for _, v := range values {
			if strings.HasPrefix(strings.ToLower(v), typed) {
				out = append(out, v)
			}
		}
		return out, nil
	}
}

func completionMap(cs []Completion) (map[string]guest.CompleteFunc, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	m := make(map[string]guest.CompleteFunc, len(cs))
	for _, c := range cs {
		switch {
		case c.complete == nil:
			return nil, fmt.Errorf("nil completer for %q", c.arg)
		case m[c.arg] != nil:
			return nil, fmt.Errorf("two completers for %q", c.arg)
		}
		m[c.arg] = guest.CompleteFunc(c.complete)
	}
	return m, nil
}
