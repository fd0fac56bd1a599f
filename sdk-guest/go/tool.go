package wasmcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime/debug"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/guest"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/jsonschema"
)

// AddTool registers a tool named name. Call it from an init function: in a
// WebAssembly module built with -buildmode=c-shared, main is never run.
//
// In is the type of the arguments. Unless InputSchema is given, In must be a
// struct (or a pointer to one, or a map) and its JSON Schema is derived from
// it; see the package documentation for the field tags.
//
// Out decides the kind of result:
//
//   - *Result: used as given (content blocks, errors, anything).
//   - string: one text block.
//   - anything else (a struct, a pointer to one, a map): structured content.
//     Its JSON becomes structuredContent and an output schema is derived
//     from the type (or given with OutputSchema). The host mirrors it as a
//     text block for clients that read only content.
//
// A non-nil error from handler becomes a result with isError set and the
// error's text, which the model reads and may act on. A panic in handler is
// recovered the same way, and the instance stays usable.
//
// AddTool panics when the definition is invalid: a bad or duplicate name, a
// type with no JSON Schema, a malformed tag or schema. The message is also
// logged to the host, since a guest's standard error is discarded.
func AddTool[In, Out any](name, description string, handler func(In) (Out, error), opts ...ToolOption) {
	mustRegister("AddTool", addTool(name, description, handler, opts))
}

func addTool[In, Out any](name, description string, handler func(In) (Out, error), opts []ToolOption) error {
	if handler == nil {
		return fmt.Errorf("tool %q: nil handler", name)
	}
	var cfg toolConfig
	for _, opt := range opts {
		opt(&cfg)
	}
	if cfg.err != nil {
		return fmt.Errorf("tool %q: %w", name, cfg.err)
	}
	inSchema := cfg.inputSchema
	if inSchema == nil {
		var err error
		if inSchema, err = derive(reflect.TypeFor[In](), jsonschema.Input); err != nil {
			return fmt.Errorf("tool %q: arguments: %w", name, err)
		}
	}
	encode, outSchema, err := resultEncoder[Out](cfg.outputSchema)
	if err != nil {
		return fmt.Errorf("tool %q: result: %w", name, err)
	}
	def := abi.Tool{
		Name:         name,
		Title:        cfg.title,
		Description:  description,
		InputSchema:  inSchema,
		OutputSchema: outSchema,
		Annotations:  cfg.annotations,
		Meta:         cfg.meta,
	}
	return guest.Register(def, func(data []byte) *abi.Result {
		var in In
		if err := decodeArgs(data, &in, cfg.useNumber); err != nil {
			return guest.ErrorResult(fmt.Sprintf("invalid arguments for tool %s: %v", name, err))
		}
		out, err := handler(in)
		if err != nil {
			return guest.ErrorResult(err.Error())
		}
		return encode(out)
	})
}

// quietDecode is the size of arguments from which decoding them runs
// without the garbage collector; see decodeArgs.
const quietDecode = 64 << 10

