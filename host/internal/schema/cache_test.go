package schema

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// countingCache is a cache that counts the documents it compiles.
func countingCache() (*cache, *atomic.Int64) {
	var n atomic.Int64
	return newCache(func(doc any) (*jsonschema.Schema, error) {
		n.Add(1)
		return compileDoc(doc, false)
	}), &n
}

const person = `{"type":"object","properties":{"name":{"type":"string","minLength":1},"age":{"type":"integer"}},"required":["name"]}`

func mustGet(t *testing.T, c *cache, raw string) *jsonschema.Schema {
	t.Helper()
	d, err := c.get([]byte(raw))
	if err != nil {
		t.Fatalf("compile %s: %v", raw, err)
	}
	return d.sch
}

// validate validates doc against the compiled schema s as Schema.Validate
// does.
func validate(s *jsonschema.Schema, doc string) error {
	return (&Schema{compiled: s}).Validate(json.RawMessage(doc))
}

// The same document, byte for byte or once canonical, compiles once.
func TestCacheShares(t *testing.T) {
	c, compiles := countingCache()
	s := mustGet(t, c, person)
	same := []string{
		person,
		// Other member order, other spacing, an escaped name.
		`{ "required": ["name"], "properties": {"age": {"type": "integer"},
		   "n\u0061me": {"minLength": 1, "type": "string"}}, "type": "object" }`,
	}
	for i, raw := range same {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if got := mustGet(t, c, raw); got != s {
				t.Errorf("compile %s: a second compiled schema, not the shared one", raw)
			}
		})
	}
	if n := compiles.Load(); n != 1 {
		t.Errorf("%d compilations of one document, want 1", n)
	}
	// A document seen once in non-canonical bytes is found by its bytes
	// from then on, without being decoded again.
	if d, _ := c.lookup(keyOf(rawKey, []byte(same[1]))); d.sch != s {
		t.Error("the bytes of a non-canonical document are not a key of its schema")
	}
	if err := validate(s, `{"name":""}`); err == nil {
		t.Error("the shared schema accepted an empty name")
	}

	// Compile, the package's entry point, shares through the process's cache.
	a, err := Compile(json.RawMessage(person))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := Compile(json.RawMessage(person)); a.compiled != b.compiled {
		t.Error("Compile gave two compiled schemas for one document")
	}
}

// Documents that differ in anything that matters are never confused, even
// when they differ only in their dialect, the target of a reference, the
// order of an array or how a number is written.
func TestCacheDistinct(t *testing.T) {
	// 2020-12 knows "prefixItems"; draft 7 ignores it.
	tuple := `{"type":"array","prefixItems":[{"type":"integer"}]}`
	tuple7 := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","prefixItems":[{"type":"integer"}]}`
	type outcome struct {
		raw       string
		doc       string // validated against the schema
		valid     bool
		compileOK bool
	}
	pairs := [][2]outcome{
		{{tuple, `["x"]`, false, true}, {tuple7, `["x"]`, true, true}},
		{{`{"$defs":{"a":{"type":"string"},"b":{}},"$ref":"#/$defs/a"}`, `1`, false, true}, {`{"$defs":{"a":{"type":"string"},"b":{}},"$ref":"#/$defs/b"}`, `1`, true, true}},
		{{`{"enum":["a","b"]}`, `"a"`, true, true}, {`{"enum":["b","a"]}`, `"a"`, true, true}},
		{{`{"maximum":1}`, `1`, true, true}, {`{"maximum":1.0}`, `1`, true, true}},
		{{`{"const":"a"}`, `"a"`, true, true}, {`{"const":"A"}`, `"a"`, false, true}},
	}
	for k, pair := range pairs {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			// In both orders, each with a fresh cache: the second document
			// must not be taken for the first.
			for _, order := range [][2]outcome{{pair[0], pair[1]}, {pair[1], pair[0]}} {
				c, compiles := countingCache()
				var got [2]*jsonschema.Schema
				for i, o := range order {
					d, err := c.get([]byte(o.raw))
					if (err == nil) != o.compileOK {
						t.Fatalf("compile %s: error %v, want success %v", o.raw, err, o.compileOK)
					}
					s := d.sch
					got[i] = s
					if err != nil {
						continue
					}
					if verr := validate(s, o.doc); (verr == nil) != o.valid {
						t.Errorf("%s against %s: error %v, want valid %v", o.doc, o.raw, verr, o.valid)
					}
				}
				if got[0] != nil && got[0] == got[1] {
					t.Errorf("%s and %s share a compiled schema", order[0].raw, order[1].raw)
				}
				if n := compiles.Load(); n != 2 {
					t.Errorf("%s then %s: %d compilations, want 2", order[0].raw, order[1].raw, n)
				}
			}
		})
	}
}

