package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// adversaryDefinitions are tool definitions a hostile module may describe,
// beyond definitionCases: fields the official clients parse strictly, and
// outputSchemas that wasmcp's validator compiles but the TypeScript SDK's
// client (ajv, ECMAScript regular expressions), which compiles every
// outputSchema in listTools, may not. Whatever the host does with one, the
// others' tools must stay listable by every client.
var adversaryDefinitions = map[string]string{
	"meta-array":          `{"_meta":[1]}`,
	"meta-string":         `{"_meta":"x"}`,
	"meta-null":           `{"_meta":null}`,
	"title-null":          `{"title":null}`,
	"title-number":        `{"title":5}`,
	"description-null":    `{"description":null}`,
	"description-number":  `{"description":5}`,
	"output-null":         `{"outputSchema":null}`,
	"annotations-null":    `{"annotations":null}`,
	"annotations-title":   `{"annotations":{"title":5}}`,
	"annotations-extra":   `{"annotations":{"x":1,"readOnlyHint":null}}`,
	"icons-null":          `{"icons":null}`,
	"icons-javascript":    `{"icons":[{"src":"javascript:alert(1)"}]}`,
	"icons-mime-number":   `{"icons":[{"src":"https://x/i.png","mimeType":5}]}`,
	"icons-sizes-string":  `{"icons":[{"src":"https://x/i.png","sizes":"48x48"}]}`,
	"icons-empty":         `{"icons":[]}`,
	"execution-null":      `{"execution":null}`,
	"execution-task-null": `{"execution":{"taskSupport":null}}`,
	"properties-proto":    `{"inputSchema":{"type":"object","properties":{"__proto__":{"type":"string"}}}}`,
	"properties-null":     `{"inputSchema":{"type":"object","properties":null}}`,
	"required-null":       `{"inputSchema":{"type":"object","required":null}}`,
	"__proto__":           `{}`,
	"constructor":         `{}`,
	"out-inline-flag":     outputPattern(`(?i)abc`),
	"out-end-of-text":     outputPattern(`abc\\z`),
	"out-posix-class":     outputPattern(`[[:alpha:]]`),
	"out-unicode-script":  outputPattern(`\\p{Greek}`),
	"out-named-group":     outputPattern(`(?P<n>a)`),
	"out-lone-bracket":    outputPattern(`a]`),
	"out-lone-brace":      outputPattern(`a{`),
	"out-hex-brace":       outputPattern(`\\x{41}`),
	"out-quote":           outputPattern(`\\Qa.b\\E`),
	"out-pattern-props":   `{"outputSchema":{"type":"object","patternProperties":{"(?i)x":{}}}}`,
	"out-duplicate-id":    `{"outputSchema":{"type":"object","properties":{"a":{"$id":"urn:a"},"b":{"$id":"urn:a"}}}}`,
	"out-draft4-boolean":  `{"outputSchema":{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"type":"number","maximum":3,"exclusiveMaximum":true}}}}`,
	"out-required-true":   `{"outputSchema":{"type":"object","properties":{"a":{"type":"string","required":true}}}}`,
	"out-urn-id":          `{"outputSchema":{"$id":"urn:same","type":"object"}}`,
	"out-enum-empty":      `{"outputSchema":{"type":"object","properties":{"a":{"enum":[]}}}}`,
	"out-relative-ref":    `{"outputSchema":{"$id":"http://example.com/root.json","type":"object","properties":{"a":{"$ref":"other.json"}}}}`,
}

func outputPattern(p string) string {
	return `{"outputSchema":{"type":"object","properties":{"a":{"type":"string","pattern":"` + p + `"}}}}`
}

