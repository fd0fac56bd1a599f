package batchwriter

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkLogLine writes one audit-sized line per op to a file, through a
// Writer and directly, in the same run; batched/direct is the figure to
// read (the time of a write system call per line is what batching saves).
func BenchmarkLogLine(b *testing.B) {
	line := []byte(`time=2026-11-21T12:07:14.266Z level=INFO msg="tool call" component=audit session="" tool=echo ` +
		`plugin=examples-c sha256=5f200b96283e21d0cceda2939a596e59e37955eac89a0ad5e6d87a89969ac279 ` +
		`duration_ms=0.026 outcome=ok bytes_in=41 bytes_out=35` + "\n")
	f, err := os.Create(filepath.Join(b.TempDir(), "log"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := New(f, 10*time.Millisecond)
	defer w.Close()
	var direct, batched time.Duration
	const slice = 256 // lines per turn, the two ways taking turns
	for b.Loop() {
		start := time.Now()
		for range slice {
			f.Write(line)
		}
		mid := time.Now()
		for range slice {
			w.Write(line)
		}
		direct += mid.Sub(start)
		batched += time.Since(mid)
	}
	b.ReportMetric(float64(batched)/float64(direct), "batched/direct")
	b.ReportMetric(float64(batched.Nanoseconds())/float64(b.N*slice), "batched-ns/line")
	b.ReportMetric(float64(direct.Nanoseconds())/float64(b.N*slice), "direct-ns/line")
}
