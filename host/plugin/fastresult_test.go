package plugin

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/abi"
)

// Result documents of the benchmark: the C echo's, and one with structured
// content and two blocks, as get-structured-content might write it.
const (
	echoResult       = `{"content":[{"type":"text","text":"Echo: hello from the wasmcp bench"}]}`
	structuredResult = `{"content":[{"type":"text","text":"Weather in New York: 22.5 °C, Partly cloudy"},` +
		`{"type":"resource_link","uri":"weather://new-york","name":"new-york","mimeType":"application/json"}],` +
		`"structuredContent":{"temperature":22.5,"conditions":"Partly cloudy","humidity":65}}`
)

// nested is a result whose structured content nests depth objects.
func nested(depth int) string {
	return `{"structuredContent":` + strings.Repeat(`{"a":`, depth-1) + `{}` + strings.Repeat(`}`, depth-1) + `}`
}

// fastResults are result documents, each with whether fastResult decodes
// it (true) or declines it. The first are what the example guests and the
// SDKs write.
var fastResults = []struct {
	doc  string
	fast bool
}{
	{echoResult, true},
	{structuredResult, true},
	{`{"content":[{"type":"text","text":"Hello, world!"},{"type":"image","data":"iVBORw==","mimeType":"image/png"}]}`, true},
	{`{"content":[{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}]}`, true},
	{`{"content":[{"type":"resource_link","uri":"file:///a.txt","name":"a.txt"},{"type":"resource_link",` +
		`"uri":"test://b","name":"B","title":"Bee","description":"the letter","mimeType":"text/plain"}]}`, true},
	{`{"content":[],"structuredContent":{"temperature":22.5}}`, true},
	{`{"content":[{"type":"text","text":"failed with 3"}],"isError":true}`, true},
	{`{"content":[]}`, true},
	{`{"content":[{"type":"resource","resource":{"uri":"mem://x","mimeType":"text/plain","text":"x"}}]}`, false},
	{`{"content":[{"type":"resource_link","uri":"test://b","name":"B","size":1}]}`, false},
	{`{"content":[{"type":"text","text":"raw","annotations":{"priority":1}}]}`, false},
	{`{"content":[{"type":"text","text":"unknown tool \"missing\""}],"isError":true}`, false},
	{`{"content":[{"type":"text","text":"x","_meta":{}}]}`, false},
	{`{"content":[{"type":"text","text":"x"}],"_meta":{"k":"v"}}`, false},
	// Shapes the fast path takes, some of them invalid.
	{"\t{ \"content\" : [ { \"type\" : \"text\" , \"text\" : \"a\" } ] , \"isError\" : false ,\r\n" +
		` "structuredContent" : { "a" : [ 1 , { } , "}" ] } } ` + "\n", true},
	{`{}`, true},
	{` {"structuredContent":{}}`, true},
	{`{"structuredContent":{"a":"\"}\\","b":"\ud800"}}`, true},
	{`{"content":[{"type":"text","text":"é😀` + "\u2028" + `<&>"}]}`, true},
	{`{"content":[{"type":"image","data":"x"}],"structuredContent":{ "a" : 1 }}`, true},
	{`{"content":[{}, {"type":""}]}`, true},
	{`{"content":[{"type":"video","text":"x"}]}`, true},
	{`{"content":[{"type":"resource"}]}`, true},
	{nested(maxFastDepth), true},
	// What the fast path declines: encoding/json decides.
	{`{"Content":[]}`, false},
	{`{"content":[{"type":"text","Text":"x"}]}`, false},
	{`{"content":[],"content":[{"type":"text","text":"x"}]}`, false},
	{`{"content":[{"type":"text","type":"image"}]}`, false},
	{`{"isError":true,"isError":false}`, false},
	{`{"structuredContent":{"a":1},"structuredContent":{"b":2}}`, false},
	{`{"content":null}`, false},
	{`{"structuredContent":null}`, false},
	{`{"isError":null}`, false},
	{`{"content":[null]}`, false},
	{`{"content":[{"type":null}]}`, false},
	{`{"structuredContent":[1]}`, false},
	{`{"structuredContent":"{}"}`, false},
	{`{"structuredContent":{"a":]}`, false},
	{`{"structuredContent":{"a":1]}`, false},
	{`{"structuredContent":{"a":01}}`, false},
	{`{"structuredContent":{"a":"` + "\x01" + `"}}`, false},
	{`{"structuredContent":{"a":"\x"}}`, false},
	{`{"structuredContent":{"a":1}`, false},
	{`{"content":[{"type":"text","text":"tab` + "\t" + `here"}]}`, false},
	{`{"content":[{"type":"text","text":"a\/b"}]}`, false},
	{`{"content":[]} x`, false},
	{`{"content":[]}{}`, false},
	{`{"content":[],}`, false},
	{`{"content":[{},]}`, false},
	{`{"content":[{"type":"text",}]}`, false},
	{`{,}`, false},
	{`{"isError":truex}`, false},
	{`{"isError":tru}`, false},
	{`{"isError":1}`, false},
	{`{"isError":"true"}`, false},
	{`{"content":"x"}`, false},
	{`{"content":{}}`, false},
	{`{"content":[1]}`, false},
	{`{"content":[[]]}`, false},
	{`{"content":[{"type":"text","text":1}]}`, false},
	{`{"content"]`, false},
	{`{"content":[`, false},
	{`{"content`, false},
	{`{`, false},
	{``, false},
	{`  `, false},
	{`[]`, false},
	{`null`, false},
	{"{\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}", false},
	{nested(maxFastDepth + 1), false},
	{nested(9999), false},
	{nested(10000), false},
}

