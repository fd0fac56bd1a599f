package plugin

import (
	"context"
	"log/slog"

	"github.com/wasmcp/wasmcp/host/internal/sandbox"
)

// Seams for the fuzz tests of package plugin_test: they feed describe and
// result documents to the code that parses them, without a guest.

// Define returns a plugin with the definitions of the describe document
// doc, as Load validates them, and no module; or Load's error for doc. Only
// Tools and ResultOf may be called on it.
func Define(doc []byte) (*Plugin, error) {
	p := &Plugin{
		name:     "fuzz",
		path:     "fuzz.wasm",
		maxInput: DefaultMaxInput,
		logger:   slog.New(slog.DiscardHandler),
	}
	if err := p.define(doc); err != nil {
		return nil, err
	}
	return p, nil
}

// ResultOf is the result Call returns when the guest's tool returns the
// result document doc. tool must be one of p's tools.
func (p *Plugin) ResultOf(ctx context.Context, tool string, doc []byte) *Result {
	var res Result
	var err error
	if readErr := decodeResult(doc, &res.Result); readErr != nil {
		err = malformed{readErr}
	}
	return p.finish(ctx, tool, p.byName[tool], &res, err)
}

// malformed is a read error as sandbox.Module.Call returns it: it
// matches sandbox.ErrMalformed and has the read error's message.
type malformed struct{ error }

func (m malformed) Unwrap() []error { return []error{sandbox.ErrMalformed, m.error} }