// Loads in parallel compile each distinct document once, and all get the
// same schema; a document that does not compile fails for every one of
// them.
func TestCacheConcurrent(t *testing.T) {
	c, compiles := countingCache()
	docs := make([]string, 4)
	for i := range docs {
		docs[i] = fmt.Sprintf(`{"type":"object","properties":{"n":{"type":"integer","maximum":%d}}}`, i)
	}
	const bad = `{"type":"object","properties":{"n":{"type":"nonsense"}}}`
	const workers = 8
	got := make([][]*jsonschema.Schema, workers) // held until the end, so nothing is collected
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i, raw := range docs {
				if w%2 == 1 {
					// Half the workers send non-canonical bytes.
					raw = strings.ReplaceAll(raw, ":", ": ")
				}
				d, err := c.get([]byte(raw))
				if err != nil {
					t.Errorf("worker %d, document %d: %v", w, i, err)
				}
				got[w] = append(got[w], d.sch)
				if _, err := c.get([]byte(bad)); err == nil || !strings.Contains(err.Error(), "meta-schema") {
					t.Errorf("worker %d: invalid schema: error %v", w, err)
				}
			}
		})
	}
	wg.Wait()
	for w := range got {
		for i, s := range got[w] {
			if s != got[0][i] {
				t.Errorf("worker %d, document %d: a different compiled schema from worker 0's", w, i)
			}
		}
	}
	// The bad document is compiled again each time nobody else is
	// compiling it: failures are not kept.
	if n := compiles.Load(); n < int64(len(docs))+1 || n > int64(len(docs)+workers*len(docs)) {
		t.Errorf("%d compilations", n)
	}
	good := compiles.Load()
	for range 3 {
		c.get([]byte(bad))
	}
	if n := compiles.Load(); n != good+3 {
		t.Errorf("invalid document: %d compilations in 3 tries, want 3 (failures must not be cached)", n-good)
	}
	runtime.KeepAlive(got)
}

// An entry lasts while its schema is in use, and no longer: the schemas of
// unloaded plugins are not kept in memory by the cache.
func TestCacheReleases(t *testing.T) {
	c, compiles := countingCache()
	kept := mustGet(t, c, person)
	// The same document in other bytes: one more entry, for the same schema.
	mustGet(t, c, strings.ReplaceAll(person, ",", ", "))
	inUse := c.size()
	// A document nobody holds on to.
	mustGet(t, c, `{"type":"string"}`)
	if n := c.size(); n <= inUse {
		t.Fatalf("%d entries after a new document, as many as before", n)
	}
	collect(t, c, inUse)
	if d, _ := c.lookup(keyOf(rawKey, []byte(person))); d.sch != kept {
		t.Error("the entry of a schema in use was dropped")
	}
	runtime.KeepAlive(kept) // its last use: from here on it may be collected
	collect(t, c, 0)

	// A document compiled again after its entry went compiles afresh and
	// works.
	before := compiles.Load()
	s := mustGet(t, c, `{"type":"string"}`)
	if compiles.Load() != before+1 {
		t.Error("a released document was not compiled again")
	}
	if err := validate(s, `1`); err == nil {
		t.Error("the recompiled schema accepted a number")
	}
}

// collect runs the garbage collector until c has want entries left, and
// fails if it never gets there. Cleanups run on their own goroutine some
// time after a collection, hence the polling; a healthy run polls a few
// times.
func collect(t *testing.T, c *cache, want int) {
	t.Helper()
	for range 500 {
		runtime.GC()
		if c.size() == want {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%d entries after collecting, want %d", c.size(), want)
}

// The canonical form is the same for equal documents and differs for
// documents that differ, even when strings hold what looks like structure.
func TestCanonical(t *testing.T) {
	canon := func(doc string) string {
		v, err := decodeSchema([]byte(doc))
		if err != nil {
			t.Fatalf("decode %s: %v", doc, err)
		}
		b, ok := appendCanonical(nil, v)
		if !ok {
			t.Fatalf("no canonical form for %s", doc)
		}
		return string(b)
	}
	equal := [][2]string{
		{`{"a":1,"b":[true,null,"x"]}`, ` { "b" : [ true , null , "x" ] , "a" : 1 } `},
		{`{"a":{"c":"d","b":"e"}}`, `{"a":{"b":"e","c":"d"}}`},
		{`{"\u00e9":"\u0041"}`, `{"é":"A"}`},
	}
	for i, p := range equal {
		t.Run(fmt.Sprintf("equal-%d", i), func(t *testing.T) {
			if a, b := canon(p[0]), canon(p[1]); a != b {
				t.Errorf("%s and %s: canonical forms %s and %s differ", p[0], p[1], a, b)
			}
		})
	}
	different := [][2]string{
		{`{"a":"x","b":"y"}`, `{"a":"x\",\"b\":\"y"}`},
		{`{"a":["x","y"]}`, `{"a":["x\",\"y"]}`},
		{`{"a":["x","y"]}`, `{"a":["y","x"]}`},
		{`{"a":1}`, `{"a":1.0}`},
		{`{"a":100}`, `{"a":1e2}`},
		{`{"a":null}`, `{"a":"null"}`},
		{`{"a":true}`, `{"a":"true"}`},
		{`{"a":1}`, `{"a":"1"}`},
		{`{"a":[]}`, `{"a":{}}`},
		{`{"a":{}}`, `{"a":{"":null}}`},
		{`{"a":[[]]}`, `{"a":[]}`},
		{`{"a":"\u0000"}`, `{"a":""}`},
	}
	for i, p := range different {
		t.Run(fmt.Sprintf("different-%d", i), func(t *testing.T) {
			if a, b := canon(p[0]), canon(p[1]); a == b {
				t.Errorf("%s and %s: the same canonical form %s", p[0], p[1], a)
			}
		})
	}
}
