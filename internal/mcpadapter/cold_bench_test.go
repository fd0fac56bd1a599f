package mcpadapter

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/internal/batchlog"
	"github.com/wasmcp/wasmcp/internal/coldbench"
)

// batchedAudit is an audit logger as serve makes it: text lines to a file,
// formatted and written in batches.
func batchedAudit(b *testing.B) (*slog.Logger, *batchlog.Handler) {
	log, err := os.Create(filepath.Join(b.TempDir(), "audit.log"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { log.Close() })
	h := batchlog.New(log, 10*time.Millisecond, func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, nil) })
	b.Cleanup(func() { h.Close() })
	return slog.New(h).With("component", "audit"), h
}

// BenchmarkColdHandle runs the tools/call handler once per round as a
// server does between requests, with cold caches and TLBs
// (internal/coldbench): the native go-sdk echo's handler, and the
// adapter's for the WAT and C example modules (admission, audit line,
// validation, sandbox, translation of the result), its audit log written
// in batches as serve writes it. "/native-cold" is each over the native
// handler, in the same rounds:
//
//	go test -run '^$' -bench ColdHandle -benchtime 400x -count 3 ./internal/mcpadapter/
func BenchmarkColdHandle(b *testing.B) {
	ctx := context.Background()
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "echo", Arguments: json.RawMessage(`{"message":"hello from the wasmcp bench"}`)}}
	variants := []coldbench.Variant{{Name: "native", Call: func() {
		if _, err := nativeEcho(ctx, req); err != nil {
			b.Fatal(err)
		}
	}}}
	for _, guest := range []struct{ name, module string }{{"wat", "examples-wat"}, {"c", "examples-c"}} {
		audit, _ := batchedAudit(b)
		a := New(guestHost(b, guest.module), Options{Audit: audit})
		b.Cleanup(a.Close)
		variants = append(variants, coldbench.Variant{Name: guest.name, Call: func() {
			res, err := a.handle(ctx, req)
			if err != nil || res.IsError {
				b.Fatal(res, err)
			}
		}})
	}
	coldbench.Run(b, variants...)
}

// BenchmarkColdAudit logs one call's audit line with cold caches and TLBs,
// as record does: its record made now and handled (what record did before
// the line was deferred, and does with a handler other than batchlog's),
// or deferred, made when its batch is written. "deferred/record-cold" is
// the ratio, in the same rounds, through the same batchlog handler.
func BenchmarkColdAudit(b *testing.B) {
	ctx := context.Background()
	audit, _ := batchedAudit(b)
	h := audit.Handler().(*batchlog.Handler)
	line := func() *auditLine {
		return &auditLine{
			at: time.Now(), tool: "echo", plugin: "examples-c", sha256: "5f0c1b6a9e0d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b",
			duration: 42 * time.Microsecond, outcome: outcomeOK, bytesIn: 40, bytesOut: 33,
		}
	}
	coldbench.Run(b,
		coldbench.Variant{Name: "record", Call: func() {
			if err := h.Handle(ctx, line().Record()); err != nil {
				b.Fatal(err)
			}
		}},
		coldbench.Variant{Name: "deferred", Call: func() {
			if err := h.HandleDeferred(line()); err != nil {
				b.Fatal(err)
			}
		}},
	)
}
