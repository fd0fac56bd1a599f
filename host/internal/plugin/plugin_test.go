package plugin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/plugin"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/internal/sandbox/sandboxtest"
)

// testGuests are the modules of testdata/*.wat, built once per test binary.
var testGuests = sandboxtest.NewGuests("testdata")

func guest(t testing.TB, name string) []byte {
	t.Helper()
	return testGuests.Get(t, name)
}

var testContext = sandboxtest.Context

// testRuntime is the runtime every test's plugins compile in, as a host's
// do.
var testRuntime = sync.OnceValue(func() *sandbox.Runtime {
	rt, err := sandbox.NewRuntime(context.Background(), sandbox.RuntimeConfig{LongCalls: sandbox.LongCalls{Reserve: 1, Nice: 10}})
	if err != nil {
		panic(err)
	}
	return rt
})

// testOptions keep the logs quiet. The deadline is the default, so that no
// call that must succeed depends on how busy the machine is.
func testOptions() plugin.Options {
	return plugin.Options{Runtime: testRuntime(), Sandbox: sandbox.Options{Logger: slog.New(slog.DiscardHandler)}}
}

func load(t testing.TB, name string, opts plugin.Options) *plugin.Plugin {
	t.Helper()
	p, err := plugin.Load(testContext(t), "plugins/"+name+".wasm", guest(t, name), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p
}

func TestLoad(t *testing.T) {
	p := load(t, "tools", testOptions())
	if p.Name() != "tools" || p.Path() != "plugins/tools.wasm" {
		t.Errorf("Name, Path = %q, %q", p.Name(), p.Path())
	}
	if len(p.SHA256()) != 64 {
		t.Errorf("SHA256 = %q", p.SHA256())
	}
	if p.Info().ABIVersion != abi.Version {
		t.Errorf("Info().ABIVersion = %d", p.Info().ABIVersion)
	}
	tools := p.Tools()
	if len(tools) != 20 {
		t.Fatalf("%d tools, want 20", len(tools))
	}
	// Definitions reach clients as the guest wrote them; unknown fields
	// ("future") are dropped.
	got, err := json.Marshal(tools[0])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"echo","title":"Echo","description":"Returns its arguments as structured content.",` +
		`"inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true},"_meta":{"x":1}}`
	if string(got) != want {
		t.Errorf("tool 0 = %s\nwant       %s", got, want)
	}
	// icons and execution (MCP 2025-11-25) are kept.
	if got, _ := json.Marshal(tools[19]); string(got) != `{"name":"xenial","inputSchema":{"type":"object"},`+
		`"icons":[{"src":"https://example.com/x.png","sizes":["48x48"]}],"execution":{"taskSupport":"forbidden"}}` {
		t.Errorf("tool 19 = %s", got)
	}
	if string(tools[1].OutputSchema) != `{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}` {
		t.Errorf("outputSchema of typed = %s", tools[1].OutputSchema)
	}
	// Tools returns a copy.
	tools[0].Name = "changed"
	if p.Tools()[0].Name != "echo" {
		t.Error("Tools shares its slice with the plugin")
	}
}

// describeGuest is a module whose wasmcp_describe returns doc, or 0 when doc
// is empty.
func describeGuest(t *testing.T, doc string) []byte {
	t.Helper()
	packed := abi.Pack(1024, uint32(len(doc)))
	if doc == "" {
		packed = 0
	}
	var lit strings.Builder
	for _, b := range []byte(doc) {
		if b >= 0x20 && b < 0x7f && b != '"' && b != '\\' {
			lit.WriteByte(b)
		} else {
			fmt.Fprintf(&lit, `\%02x`, b)
		}
	}
	wat := fmt.Sprintf(`(module
  (memory (export "memory") 2)
  (data (i32.const 1024) "%s")
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 0))
  (func (export "wasmcp_describe") (result i64) (i64.const %d))
  (func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64) (i64.const 0)))`,
		lit.String(), packed)
	wasm := sandboxtest.Wat2Wasm(t, []byte(wat))
	return wasm
}

func TestLoadRefusesDefinitions(t *testing.T) {
	obj := `"inputSchema":{"type":"object"}`
	many := make([]string, abi.MaxTools+1)
	for i := range many {
		many[i] = fmt.Sprintf(`{"name":"t%d",%s}`, i, obj)
	}
	tests := []struct{ name, doc, want string }{
		{"bad name", `{"tools":[{"name":"bad name",` + obj + `}]}`,
			`tool "bad name": name must be 1 to 128 characters of [A-Za-z0-9_.-]`},
		{"long name", `{"tools":[{"name":"` + strings.Repeat("a", 129) + `",` + obj + `}]}`,
			`name must be 1 to 128 characters`},
		{"no name", `{"tools":[{"name":"ok",` + obj + `},{` + obj + `}]}`, `tool #2: name is missing`},
		{"no inputSchema", `{"tools":[{"name":"a"}]}`, `tool "a": inputSchema is missing`},
		{"null inputSchema", `{"tools":[{"name":"a","inputSchema":null}]}`, `tool "a": inputSchema is missing`},
		{"string inputSchema", `{"tools":[{"name":"a","inputSchema":{"type":"string"}}]}`,
			`tool "a": inputSchema: must have "type": "object", not "string"`},
		{"untyped inputSchema", `{"tools":[{"name":"a","inputSchema":{}}]}`,
			`tool "a": inputSchema: must have "type": "object", not null`},
		{"mis-cased type", `{"tools":[{"name":"a","inputSchema":{"Type":"object"}}]}`,
			`tool "a": inputSchema: must have "type": "object", not null`},
		{"array inputSchema", `{"tools":[{"name":"a","inputSchema":[]}]}`, `tool "a": inputSchema: not a JSON object`},
		{"duplicate", `{"tools":[{"name":"a",` + obj + `},{"name":"a",` + obj + `}]}`, `tool "a": defined twice`},
		{"bad schema", `{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"nonsense"}}}}]}`,
			`tool "a": inputSchema: schema is not valid against its meta-schema: at /properties/x/type:`},
		{"remote ref", `{"tools":[{"name":"a","inputSchema":{"type":"object","$ref":"https://example.com/s.json"}}]}`,
			`tool "a": inputSchema: references to other documents are not allowed (https://example.com/s.json)`},
		{"bad outputSchema", `{"tools":[{"name":"a",` + obj + `,"outputSchema":{"type":"object","minProperties":"two"}}]}`,
			`tool "a": outputSchema: schema is not valid against its meta-schema`},
		{"scalar outputSchema", `{"tools":[{"name":"a",` + obj + `,"outputSchema":5}]}`, `tool "a": outputSchema: not a JSON object`},
		// What the official SDKs require of a definition, so that one module
		// cannot make a client refuse the whole tools/list.
		{"array outputSchema", `{"tools":[{"name":"a",` + obj + `,"outputSchema":{"type":"array"}}]}`,
			`tool "a": outputSchema: must have "type": "object", not "array"`},
		{"untyped outputSchema", `{"tools":[{"name":"a",` + obj + `,"outputSchema":{}}]}`,
			`tool "a": outputSchema: must have "type": "object", not null`},
		{"boolean property", `{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"x":true}}}]}`,
			`tool "a": inputSchema: property "x": the schema must be an object (write {} for true); got true`},
		{"boolean output property", `{"tools":[{"name":"a",` + obj + `,"outputSchema":{"type":"object","properties":{"y":false}}}]}`,
			`tool "a": outputSchema: property "y": the schema must be an object`},
		{"properties not an object", `{"tools":[{"name":"a","inputSchema":{"type":"object","properties":[]}}]}`,
			`tool "a": inputSchema: "properties" is not an object`},
		{"required not strings", `{"tools":[{"name":"a","inputSchema":{"type":"object","required":[1]}}]}`,
			`tool "a": inputSchema: "required" is not an array of strings`},
		// What the official clients' validators cannot compile, or read
		// differently (host/internal/schema/portable.go).
		{"JavaScript-only pattern", `{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string","pattern":"(?i)x"}}}}]}`,
			`tool "a": inputSchema: at /properties/x/pattern: pattern "(?i)x", at offset 0:`},
		{"output $id", `{"tools":[{"name":"a",` + obj + `,"outputSchema":{"$id":"urn:same","type":"object"}}]}`,
			`tool "a": outputSchema: at /$id: identifiers are not allowed`},
		{"empty enum", `{"tools":[{"name":"a",` + obj + `,"outputSchema":{"type":"object","properties":{"e":{"enum":[]}}}}]}`,
			`tool "a": outputSchema: at /properties/e/enum: must not be empty`},
		{"draft-04", `{"tools":[{"name":"a",` + obj + `,"outputSchema":{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}}]}`,
			`tool "a": outputSchema: at /$schema: got "http://json-schema.org/draft-04/schema#", want draft-07`},
		{"icon scheme", `{"tools":[{"name":"a",` + obj + `,"icons":[{"src":"file:///etc/passwd"}]}]}`,
			`tool "a": icons[0]: icon src "file:///etc/passwd": scheme "file" is not https, http or data`},
		{"icon size", `{"tools":[{"name":"a",` + obj + `,"icons":[{"src":"https://x/i.png","sizes":["big"]}]}]}`,
			`tool "a": icons[0]: icon size "big" is neither "WxH" nor "any"`},
		{"icon theme", `{"tools":[{"name":"a",` + obj + `,"icons":[{"src":"data:image/png;base64,AA==","theme":"blue"}]}]}`,
			`tool "a": icons[0]: icon theme "blue" is neither "light" nor "dark"`},
		{"icon without src", `{"tools":[{"name":"a",` + obj + `,"icons":[{}]}]}`, `tool "a": icons[0]: icon src "" is not a URI`},
		{"task support", `{"tools":[{"name":"a",` + obj + `,"execution":{"taskSupport":"always"}}]}`,
			`tool "a": execution.taskSupport "always" is not one of forbidden, optional, required`},
		{"annotation type", `{"tools":[{"name":"a",` + obj + `,"annotations":{"readOnlyHint":"yes"}}]}`,
			`describe document: tools.annotations.readOnlyHint: got string, want boolean`},
		{"too many", `{"tools":[` + strings.Join(many, ",") + `]}`, `describe document: 1025 tools, more than the 1024 allowed`},
		{"not JSON", `{"tools":[`, `describe document: not valid JSON: unexpected end of JSON input`},
		{"not an object", `[]`, `describe document: not a JSON object`},
		{"wrong type", `{"tools":{}}`, `describe document: tools: got object, want array`},
		{"wrong field type", `{"tools":[{"name":5}]}`, `describe document: tools.name: got number, want string`},
		{"bad UTF-8", "{\"tools\":[{\"name\":\"\xff\"}]}", `describe document: not valid UTF-8`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := plugin.Load(testContext(t), "dir/defs.wasm", describeGuest(t, tt.doc), testOptions())
			if err == nil {
				_ = p.Close(context.Background())
				t.Fatal("Load succeeded")
			}
			if !strings.HasPrefix(err.Error(), "load dir/defs.wasm: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q\nwant it to name the file and contain %q", err, tt.want)
			}
		})
	}
}

