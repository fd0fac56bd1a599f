package schema

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"maps"
	"runtime"
	"slices"
	"sync"
	"weak"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compiled is the cache Compile uses: one per process, so that the plugins
// of a directory, and the versions of a plugin across hot reloads, share
// the compiled form of every schema document they have in common.
var compiled = newCache(func(doc any) (*jsonschema.Schema, error) { return compileDoc(doc, false) })

// compiledOutput is the cache CompileOutput uses.
var compiledOutput = newCache(func(doc any) (*jsonschema.Schema, error) { return compileDoc(doc, true) })

// cache shares one compiled schema between identical schema documents:
// documents with the same bytes, or with the same canonical form (object
// members sorted by name, spacing and escapes gone, numbers as written; see
// appendCanonical), which decode to the same value and therefore compile to
// the same schema. Tools built with one SDK tend to have the same few
// schemas, so a thousand modules of ten tools may hold ten thousand copies
// of a handful of documents; each is compiled, and checked against its
// meta-schema, once.
//
// Sharing is safe: a compiled jsonschema.Schema is only read when it
// validates (every validation keeps its state in a value of its own), which
// is why one Schema already serves the concurrent calls of its tool.
//
// The cache holds its schemas weakly: an entry lives as long as some plugin
// still holds a Schema of it, and goes once the garbage collector frees it.
// So the cache never keeps the schemas of unloaded plugins in memory, and it
// needs no size bound of its own: it costs two map entries per distinct
// document in use (one for its bytes, one for its canonical form, and one
// more for each other spelling of it), and its memory follows the plugins
// loaded. A bounded LRU would either keep the schemas of unloaded plugins
// alive up to its bound or, with more distinct documents in use than the
// bound, evict schemas still in use and compile them again; reference
// counts would need every holder to release explicitly. The collector
// already counts references.
//
// Concurrent compilations of one document wait for the first, so that the
// parallel loads of a directory compile each document once. Failures are
// not kept: a document that does not compile is tried again next time.
type cache struct {
	compile func(doc any) (*jsonschema.Schema, error)

	mu      sync.Mutex
	entries map[key]slot
	pending map[key]*compilation // by canonical key
}

// compiledDoc is a compiled schema and what Compile tells of its document.
type compiledDoc struct {
	sch *jsonschema.Schema
	// objectType: the document is an object whose "type" is "object".
	objectType bool
}

// slot is a cache entry: the compiled schema, held weakly, and what
// Compile tells of its document.
type slot struct {
	w          weak.Pointer[jsonschema.Schema]
	objectType bool
}

// value returns the entry's schema, or ok false once it is collected.
func (e slot) value() (_ compiledDoc, ok bool) {
	sch := e.w.Value()
	return compiledDoc{sch, e.objectType}, sch != nil
}

// key is the SHA-256 of the compiler settings, the kind of the key and a
// document's bytes or canonical form.
type key [sha256.Size]byte

// Kinds of key: a document's bytes, or its canonical form.
const (
	rawKey       = "raw\x00"
	canonicalKey = "canonical\x00"
)

// settings are what else a compilation depends on besides the document,
// hashed into every key. Should one of them ever become an option of
// Compile, its value must be part of the key.
const settings = "draft=2020-12 location=" + location + " loader=refuse\x00"

func keyOf(kind string, doc []byte) key {
	h := sha256.New()
	h.Write([]byte(settings))
	h.Write([]byte(kind))
	h.Write(doc)
	var k key
	h.Sum(k[:0])
	return k
}

// compilation is a compilation in progress; done is closed when s or err is
// set.
type compilation struct {
	done chan struct{}
	d    compiledDoc
	err  error
}

func newCache(compile func(doc any) (*jsonschema.Schema, error)) *cache {
	return &cache{compile: compile, entries: map[key]slot{}, pending: map[key]*compilation{}}
}

