package schema

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchDocs are documents of the sizes tools' arguments have: the
// arguments of the server's benchmark tool, and about 2 KB of nested
// objects, arrays, numbers and strings, a few of them with escapes.
var benchDocs = []struct{ name, doc string }{
	{"small", `{"message":"hello from the wasmcp bench"}`},
	{"medium", mediumDoc()},
}

func mediumDoc() string {
	var items []string
	for i := range 12 {
		items = append(items, fmt.Sprintf(`{"id":%d,"name":"item number %d","price":%d.25,"tags":["a","b%d"],`+
			`"in_stock":%t,"note":null}`, i, i, 10+i, i, i%2 == 0))
	}
	return `{"query":"find \"everything\"\nnow","limit":50,"offset":0,"filters":{"owner":"team-a","since":"2024-01-01T00:00:00Z",` +
		`"ratio":1.5e-3},"items":[` + strings.Join(items, ",") + `]}`
}

// BenchmarkDecode decodes each document with decodeReference and with
// decode, a batch of each per iteration in alternating order, and reports
// decode's time as a fraction of the reference's ("new/old"): the median
// over the iterations, which a pause of the noisy machine during one batch
// does not move. Also the mean times and both ways' allocations per
// document.
func BenchmarkDecode(b *testing.B) {
	const batch = 16
	for _, d := range benchDocs {
		b.Run(d.name, func(b *testing.B) {
			doc := []byte(d.doc)
			if _, ok := parse(doc); !ok {
				b.Fatal("parse declined")
			}
			oldAllocs := testing.AllocsPerRun(100, func() { _, _ = decodeReference(doc) })
			newAllocs := testing.AllocsPerRun(100, func() { _, _ = decode(doc) })
			timed := func(decode func([]byte) (any, error)) time.Duration {
				start := time.Now()
				for range batch {
					if _, err := decode(doc); err != nil {
						b.Fatal(err)
					}
				}
				return time.Since(start)
			}
			var old, new time.Duration
			var ratios []float64
			for i := 0; b.Loop(); i++ {
				var o, n time.Duration
				if i%2 == 0 {
					o, n = timed(decodeReference), timed(decode)
				} else {
					n, o = timed(decode), timed(decodeReference)
				}
				old, new = old+o, new+n
				ratios = append(ratios, float64(n)/float64(o))
			}
			slices.Sort(ratios)
			docs := float64(b.N * batch)
			b.ReportMetric(float64(old.Nanoseconds())/docs, "old-ns/doc")
			b.ReportMetric(float64(new.Nanoseconds())/docs, "new-ns/doc")
			b.ReportMetric(ratios[len(ratios)/2], "new/old")
			b.ReportMetric(oldAllocs, "old-allocs/doc")
			b.ReportMetric(newAllocs, "new-allocs/doc")
		})
	}
}