// "outputSchema": null is no schema, and is not served as null, which the
// TypeScript SDK's client refuses.
func TestLoadNullOutputSchema(t *testing.T) {
	p, err := plugin.Load(testContext(t), "null.wasm", describeGuest(t, `{"tools":[{"name":"a","inputSchema":{"type":"object"},"outputSchema":null}]}`), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	got, err := json.Marshal(p.Tools()[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name":"a","inputSchema":{"type":"object"}}`; string(got) != want {
		t.Errorf("tool = %s, want %s", got, want)
	}
}

func TestLoadZeroTools(t *testing.T) {
	p, err := plugin.Load(testContext(t), "none.wasm", describeGuest(t, `{"tools":[]}`), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	if len(p.Tools()) != 0 {
		t.Errorf("Tools = %v", p.Tools())
	}
}

func TestLoadSandboxErrors(t *testing.T) {
	_, err := plugin.Load(testContext(t), "dir/junk.wasm", []byte("not wasm"), testOptions())
	if err == nil || !strings.HasPrefix(err.Error(), "load dir/junk.wasm: compile junk: ") {
		t.Errorf("err = %v, want it to name the file and the module", err)
	}
	// No describe document.
	_, err = plugin.Load(testContext(t), "dir/empty.wasm", describeGuest(t, ""), testOptions())
	if want := "load dir/empty.wasm: describe: wasmcp_describe returned 0 instead of a document"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

//go:generate ../../../scripts/wat2wasm-testdata.sh testdata
