package batchlog

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkLogLine logs one audit line per op to a file, through a Handler
// and through slog's text handler directly, in the same run. Read the
// ratios, not the times:
//
//   - handle/direct is what the logging call costs the caller (a tools/call,
//     for the audit line) against formatting and writing the line itself;
//   - handle/now is the same against formatting the line at once into a
//     buffer written once per batch (wasmcp's log before this package: the
//     write system call batched, the formatting not);
//   - total/direct adds the formatting and writing of the batches, wherever
//     they run, so it says whether deferring costs more work in all.
func BenchmarkLogLine(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "log"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	newText := func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, nil) }
	direct := slog.New(newText(f)).With("component", "audit").Handler()
	var batch bytes.Buffer
	now := slog.New(newText(&batch)).With("component", "audit").Handler()
	h := New(f, time.Hour, newText) // flushed by the benchmark, so that its time is counted
	deferred := h.WithAttrs([]slog.Attr{slog.String("component", "audit")})
	ctx := context.Background()
	line := func(handler slog.Handler) {
		r := slog.NewRecord(time.Now(), slog.LevelInfo, "tool call", 0)
		r.AddAttrs(
			slog.String("session", ""),
			slog.String("tool", "echo"),
			slog.String("plugin", "examples-c"),
			slog.String("sha256", "5f200b96283e21d0cceda2939a596e59e37955eac89a0ad5e6d87a89969ac279"),
			slog.Float64("duration_ms", 0.026),
			slog.String("outcome", "ok"),
			slog.Int("bytes_in", 41),
			slog.Int("bytes_out", 35),
		)
		_ = handler.Handle(ctx, r)
	}
	var directTime, nowTime, handleTime, flushTime time.Duration
	const slice = 64 // lines per turn, the ways taking turns; a batch of a busy 10 ms
	for b.Loop() {
		start := time.Now()
		for range slice {
			line(direct)
		}
		now0 := time.Now()
		for range slice {
			line(now)
		}
		now1 := time.Now()
		f.Write(batch.Bytes())
		batch.Reset()
		mid := time.Now()
		for range slice {
			line(deferred)
		}
		end := time.Now()
		h.Flush()
		directTime += now0.Sub(start)
		nowTime += now1.Sub(now0)
		handleTime += end.Sub(mid)
		flushTime += time.Since(end)
	}
	b.ReportMetric(float64(handleTime)/float64(directTime), "handle/direct")
	b.ReportMetric(float64(handleTime)/float64(nowTime), "handle/now")
	b.ReportMetric(float64(handleTime+flushTime)/float64(directTime), "total/direct")
	b.ReportMetric(float64(handleTime.Nanoseconds())/float64(b.N*slice), "handle-ns/line")
	b.ReportMetric(float64(directTime.Nanoseconds())/float64(b.N*slice), "direct-ns/line")
}