// decodeResult takes the fast path exactly for the documents that
// fastResults says, and every document decodes as decodeResultJSON alone
// decodes it.
func TestFastResult(t *testing.T) {
	for _, tc := range fastResults {
		if _, _, ok := fastResult([]byte(tc.doc)); ok != tc.fast {
			t.Errorf("fastResult(%.200q): ok = %v, want %v", tc.doc, ok, tc.fast)
		}
		checkSameResult(t, []byte(tc.doc))
	}
}

// FuzzFastResult checks that decodeResult, with its fast path, decodes
// every document as decodeResultJSON alone does: the same error, or none,
// and the same result. FuzzResult checks what the result must be.
func FuzzFastResult(f *testing.F) {
	for _, tc := range fastResults {
		if len(tc.doc) < 1000 {
			f.Add([]byte(tc.doc))
		}
	}
	// For where the fuzz function puts its bytes, inside a string and as
	// structured content.
	for _, s := range []string{`a\"b`, `\u0041`, "\x7f\u2028", `{"a":[1,"]"]}`, `{"a":"\\"}`, `{"a":1e999}`, `{"a":-0.5E+2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkSameResult(t, doc)
		// The fuzzer seldom keeps a document whole enough for the fast
		// path: these put its bytes where the fast path reads a string and
		// structured content.
		checkSameResult(t, slices.Concat([]byte(`{"content":[{"type":"text","text":"`), doc, []byte(`"}]}`)))
		checkSameResult(t, slices.Concat([]byte(`{"structuredContent":`), doc, []byte(`}`)))
	})
}

// checkSameResult checks that decodeResult and decodeResultJSON decode doc
// alike, into results that do not share its memory.
func checkSameResult(t *testing.T, doc []byte) {
	t.Helper()
	var got, want abi.Result
	memory := bytes.Clone(doc)
	gotErr := decodeResult(memory, &got)
	for i := range memory {
		memory[i] = '!' // The instance reuses its memory for the next call.
	}
	wantErr := decodeResultJSON(bytes.Clone(doc), &want)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("%.200q: error %v, want %v", doc, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%.200q: result\n%#v\nwant\n%#v", doc, got, want)
	}
}

// BenchmarkDecodeResult decodes result documents by decodeResult, which
// takes the fast path for them, and by decodeResultJSON, in batches
// interleaved in the same loop, and reports the ratio of their times,
// fast ÷ json, with each one's time and allocations per decoding.
func BenchmarkDecodeResult(b *testing.B) {
	for _, bc := range []struct{ name, doc string }{{"echo", echoResult}, {"structured", structuredResult}} {
		b.Run(bc.name, func(b *testing.B) {
			doc := []byte(bc.doc)
			if _, _, ok := fastResult(doc); !ok {
				b.Fatalf("%s: not on the fast path", doc)
			}
			const batch = 100
			decode := func(decode func([]byte, *abi.Result) error) {
				var res abi.Result
				if err := decode(doc, &res); err != nil {
					b.Fatal(err)
				}
			}
			timed := func(f func([]byte, *abi.Result) error) time.Duration {
				start := time.Now()
				for range batch {
					decode(f)
				}
				return time.Since(start)
			}
			var fast, slow time.Duration
			for b.Loop() {
				slow += timed(decodeResultJSON)
				fast += timed(decodeResult)
			}
			n := float64(b.N * batch)
			b.ReportMetric(0, "ns/op") // an op is a batch of each; the metrics below say more
			b.ReportMetric(float64(slow.Nanoseconds())/n, "json-ns/decode")
			b.ReportMetric(float64(fast.Nanoseconds())/n, "fast-ns/decode")
			b.ReportMetric(float64(fast)/float64(slow), "fast/json")
			b.ReportMetric(testing.AllocsPerRun(100, func() { decode(decodeResultJSON) }), "json-allocs/decode")
			b.ReportMetric(testing.AllocsPerRun(100, func() { decode(decodeResult) }), "fast-allocs/decode")
		})
	}
}
