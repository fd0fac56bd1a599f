package schema

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/internal/coldbench"
)

// echoSchema is the C example's echo tool's, the schema of the server's
// profile.
const echoSchema = `{"type":"object","properties":{"message":{"type":"string","description":"Message to echo."}},"required":["message"],"additionalProperties":false}`

// mediumSchema is a tool schema of the usual size: eight properties, an
// object and an array among them.
const mediumSchema = `{"type":"object","properties":{
	"query":{"type":"string","minLength":1,"description":"What to search for."},
	"limit":{"type":"integer","minimum":1,"maximum":100,"default":20},
	"offset":{"type":"integer","minimum":0},
	"sort":{"type":"string","enum":["relevance","newest","oldest"]},
	"filters":{"type":"object","properties":{"tag":{"type":"string"},"after":{"type":"string","format":"date-time"},"score":{"type":"number","exclusiveMinimum":0}},"additionalProperties":false},
	"fields":{"type":"array","items":{"type":"string"},"maxItems":16},
	"verbose":{"type":"boolean"},
	"lang":{"type":["string","null"],"maxLength":8}
},"required":["query"],"additionalProperties":false}`

const mediumArgs = `{"query":"webassembly","limit":20,"offset":40,"sort":"newest","filters":{"tag":"go","after":"2024-01-01T00:00:00Z","score":0.5},"fields":["id","title","url"],"verbose":true,"lang":null}`

// validateBatch is how many validations a benchmark times at once, so that
// reading the clock costs little next to them.
const validateBatch = 64

// BenchmarkPlan validates a valid document with the schema's plan and with
// jsonschema (the same Schema without its plan, stack growth included), in
// turn in the same loop, and reports the time with the plan over the time
// without as "plan/fallback". "inline" validates on the benchmark's
// goroutine, whose stack has grown long since; "goroutine" validates on a
// new goroutine each time, as go-sdk calls tools, so that jsonschema's
// validation grows a new stack every time.
func BenchmarkPlan(b *testing.B) {
	for _, bc := range []struct{ name, schema, doc string }{
		{"echo", echoSchema, `{"message":"Hello, world!"}`},
		{"medium", mediumSchema, mediumArgs},
	} {
		for _, mode := range []string{"inline", "goroutine"} {
			b.Run(bc.name+"/"+mode, func(b *testing.B) {
				s, err := Compile(json.RawMessage(bc.schema))
				if err != nil || s.plan == nil {
					b.Fatalf("Compile: %v, plan %v", err, s.plan != nil)
				}
				fallback := &Schema{compiled: s.compiled, objectType: s.objectType}
				doc := json.RawMessage(bc.doc)
				validate := func(s *Schema) error { return s.Validate(doc) }
				if mode == "goroutine" {
					validate = func(s *Schema) error {
						done := make(chan error)
						go func() { done <- s.Validate(doc) }()
						return <-done
					}
				}
				for _, s := range []*Schema{s, fallback} {
					if err := validate(s); err != nil {
						b.Fatal(err)
					}
				}
				run := func(s *Schema) time.Duration {
					start := time.Now()
					for range validateBatch {
						_ = validate(s)
					}
					return time.Since(start)
				}
				var planned, fellBack time.Duration
				for b.Loop() {
					planned += run(s)
					fellBack += run(fallback)
				}
				n := float64(b.N * validateBatch)
				b.ReportMetric(float64(planned)/float64(fellBack), "plan/fallback")
				b.ReportMetric(float64(planned)/n, "plan-ns/validation")
				b.ReportMetric(float64(fellBack)/n, "fallback-ns/validation")
			})
		}
	}
}

// BenchmarkColdValidate validates valid arguments as a server does between
// requests, with cold caches and TLBs (internal/coldbench): decoded first
// and checked against the plan, as Validate did before validDocument, and
// checked against the plan as the bytes are read, as Validate does now.
// "bytes/decoded-cold" is the ratio of the two, measured in the same
// rounds.
func BenchmarkColdValidate(b *testing.B) {
	for _, bc := range []struct{ name, schema, doc string }{
		{"echo", echoSchema, `{"message":"hello from the wasmcp bench"}`},
		{"medium", mediumSchema, mediumArgs},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s, err := Compile([]byte(bc.schema))
			if err != nil || s.plan == nil {
				b.Fatalf("compile: %v, plan %v", err, s.plan != nil)
			}
			doc := []byte(bc.doc)
			coldbench.Run(b,
				coldbench.Variant{Name: "decoded", Call: func() {
					v, err := decode(doc)
					if err != nil || !s.plan.valid(v) {
						b.Fatal("decoded: not valid", err)
					}
				}},
				coldbench.Variant{Name: "bytes", Call: func() {
					if !s.plan.validDocument(doc) {
						b.Fatal("bytes: not accepted")
					}
				}},
			)
		})
	}
}
