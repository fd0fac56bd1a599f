package batchlog_test

import (
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/wasmcp/wasmcp/internal/batchlog"
)

// A logger whose lines are formatted and reach stdout together, 10 ms after
// the first of a batch, or when Close is called.
func Example() {
	h := batchlog.New(os.Stdout, 10*time.Millisecond, func(w io.Writer) slog.Handler {
		return slog.NewTextHandler(w, &slog.HandlerOptions{
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{} // for a stable example output
				}
				return a
			},
		})
	})
	defer h.Close()
	log := slog.New(h)
	log.Info("tool call", "tool", "echo", "outcome", "ok")
	log.Info("tool call", "tool", "hash", "outcome", "timeout")
	// Output:
	// level=INFO msg="tool call" tool=echo outcome=ok
	// level=INFO msg="tool call" tool=hash outcome=timeout
}