// get returns the compiled schema of the document raw.
func (c *cache) get(raw []byte) (compiledDoc, error) {
	byBytes := keyOf(rawKey, raw)
	if d, ok := c.lookup(byBytes); ok {
		return d, nil
	}
	doc, err := decodeSchema(raw)
	if err != nil {
		return compiledDoc{}, err
	}
	canon, ok := appendCanonical(nil, doc)
	if !ok {
		// Not expected of a decoded document; compile it unshared.
		return c.build(doc)
	}
	byValue := keyOf(canonicalKey, canon)

	c.mu.Lock()
	if d, ok := c.entries[byValue].value(); ok {
		c.put(byBytes, d)
		c.mu.Unlock()
		return d, nil
	}
	if p := c.pending[byValue]; p != nil {
		c.mu.Unlock()
		<-p.done
		if p.err == nil {
			c.mu.Lock()
			c.put(byBytes, p.d)
			c.mu.Unlock()
		}
		return p.d, p.err
	}
	p := &compilation{done: make(chan struct{})}
	c.pending[byValue] = p
	c.mu.Unlock()

	p.d, p.err = c.build(doc)

	c.mu.Lock()
	delete(c.pending, byValue)
	if p.err == nil {
		c.put(byValue, p.d)
		c.put(byBytes, p.d)
	}
	c.mu.Unlock()
	close(p.done)
	return p.d, p.err
}

// build compiles the decoded schema document doc, and tells what Compile
// tells of it.
func (c *cache) build(doc any) (compiledDoc, error) {
	sch, err := c.compile(doc)
	if err != nil {
		return compiledDoc{}, err
	}
	obj, _ := doc.(map[string]any)
	return compiledDoc{sch: sch, objectType: obj != nil && obj["type"] == "object"}, nil
}

// lookup returns the live schema under k, if any.
func (c *cache) lookup(k key) (compiledDoc, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[k].value()
}

// put files d under k, unless a live schema is there already. Once d's
// schema is collected, the entry is removed. c.mu must be held.
//
// The weak pointer and the cleanup are on the compiled jsonschema.Schema, a
// large object, rather than on the small Schema that wraps it: the runtime
// keeps them in a list per span of memory sorted by address, so that on
// 8-byte objects, a thousand to a span, filing schemas took time quadratic
// in their number (an eighth of the compile time at ten thousand).
func (c *cache) put(k key, d compiledDoc) {
	if _, ok := c.entries[k].value(); ok {
		return
	}
	w := weak.Make(d.sch)
	c.entries[k] = slot{w, d.objectType}
	// The argument holds the schema only weakly, so it does not keep it
	// alive.
	runtime.AddCleanup(d.sch, c.drop, entry{k, w})
}

// entry is a cache entry as its cleanup knows it.
type entry struct {
	k key
	w weak.Pointer[jsonschema.Schema]
}

// drop removes e once its schema is collected, unless the key was filed
// again since with a newer schema.
func (c *cache) drop(e entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[e.k].w == e.w {
		delete(c.entries, e.k)
	}
}

// size counts the entries, live or awaiting their cleanup.
func (c *cache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// appendCanonical appends to b an encoding of the decoded JSON value v that
// is the same for two values exactly when they are equal: object members
// sorted by name, numbers as written, every string and container prefixed
// with its length, so that no content can pass for structure. It is only
// hashed, never decoded, and costs a fraction of JSON's encoding, which
// escapes every string. ok is false for a value decode never makes.
func appendCanonical(b []byte, v any) (_ []byte, ok bool) {
	switch v := v.(type) {
	case map[string]any:
		b = binary.AppendUvarint(append(b, '{'), uint64(len(v)))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			b = appendString(b, 's', k)
			if b, ok = appendCanonical(b, v[k]); !ok {
				return nil, false
			}
		}
		return b, true
	case []any:
		b = binary.AppendUvarint(append(b, '['), uint64(len(v)))
		for _, e := range v {
			if b, ok = appendCanonical(b, e); !ok {
				return nil, false
			}
		}
		return b, true
	case string:
		return appendString(b, 's', v), true
	case json.Number:
		return appendString(b, 'n', string(v)), true
	case bool:
		if v {
			return append(b, 't'), true
		}
		return append(b, 'f'), true
	case nil:
		return append(b, 'z'), true
	}
	return nil, false
}

// appendString appends a tag, the length of s and s.
func appendString(b []byte, tag byte, s string) []byte {
	return append(binary.AppendUvarint(append(b, tag), uint64(len(s))), s...)
}
