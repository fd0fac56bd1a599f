package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"time"

	"github.com/itchyny/gojq"
)

// defaultMaxResults bounds the results of a call when max_results is absent:
// enough for any answer a model reads, few enough to stop `repeat(1)`.
const defaultMaxResults = 1000

// Args are the jq tool's arguments.
type Args struct {
	Filter     string         `json:"filter" description:"The jq filter, for example '.items[] | select(.price > 10) | .name'." jsonschema:"minLength=1"`
	Input      any            `json:"input,omitempty" description:"The input: any JSON value. Give input or input_text, not both; with neither (or a null input) the input is null, as with jq -n."`
	InputText  *string        `json:"input_text,omitempty" description:"The input as JSON text. It may hold several JSON values separated by whitespace; the filter runs on each in turn, as jq does on a file."`
	Slurp      bool           `json:"slurp,omitempty" description:"Collect all input values into one array and run the filter once on it (jq --slurp)."`
	Vars       map[string]any `json:"vars,omitempty" description:"Variables for the filter: {\"limit\": 5} is $limit in the filter (jq --argjson)."`
	MaxResults int            `json:"max_results,omitempty" description:"Stop after this many results and report truncated: true." jsonschema:"minimum=1,maximum=100000,default=1000"`
}

// Output is the jq tool's structured result.
type Output struct {
	Results   []Value `json:"results" description:"Every value the filter output, in order."`
	Truncated bool    `json:"truncated" description:"True when the filter had more results than max_results."`
}

// Value is one jq value. It is encoded as jq encodes it: NaN as null and
// infinities as the largest float, which encoding/json would refuse; numbers
// of the input keep their exact text.
type Value struct{ v any }

// MarshalJSON encodes the value with gojq's encoder.
func (v Value) MarshalJSON() ([]byte, error) { return gojq.Marshal(v.v) }

func run(args Args) (Output, error) {
	code, varValues, err := compile(args.Filter, args.Vars)
	if err != nil {
		return Output{}, err
	}
	inputs, err := readInputs(args)
	if err != nil {
		return Output{}, err
	}
	limit := args.MaxResults
	if limit <= 0 {
		limit = defaultMaxResults
	}
	out := Output{Results: []Value{}}
	ctx := &yieldingContext{}
	for _, in := range inputs {
		iter := code.RunWithContext(ctx, in, varValues...)
		for {
			v, ok := iter.Next()
			if !ok {
				break
			}
			if err, isErr := v.(error); isErr {
				var halt *gojq.HaltError
				if errors.As(err, &halt) && halt.Value() == nil {
					return out, nil // halt: stop without error
				}
				return Output{}, runtimeError(err, len(out.Results))
			}
			if len(out.Results) == limit {
				out.Truncated = true
				return out, nil
			}
			out.Results = append(out.Results, Value{v})
		}
	}
	return out, nil
}

// compile parses and compiles the filter with the given variables, in name
// order, and returns their values in the same order.
func compile(filter string, vars map[string]any) (*gojq.Code, []any, error) {
	query, err := gojq.Parse(filter)
	if err != nil {
		var perr *gojq.ParseError
		if errors.As(err, &perr) {
			return nil, nil, fmt.Errorf("jq: syntax error at byte %d of the filter: %v", perr.Offset, err)
		}
		return nil, nil, fmt.Errorf("jq: syntax error: %v", err)
	}
	names := make([]string, 0, len(vars))
	for name := range vars {
		if !identifier(name) {
			return nil, nil, fmt.Errorf("jq: variable name %q must be letters, digits and underscores, not starting with a digit", name)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	values := make([]any, len(names))
	dollarNames := make([]string, len(names))
	for i, name := range names {
		dollarNames[i] = "$" + name
		values[i] = vars[name]
	}
	code, err := gojq.Compile(query,
		gojq.WithVariables(dollarNames),
		gojq.WithEnvironLoader(func() []string { return nil }))
	if err != nil {
		return nil, nil, fmt.Errorf("jq: compile error: %v", err)
	}
	return code, values, nil
}

func identifier(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return name != ""
}

// readInputs returns the values the filter runs on: the input value, the
// values of input_text, their array when slurping, or null.
func readInputs(args Args) ([]any, error) {
	var inputs []any
	switch {
	case args.Input != nil && args.InputText != nil:
		return nil, errors.New("give input or input_text, not both")
	case args.Input != nil:
		inputs = []any{args.Input}
	case args.InputText != nil:
		dec := json.NewDecoder(bytes.NewReader([]byte(*args.InputText)))
		dec.UseNumber()
		for {
			var v any
			offset := dec.InputOffset()
			if err := dec.Decode(&v); err == io.EOF {
				break
			} else if err != nil {
				return nil, fmt.Errorf("input_text: value %d (at byte %d) is not valid JSON: %v", len(inputs)+1, offset, err)
			}
			inputs = append(inputs, v)
		}
	case !args.Slurp:
		inputs = []any{nil}
	}
	if args.Slurp {
		if inputs == nil {
			inputs = []any{}
		}
		inputs = []any{inputs}
	}
	return inputs, nil
}

// runtimeError words a jq runtime error the way the jq command does, adding
// how far the filter got, since the results so far are not returned.
func runtimeError(err error, results int) error {
	msg := err.Error()
	var halt *gojq.HaltError
	if errors.As(err, &halt) {
		// halt_error: the value is the message, a string as is.
		if s, ok := halt.Value().(string); ok {
			msg = s
		} else {
			b, _ := gojq.Marshal(halt.Value())
			msg = string(b)
		}
		return fmt.Errorf("jq: halt_error (exit code %d) after %d results: %s", halt.ExitCode(), results, msg)
	}
	return fmt.Errorf("jq: error after %d results: %s", results, msg)
}

// yieldingContext is never done. gojq checks a non-background context's
// Done channel before every instruction; yielding there every 4096
// instructions lets the Go runtime's collector run during a long evaluation,
// which in a WebAssembly reactor it otherwise cannot (see the SDK's package
// documentation, "Memory"). Measured in a module: `reduce range(3000000) as
// $i (0; . + ($i|tostring|length))` peaks at 10 MiB of memory instead of
// 281 MiB (over the host's default limit), at no cost in speed.
var _ context.Context = (*yieldingContext)(nil)

type yieldingContext struct {
	steps uint32
}

func (c *yieldingContext) Done() <-chan struct{} {
	c.steps++
	if c.steps%(1<<12) == 0 {
		runtime.Gosched()
	}
	return nil
}

func (c *yieldingContext) Err() error                  { return nil }
func (c *yieldingContext) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *yieldingContext) Value(any) any               { return nil }
