package schema

import (
	"fmt"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// BenchmarkCompile compiles the input schemas of 1,000 tools, of the kind
// real tools have, through the cache and without it, in the same loop, and
// reports the ratios cached ÷ uncached: when every tool has the same schema
// document (its compilation shared) and when each has its own (the cache's
// overhead: hashing, and the canonical form when the bytes are not found).
// A fresh cache each time, and the schemas held until the end, as a start-up
// of a server holds them.
func BenchmarkCompile(b *testing.B) {
	const tools = 1000
	doc := func(i int) []byte {
		return fmt.Appendf(nil, `{"type":"object","description":"Arguments of tool %d.","properties":{`+
			`"message":{"type":"string","description":"The message.","minLength":1,"maxLength":4096},`+
			`"count":{"type":"integer","description":"How many times.","minimum":1,"maximum":100},`+
			`"mode":{"type":"string","enum":["fast","thorough"],"description":"How hard to look."}},`+
			`"required":["message"],"additionalProperties":false}`, i)
	}
	same, distinct := make([][]byte, tools), make([][]byte, tools)
	for i := range tools {
		same[i], distinct[i] = doc(0), doc(i)
	}
	compile := func(docs [][]byte, cached bool) time.Duration {
		c := newCache(func(doc any) (*jsonschema.Schema, error) { return compileDoc(doc, false) })
		keep := make([]*jsonschema.Schema, len(docs))
		start := time.Now()
		for i, d := range docs {
			var err error
			if cached {
				var cd compiledDoc
				cd, err = c.get(d)
				keep[i] = cd.sch
			} else {
				var v any
				if v, err = decodeSchema(d); err == nil {
					keep[i], err = compileDoc(v, false)
				}
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	var sameOn, sameOff, distinctOn, distinctOff time.Duration
	for b.Loop() {
		sameOn += compile(same, true)
		sameOff += compile(same, false)
		distinctOn += compile(distinct, true)
		distinctOff += compile(distinct, false)
	}
	n := float64(b.N)
	b.ReportMetric(float64(sameOff.Microseconds())/1000/n, "uncached-ms/1k-schemas")
	b.ReportMetric(float64(sameOn)/float64(sameOff), "same-cached/uncached")
	b.ReportMetric(float64(distinctOn)/float64(distinctOff), "distinct-cached/uncached")
}
