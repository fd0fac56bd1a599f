package batchwriter_test

import (
	"log/slog"
	"os"
	"time"

	"github.com/wasmcp/wasmcp/internal/batchwriter"
)

// A logger whose lines reach stdout together, 10 ms after the first of a
// batch, or when Close is called.
func Example() {
	w := batchwriter.New(os.Stdout, 10*time.Millisecond)
	defer w.Close()
	log := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // for a stable example output
			}
			return a
		},
	}))
	log.Info("tool call", "tool", "echo", "outcome", "ok")
	log.Info("tool call", "tool", "hash", "outcome", "timeout")
	// Output:
	// level=INFO msg="tool call" tool=echo outcome=ok
	// level=INFO msg="tool call" tool=hash outcome=timeout
}