// definition merges fields into a minimal tool named name.
func definition(t *testing.T, name, fields string) string {
	t.Helper()
	tool := map[string]json.RawMessage{"name": json.RawMessage(fmt.Sprintf("%q", name)), "inputSchema": json.RawMessage(`{"type":"object"}`)}
	var extra map[string]json.RawMessage
	if err := json.Unmarshal([]byte(fields), &extra); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for k, v := range extra {
		tool[k] = v
	}
	b, err := json.Marshal(tool)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tsAdversary runs e2e/ts/adversary.mjs on dir: the TypeScript SDK client
// lists every tool, then calls tool with each of cases (when tool is not
// ""). It returns the script's output and whether it succeeded.
func tsAdversary(t *testing.T, dir, tool string, cases map[string]string) (string, bool) {
	t.Helper()
	node, script := typescriptParser(t)
	script = filepath.Join(filepath.Dir(script), "adversary.mjs")
	args := []string{script, binPath, dir, cacheDir}
	if tool != "" {
		doc := map[string]json.RawMessage{}
		for name, c := range cases {
			doc[name] = json.RawMessage(c)
		}
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "cases.json")
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, tool, file)
	}
	cmd := exec.CommandContext(testContext(t), node, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err == nil
}

// One module per odd definition beside hello: the TypeScript SDK's
// Client.listTools and the Go SDK's client must both list hello, whether or
// not the host serves the odd tool.
func TestAdversaryListsWithOfficialClients(t *testing.T) {
	typescriptParser(t)
	names := make([]string, 0, len(adversaryDefinitions))
	for name := range adversaryDefinitions {
		names = append(names, name)
	}
	slices.Sort(names)
	var served []string
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			dir := servedCopy(t, wat("hello"))
			writeDescribeModule(t, filepath.Join(dir, "case.wasm"), `{"tools":[`+definition(t, name, adversaryDefinitions[name])+`]}`)
			out, ok := tsAdversary(t, dir, "", nil)
			var tools []string
			for _, line := range strings.Split(out, "\n") {
				if rest, ok := strings.CutPrefix(line, "tools "); ok {
					tools = strings.Fields(rest)
				}
			}
			if !ok || !slices.Contains(tools, "hello") {
				t.Errorf("CLIENT-BREAKING LIST: with the module defining %s, the TypeScript SDK client cannot list hello: %s", name, strings.TrimSpace(out))
			}
			if slices.Contains(tools, name) {
				served = append(served, name)
			}
			s := startServer(t, dir, serverOptions{protocol: legacyProtocol})
			if _, ok := s.tools(t)["hello"]; !ok {
				t.Errorf("CLIENT-BREAKING LIST: with the module defining %s, the Go SDK client does not list hello", name)
			}
		})
	}
	t.Logf("served as written (the rest refused at load): %v", served)
}