// decodeArgs decodes a call's arguments into v as json.Unmarshal does, with
// numbers as json.Number where useNumber asks for it (see UseNumber).
//
// Large arguments are decoded with the collector off: nearly all that
// decoding allocates is the decoded value, which the tool keeps, so a
// collection during it would mark a growing heap and free little, and in
// WebAssembly marking runs on the call's own time.
func decodeArgs(data []byte, v any, useNumber bool) error {
	if len(data) >= quietDecode {
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
	}
	if !useNumber {
		return json.Unmarshal(data, v)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

func derive(t reflect.Type, mode jsonschema.Mode) (json.RawMessage, error) {
	s, err := jsonschema.ForObject(t, mode)
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

var (
	resultType = reflect.TypeFor[*Result]()
	stringType = reflect.TypeFor[string]()
)

// resultEncoder chooses, once per tool, how a handler's Out value becomes a
// Result, and the output schema that goes with it.
func resultEncoder[Out any](explicit json.RawMessage) (func(Out) *abi.Result, json.RawMessage, error) {
	switch t := reflect.TypeFor[Out](); {
	case t == resultType:
		return func(out Out) *abi.Result { return any(out).(*Result).toABI() }, explicit, nil
	case t == stringType:
		if explicit != nil {
			return nil, nil, fmt.Errorf("OutputSchema needs a structured result type, not string")
		}
		return func(out Out) *abi.Result {
			return &abi.Result{Content: []abi.Content{abi.Text(any(out).(string))}}
		}, nil, nil
	case explicit == nil && t.Kind() != reflect.Interface:
		schema, err := derive(t, jsonschema.Output)
		if err != nil {
			return nil, nil, err
		}
		explicit = schema
	}
	return func(out Out) *abi.Result {
		b, err := json.Marshal(out)
		if err != nil {
			return guest.ErrorResult(fmt.Sprintf("encode structured result: %v", err))
		}
		if string(b) == "null" {
			return guest.ErrorResult("the tool returned no result")
		}
		return &abi.Result{StructuredContent: b}
	}, explicit, nil
}

// ToolOption configures a tool in AddTool.
type ToolOption func(*toolConfig)

type toolConfig struct {
	title        string
	annotations  *abi.ToolAnnotations
	inputSchema  json.RawMessage
	outputSchema json.RawMessage
	meta         map[string]any
	useNumber    bool
	err          error // the first invalid option
}

func (c *toolConfig) hints() *abi.ToolAnnotations {
	if c.annotations == nil {
		c.annotations = &abi.ToolAnnotations{}
	}
	return c.annotations
}

// Title sets the tool's human-readable title, shown by clients instead of
// its name.
func Title(title string) ToolOption {
	return func(c *toolConfig) { c.title = title }
}

// ReadOnly hints that the tool does not modify its environment.
func ReadOnly() ToolOption {
	return func(c *toolConfig) { c.hints().ReadOnlyHint = ptr(true) }
}

// Idempotent hints that calling the tool again with the same arguments has
// no additional effect.
func Idempotent() ToolOption {
	return func(c *toolConfig) { c.hints().IdempotentHint = ptr(true) }
}

// Destructive hints whether the tool may perform destructive updates
// (meaningful only when it is not read-only; MCP's default is true).
func Destructive(destructive bool) ToolOption {
	return func(c *toolConfig) { c.hints().DestructiveHint = ptr(destructive) }
}

// OpenWorld hints whether the tool interacts with an open world of external
// entities (MCP's default is true). A tool working only on its arguments is
// OpenWorld(false).
func OpenWorld(open bool) ToolOption {
	return func(c *toolConfig) { c.hints().OpenWorldHint = ptr(open) }
}

// InputSchema replaces the derived input schema with a JSON Schema given as
// text. Its "type" must be "object". In must still decode the arguments:
// use a struct, map[string]any or json.RawMessage.
func InputSchema(schema string) ToolOption {
	return func(c *toolConfig) { c.inputSchema = c.rawSchema("InputSchema", schema) }
}

// OutputSchema replaces the derived output schema with a JSON Schema given
// as text. With Out = *Result, it declares that successful results carry
// conforming StructuredContent.
func OutputSchema(schema string) ToolOption {
	return func(c *toolConfig) { c.outputSchema = c.rawSchema("OutputSchema", schema) }
}

// OutputSchemaOf declares the output schema derived from T, for tools whose
// Out is *Result and whose results carry a T as StructuredContent next to
// content of their own (a readable text, say, where the host's JSON mirror
// would be less so).
func OutputSchemaOf[T any]() ToolOption {
	schema, err := derive(reflect.TypeFor[T](), jsonschema.Output)
	return func(c *toolConfig) {
		if err != nil && c.err == nil {
			c.err = fmt.Errorf("OutputSchemaOf: %w", err)
		}
		c.outputSchema = schema
	}
}

func (c *toolConfig) rawSchema(option, schema string) json.RawMessage {
	if !json.Valid([]byte(schema)) {
		if c.err == nil {
			c.err = fmt.Errorf("%s: not valid JSON: %s", option, schema)
		}
		return nil
	}
	return json.RawMessage(schema)
}

// UseNumber decodes the numbers of the arguments that land in an interface
// value (a field of type any, the values of a map[string]any) as json.Number
// rather than float64, as json.Decoder.UseNumber does: they keep their exact
// text, so that large integers and long decimals pass through unchanged.
func UseNumber() ToolOption {
	return func(c *toolConfig) { c.useNumber = true }
}

// Meta sets the tool's _meta object, passed to clients unchanged.
func Meta(meta map[string]any) ToolOption {
	return func(c *toolConfig) { c.meta = meta }
}

func ptr[T any](v T) *T { return &v }
