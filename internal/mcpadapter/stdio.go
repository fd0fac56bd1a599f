package mcpadapter

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/internal/mcpadapter/internal/wire"
)

// lineLimit is the longest JSON-RPC message accepted: go-sdk's default, or
// more when the host accepts larger arguments.
func (a *Adapter) lineLimit() int {
	const envelope = 1 << 20 // room for the request around the arguments
	return max(mcp.DefaultMaxLineLength, a.opts.MaxInput+envelope)
}

// Serve speaks MCP over r and w (newline-delimited JSON-RPC, the stdio
// transport) until the client closes r, or ctx is done. When r ends, the
// calls in flight are answered first, for at most the host's call timeout
// (Options.CallTimeout). A client that hangs up is a normal end and returns
// nil. Lines go-sdk cannot read are answered with JSON-RPC errors, and the
// session goes on (wire.Stdio).
func (a *Adapter) Serve(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	t := wire.Stdio(r, w, wire.StdioOptions{MaxLine: a.lineLimit(), MaxInFlight: a.opts.MaxInFlight,
		Drain: a.opts.CallTimeout, Logger: a.logger})
	ss, err := a.server.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case <-ctx.Done():
		ss.Close()
		<-done
		return nil
	case err := <-done:
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("session: %w", err)
		}
		return nil
	}
}
