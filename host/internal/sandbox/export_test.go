package sandbox

import (
	"bytes"
	"context"
)

// CallOutput runs tool as Module.Call does and returns a copy of the result
// document, for tests.
func CallOutput(ctx context.Context, m *Module, tool string, args []byte, hooks *CallHooks) ([]byte, error) {
	var out []byte
	err := m.Call(ctx, tool, args, hooks, func(result []byte, _ bool) error {
		out = bytes.Clone(result)
		return nil
	})
	return out, err
}

// RunExtism runs export of an Extism module with input as its raw input,
// as the dialect runs hyper-mcp's exports, for tests of the kernel.
func RunExtism(ctx context.Context, m *Module, export, tool string, input []byte, hooks *CallHooks, read ReadFunc) error {
	return m.dialect.(*extism).run(ctx, export, tool, input, hooks, read)
}

// ExportCallV1 is hyper-mcp's protocol 1 call export.
const ExportCallV1 = exportCallV1