// describeModule writes a module whose describe document is doc, with
// memory enough for it, and whose every call returns an empty result.
func describeModule(t *testing.T, path, doc string) {
	t.Helper()
	var lit strings.Builder
	for _, b := range []byte(doc) {
		if b < 0x20 || b > 0x7e || b == '"' || b == '\\' {
			fmt.Fprintf(&lit, `\%02x`, b)
		} else {
			lit.WriteByte(b)
		}
	}
	pages := (1024+len(doc))>>16 + 1
	wat := fmt.Sprintf(`(module
  (memory (export "memory") %d)
  (data (i32.const 1024) "%s")
  (data (i32.const 64) "{}")
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 128))
  (func (export "wasmcp_describe") (result i64) (i64.const %d))
  (func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64) (i64.const %d)))`,
		pages, lit.String(), uint64(1024)<<32|uint64(len(doc)), uint64(64)<<32|2)
	wasm, err := wat2wasm([]byte(wat))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, wasm, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A describe document under the 4 MiB cap whose description is all "<",
// which JSON encoders escape as \u003c: six bytes sent for each byte
// described. tools/list must stay within the frame the Go SDK's client
// reads (16 MiB), or that client loses every tool (issue: pages of 2 MiB
// by size).
func TestAdversaryListEscapeExpansion(t *testing.T) {
	dir := servedCopy(t, wat("hello"))
	desc := strings.Repeat("<", 4<<20-200)
	describeModule(t, filepath.Join(dir, "wide.wasm"), `{"tools":[{"name":"wide","description":"`+desc+`","inputSchema":{"type":"object"}}]}`)
	raw := advRaw(t, dir, legacyProtocol)
	longest, cursor := 0, ""
	for page := 2; page < 10; page++ {
		params := "{}"
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"}`
		}
		raw.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, page, params))
		line := raw.next()
		longest = max(longest, len(line))
		var r struct {
			Result struct {
				NextCursor string `json:"nextCursor"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &r) != nil || r.Result.NextCursor == "" {
			break
		}
		cursor = r.Result.NextCursor
	}
	t.Logf("tools/list: longest page one line of %d bytes (%.1f MiB) for a describe document of %d bytes", longest, float64(longest)/(1<<20), len(desc)+100)
	if longest > 16<<20 {
		t.Errorf("CLIENT-BREAKING LIST: a tools/list page is one line of %d bytes, over the 16 MiB frame of the Go SDK's client and of wasmcp's reader", longest)
	}
	s := startServer(t, dir, serverOptions{protocol: legacyProtocol})
	var names []string
	for tool, err := range s.Tools(testContext(t), nil) {
		if err != nil {
			t.Errorf("CLIENT-BREAKING LIST: the Go SDK client cannot list the tools: %v", err)
			break
		}
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "hello") {
		t.Errorf("CLIENT-BREAKING LIST: the Go SDK client lists %v, not hello", names)
	}
}

// adversaryResults are result documents a hostile guest may return (the
// reflect tool returns its arguments as its result). Each must reach the
// TypeScript SDK client as a result it parses: the guest's, or the host's
// isError naming the violation, never one the client throws on.
var adversaryResults = map[string]string{
	"meta-array":         `{"content":[{"type":"text","text":"x"}],"_meta":[1]}`,
	"content-meta-array": `{"content":[{"type":"text","text":"x","_meta":[1]}]}`,
	"priority-string":    `{"content":[{"type":"text","text":"x","annotations":{"priority":"0.5"}}]}`,
	"priority-tiny":      `{"content":[{"type":"text","text":"x","annotations":{"priority":-1e-400}}]}`,
	"audience-alien":     `{"content":[{"type":"text","text":"x","annotations":{"audience":["alien"]}}]}`,
	"modified-no-zone":   lastModified("2025-01-12T15:00:58"),
	"modified-lowercase": lastModified("2025-01-12t15:00:58z"),
	"modified-leap":      lastModified("2016-12-31T23:59:60Z"),
	"modified-plus24":    lastModified("2025-01-12T15:00:58+24:00"),
	"modified-minus24":   lastModified("2025-01-12T15:00:58-24:00"),
	"modified-minute60":  lastModified("2025-01-12T15:00:58+00:60"),
	"modified-comma":     lastModified("2025-01-12T15:00:58,5Z"),
	"modified-feb30":     lastModified("2025-02-30T15:00:58Z"),
	"modified-year0":     lastModified("0000-01-12T15:00:58Z"),
	"image-bad-base64":   `{"content":[{"type":"image","data":"!!!","mimeType":"image/png"}]}`,
	"image-unpadded":     `{"content":[{"type":"image","data":"AAA","mimeType":"image/png"}]}`,
	"image-newline":      `{"content":[{"type":"image","data":"AA\nAA==","mimeType":"image/png"}]}`,
	"image-no-mime":      `{"content":[{"type":"image","data":"AA==","mimeType":""}]}`,
	"link-negative-size": `{"content":[{"type":"resource_link","uri":"file:///x","name":"x","size":-1}]}`,
	"link-fraction-size": `{"content":[{"type":"resource_link","uri":"file:///x","name":"x","size":1.5}]}`,
	"link-huge-size":     `{"content":[{"type":"resource_link","uri":"file:///x","name":"x","size":1e300}]}`,
	"link-icons-object":  `{"content":[{"type":"resource_link","uri":"file:///x","name":"x","icons":{}}]}`,
	"link-title-number":  `{"content":[{"type":"resource_link","uri":"file:///x","name":"x","title":5}]}`,
	"link-no-uri":        `{"content":[{"type":"resource_link","uri":"","name":"x"}]}`,
	"resource-both":      `{"content":[{"type":"resource","resource":{"uri":"file:///x","text":"a","blob":"AA=="}}]}`,
	"resource-neither":   `{"content":[{"type":"resource","resource":{"uri":"file:///x"}}]}`,
	"resource-bad-blob":  `{"content":[{"type":"resource","resource":{"uri":"file:///x","blob":"!!"}}]}`,
	"text-number":        `{"content":[{"type":"text","text":5}]}`,
	"type-video":         `{"content":[{"type":"video","data":"AA=="}]}`,
	"content-object":     `{"content":{}}`,
	"content-null":       `{"content":null}`,
	"is-error-string":    `{"content":[{"type":"text","text":"x"}],"isError":"yes"}`,
	"structured-array":   `{"structuredContent":[1]}`,
	"structured-inf":     `{"structuredContent":{"n":1e999}}`,
	"duplicate-type":     `{"content":[{"type":"text","text":"a","type":"image"}]}`,
	"lone-surrogate":     `{"content":[{"type":"text","text":"\ud800"}]}`,
	"empty":              `{}`,
}

func lastModified(v string) string {
	return `{"content":[{"type":"text","text":"x","annotations":{"lastModified":"` + v + `"}}]}`
}

func TestAdversaryResultsWithTheTypeScriptClient(t *testing.T) {
	typescriptParser(t)
	out, _ := tsAdversary(t, servedCopy(t, wat("adversary_reflect")), "reflect", adversaryResults)
	outputSchema := map[string]string{
		"wrong-type":       `{"structuredContent":{"a":1},"content":[{"type":"text","text":"x"}]}`,
		"error-wrong-type": `{"isError":true,"structuredContent":{"a":1},"content":[{"type":"text","text":"x"}]}`,
		"missing":          `{"content":[{"type":"text","text":"x"}]}`,
		"error-missing":    `{"isError":true}`,
		"ok":               `{"structuredContent":{"a":"x"}}`,
	}
	out2, _ := tsAdversary(t, servedCopy(t, wat("adversary_reflect")), "reflect_out", outputSchema)
	// The client's validator asserts formats and checks multipleOf in
	// floating point; the host holds results to the same.
	formats := map[string]string{}
	for name, v := range map[string]string{
		"date-time-bad": `{"d":"nope"}`, "date-time-ok": `{"d":"2025-01-12T15:00:58Z"}`,
		"email-bad": `{"e":"not an address"}`, "email-ok": `{"e":"a@example.com"}`,
		"uri-bad": `{"u":"no scheme"}`, "uri-ok": `{"u":"https://example.com/a"}`,
		"multiple-bad": `{"n":3}`, "multiple-ok": `{"n":4}`,
	} {
		formats[name] = `{"structuredContent":` + v + `}`
	}
	out3, _ := tsAdversary(t, servedCopy(t, wat("adversary_reflect")), "reflect_fmt", formats)
	out2 += out3
	for _, line := range strings.Split(out+out2, "\n") {
		if strings.Contains(line, "THROWS") {
			t.Errorf("CLIENT-BREAKING RESULT: %s", clipped(line))
		}
	}
	t.Logf("TypeScript SDK client:\n%s%s", out, out2)
}

// A result under --max-output whose text is all "<" is six times larger
// once encoded: the Go SDK client must still read it, or at least its
// session must survive to call another tool.
func TestAdversaryResultEscapeExpansion(t *testing.T) {
	s := startServer(t, servedCopy(t, wat("adversary_reflect"), wat("hello")), serverOptions{protocol: legacyProtocol})
	args := `{"content":[{"type":"text","text":"` + strings.Repeat("<", 3<<20) + `"}]}`
	res, err := s.callErr(t, "reflect", args)
	switch {
	case err != nil:
		t.Errorf("CLIENT-BREAKING RESULT: a 3 MiB result of \"<\" (18 MiB encoded): %v", clipped(err.Error()))
	case res.IsError:
		t.Logf("refused: %s", clipped(text(res)))
	}
	if _, err := s.callErr(t, "hello", `{}`); err != nil {
		t.Errorf("CLIENT-BREAKING RESULT: after it, the session cannot call hello: %v", err)
	}
}
