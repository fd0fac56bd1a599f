package schema_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/host/internal/schema"
)

// BenchmarkValidateProblems validates arrays of n and 16n items that all
// break the schema, and reports how the time per item grows with the size
// as "growth": about 1 when the cost is linear in the number of problems, 16
// if it were quadratic. Reporting every problem of a 4 MiB document is the
// worst case a client can ask for.
func BenchmarkValidateProblems(b *testing.B) {
	s, err := schema.Compile(json.RawMessage(`{"type":"array","items":{"type":"integer","maximum":5}}`))
	if err != nil {
		b.Fatal(err)
	}
	const n = 2000
	small := json.RawMessage("[" + strings.TrimSuffix(strings.Repeat("6,", n), ",") + "]")
	large := json.RawMessage("[" + strings.TrimSuffix(strings.Repeat("6,", 16*n), ",") + "]")
	var smallTime, largeTime time.Duration
	for b.Loop() {
		start := time.Now()
		if s.Validate(small) == nil {
			b.Fatal("valid")
		}
		mid := time.Now()
		if s.Validate(large) == nil {
			b.Fatal("valid")
		}
		smallTime += mid.Sub(start)
		largeTime += time.Since(mid)
	}
	b.ReportMetric(float64(largeTime)/float64(smallTime)/16, "growth")
}
