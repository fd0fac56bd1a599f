//go:build !wasip1

// Package examples_test checks that the example tools written in every guest
// language behave alike: the same definitions and, for the same arguments,
// the same CallToolResult and the same log lines as the Go module
// (examples/go/everything), which is the reference. Results compare as JSON
// values, not bytes (see canonical). The modules are the ones `make plugins`
// builds into the directory named by WASMCP_PLUGINS (or, for the languages
// other than Go, WASMCP_EXAMPLES), and they are run through the real host
// (package plugin).
package examples_test

import (
	"github.com/wasmcp/wasmcp/internal/testenv"

	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
)

// languages are the modules compared, the reference first: file name
// (without .wasm) and the name the test reports.
var languages = []struct{ file, lang string }{
	{"everything", "go"},
	{"examples-c", "c"},
	{"examples-rust", "rust"},
	{"examples-as", "assemblyscript"},
	{"examples-wat", "wat"},
}

// module is one language's example module, served by a Host of its own:
// the modules define the same tool names.
type module struct {
	lang string
	h    *host.Host
}

var (
	loadOnce sync.Once
	loaded   []module
	loadErr  error
)

// modules loads every language's module once per test binary.
func modules(t *testing.T) []module {
	t.Helper()
	plugins := os.Getenv("WASMCP_PLUGINS")
	if plugins == "" {
		testenv.Missing(t, "WASMCP_PLUGINS is not set: run `make plugins`, then "+
			"WASMCP_PLUGINS=$PWD/build/plugins go test ./examples/ (`make test` does both)")
	}
	// The other languages' modules may be built elsewhere (mk/guests.mk's
	// GUEST_EXAMPLES_DIR), so that a server of the plugins directory does
	// not see five modules defining the same tools.
	examples := cmp.Or(os.Getenv("WASMCP_EXAMPLES"), plugins)
	loadOnce.Do(func() {
		// Compiling the Go module takes most of the time: load in parallel.
		cfg := host.NewConfig().WithLogger(slog.New(slog.DiscardHandler))
		loaded = make([]module, len(languages))
		errs := make([]error, len(languages))
		var wg sync.WaitGroup
		for i, l := range languages {
			wg.Go(func() {
				dir := examples
				if i == 0 {
					dir = plugins
				}
				path := filepath.Join(dir, l.file+".wasm")
				if _, err := os.Stat(path); err != nil {
					errs[i] = fmt.Errorf("%s example module: %w (run `make plugins`)", l.lang, err)
					return
				}
				h, err := host.New(context.Background(), cfg)
				if err == nil {
					err = h.LoadFile(context.Background(), path)
				}
				if err != nil {
					errs[i] = fmt.Errorf("%s example module: %w", l.lang, err)
					return
				}
				loaded[i] = module{l.lang, h}
			})
		}
		wg.Wait()
		loadErr = errors.Join(errs...)
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded
}

// canonical encodes v as JSON in a form in which results equal as JSON
// values are equal as strings: object keys sorted, numbers written by Go
// (12.0 and 1.2e1 are 12), and -0 as 0, as float64's == has it. Numbers
// written in strings (get-sum's text, a log line) are rewritten the same
// way, since each language writes numbers in text in its own standard
// notation: 12 or 12.0, 1e+21 or 1000000000000000000000, and for 0.1 + 0.2
// AssemblyScript digits that are not the shortest but read back as the same
// double.
func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if b, err = json.Marshal(canonicalValue(doc)); err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func canonicalValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = canonicalValue(e)
		}
	case []any:
		for i, e := range v {
			v[i] = canonicalValue(e)
		}
	case float64:
		return v + 0 // -0 + 0 is 0
	case string:
		return canonicalText(v)
	}
	return v
}

var numberInText = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?`)

// canonicalText rewrites each number in s as Go writes its float64 value.
func canonicalText(s string) string {
	return numberInText.ReplaceAllStringFunc(s, func(n string) string {
		f, err := strconv.ParseFloat(n, 64)
		if err != nil {
			return n // out of range: compared as written
		}
		return strconv.FormatFloat(f+0, 'g', -1, 64)
	})
}

// watGetSum is the one definition the WAT module changes on purpose: its
// get-sum adds integers within +-2^52 (see examples/wat/examples.wat).
func watGetSum(def abi.Tool) abi.Tool {
	def.InputSchema = bytes.ReplaceAll(def.InputSchema, []byte(`"type":"number"`),
		[]byte(`"type":"integer","minimum":-4503599627370496,"maximum":4503599627370496`))
	return def
}

func TestDefinitions(t *testing.T) {
	mods := modules(t)
	ref := mods[0].h.Tools() // sorted by name
	var names []string
	for _, tool := range ref {
		names = append(names, tool.Name)
	}
	if want := []string{"echo", "get-error", "get-resource-links", "get-structured-content", "get-sum", "get-tiny-image"}; !slices.Equal(names, want) {
		t.Fatalf("reference tools %q, want %q", names, want)
	}
	for _, m := range mods[1:] {
		t.Run(m.lang, func(t *testing.T) {
			tools := m.h.Tools()
			if len(tools) != len(ref) {
				t.Errorf("%s: %d tools, want %d", m.lang, len(tools), len(ref))
				return
			}
			for i, want := range ref {
				def := want.Tool
				if m.lang == "wat" && want.Name == "get-sum" {
					def = watGetSum(def)
				}
				if got, want := canonical(t, tools[i].Tool), canonical(t, def); got != want {
					t.Errorf("%s: tool %d:\n got  %s\n want %s", m.lang, i, got, want)
				}
			}
		})
	}
}

// call is one tool call, made in every language.
type call struct {
	tool, args string
	// watRefuses: WAT's get-sum takes integers only, so the host refuses
	// these arguments with a validation error; every other language must
	// match the reference.
	watRefuses bool
	// check asserts expected values on the reference result; equality
	// carries them to the other languages.
	check func(t *testing.T, r *abi.Result, logs []string)
}

// run calls tool and returns the result, its canonical JSON, and the log
// lines.
func (m module) run(t *testing.T, tool, args string) (*abi.Result, string, []string) {
	t.Helper()
	var logs []string
	res, err := m.h.Call(context.Background(), host.CallRequest{Tool: tool, Arguments: json.RawMessage(args),
		Log: func(_ string, level abi.LogLevel, msg string) { logs = append(logs, level.String()+": "+msg) }})
	if err != nil {
		t.Fatalf("%s: %s %s: %v", m.lang, tool, args, err)
	}
	return &res.Result, canonical(t, res), logs
}

func texts(r *abi.Result) []string {
	var out []string
	for _, c := range r.Content {
		if c.Type == abi.ContentText {
			out = append(out, c.Text)
		}
	}
	return out
}

// text expects a successful result of one text block, and the log lines.
func text(want string, logs ...string) func(*testing.T, *abi.Result, []string) {
	return func(t *testing.T, r *abi.Result, got []string) {
		t.Helper()
		if r.IsError || len(r.Content) != 1 || r.Content[0].Text != want {
			t.Errorf("result %+v, want the text %q", r, want)
		}
		if !slices.Equal(got, logs) {
			t.Errorf("logs %q, want %q", got, logs)
		}
	}
}

// toolError expects isError with a text containing want.
func toolError(want string) func(*testing.T, *abi.Result, []string) {
	return func(t *testing.T, r *abi.Result, _ []string) {
		t.Helper()
		if !r.IsError || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, want) {
			t.Errorf("result %+v, want a tool error containing %q", r, want)
		}
	}
}

// weather expects structured content, mirrored as the only text block.
func weather(want string) func(*testing.T, *abi.Result, []string) {
	return func(t *testing.T, r *abi.Result, _ []string) {
		t.Helper()
		if r.IsError || string(r.StructuredContent) != want || !slices.Equal(texts(r), []string{want}) {
			t.Errorf("result %+v, want structured content and its mirror %s", r, want)
		}
	}
}

func links(n int) func(*testing.T, *abi.Result, []string) {
	return func(t *testing.T, r *abi.Result, _ []string) {
		t.Helper()
		if r.IsError || len(r.Content) != n+1 || r.Content[0].Text != fmt.Sprintf("Here are %d resource links:", n) {
			t.Fatalf("result %+v, want a text and %d links", r, n)
		}
		last := r.Content[n]
		if last.Type != abi.ContentResourceLink || last.URI != fmt.Sprintf("test://static/resource/%d", n) ||
			last.Name != fmt.Sprintf("Resource %d", n) || last.MimeType != "text/plain" ||
			last.Description != fmt.Sprintf("Example resource number %d", n) {
			t.Errorf("last link %+v", last)
		}
	}
}

func tinyImage(t *testing.T, r *abi.Result, _ []string) {
	if r.IsError || len(r.Content) != 3 || r.Content[1].Type != abi.ContentImage || r.Content[1].MimeType != "image/png" ||
		!slices.Equal(texts(r), []string{"This is a tiny image:", "The image above is a 16x16 PNG."}) {
		t.Fatalf("result %+v, want text, image, text", r)
	}
	data, err := base64.StdEncoding.DecodeString(r.Content[1].Data)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 16 || b.Dy() != 16 {
		t.Errorf("image is %v, want 16x16", b)
	}
}

var calls = []call{
	{tool: "echo", args: `{"message":"hi"}`, check: text("Echo: hi", "debug: echo: hi")},
	{
		tool: "echo", args: `{"message":"q\"b\\s/\u00e9\ud83d\ude00\n\t<&> \u0001"}`,
		check: text("Echo: q\"b\\s/é😀\n\t<&> \x01", "debug: echo: q\"b\\s/é😀\n\t<&> \x01"),
	},
	{tool: "echo", args: ` { "other" : [1, {"message": "no"}], "message" : "spaced" } `, check: toolError("additional")},
	{tool: "echo", args: `{}`, check: toolError("message")},
	{tool: "get-sum", args: `{"a":7,"b":5}`, check: text("The sum of 7 and 5 is 12.")},
	{tool: "get-sum", args: `{"b":5,"a":-7}`, check: text("The sum of -7 and 5 is -2.")},
	{tool: "get-sum", args: `{"a":12.0,"b":1.2e1}`, check: text("The sum of 12 and 12 is 24.")},
	{tool: "get-sum", args: `{"a":-0,"b":-0}`, check: text("The sum of -0 and -0 is -0.")},
	{tool: "get-sum", args: `{"a":-0,"b":0}`, check: text("The sum of -0 and 0 is 0.")},
	{
		tool: "get-sum", args: `{"a":4503599627370496,"b":4503599627370496}`,
		check: text("The sum of 4503599627370496 and 4503599627370496 is 9007199254740992."),
	},
	{tool: "get-sum", args: `{"a":0.5,"b":-2}`, watRefuses: true, check: text("The sum of 0.5 and -2 is -1.5.")},
	{tool: "get-sum", args: `{"a":0.1,"b":0.2}`, watRefuses: true, check: text("The sum of 0.1 and 0.2 is 0.30000000000000004.")},
	{
		tool: "get-sum", args: `{"a":1e21,"b":0}`, watRefuses: true,
		check: text("The sum of 1000000000000000000000 and 0 is 1000000000000000000000."),
	},
	{tool: "get-sum", args: `{"a":1.5e-7,"b":0}`, watRefuses: true, check: text("The sum of 0.00000015 and 0 is 0.00000015.")},
	{tool: "get-sum", args: `{"a":"7","b":5}`, watRefuses: true, check: toolError("/a")},
	{tool: "get-sum", args: `{"a":1e308,"b":1e308}`, watRefuses: true, check: toolError("The sum is out of the range of a 64-bit float.")},
	{tool: "get-sum", args: `{"a":-1.7976931348623157e308,"b":-1e300}`, watRefuses: true, check: toolError("The sum is out of the range")},
	{tool: "get-structured-content", args: `{"location":"New York"}`,
		check: weather(`{"temperature":22.5,"conditions":"Partly cloudy","humidity":65}`)},
	{tool: "get-structured-content", args: `{"location":"Chicago"}`,
		check: weather(`{"temperature":18,"conditions":"Windy","humidity":55}`)},
	{tool: "get-structured-content", args: `{"location":"Los Angeles"}`,
		check: weather(`{"temperature":28.3,"conditions":"Sunny","humidity":40}`)},
	{tool: "get-structured-content", args: `{"location":"Paris"}`, check: toolError("must be one of")},
	{tool: "get-tiny-image", args: `{}`, check: tinyImage},
	{tool: "get-tiny-image", args: `{"size":1}`, check: toolError("additional")},
	{tool: "get-resource-links", args: `{}`, check: links(3)},
	{tool: "get-resource-links", args: `{"count":1}`, check: links(1)},
	{tool: "get-resource-links", args: `{"count":10}`, check: links(10)},
	{tool: "get-resource-links", args: `{"count":11}`, check: toolError("maximum")},
	{tool: "get-error", args: `{}`, check: toolError("get-error: this tool always fails")},
	{tool: "get-error", args: `{"message":""}`, check: toolError("get-error: this tool always fails")},
	{tool: "get-error", args: `{"message":"disk \"C:\\\" on fire \u00e9"}`, check: func(t *testing.T, r *abi.Result, logs []string) {
		toolError(`get-error: disk "C:\" on fire é`)(t, r, logs)
		if want := []string{`error: get-error: disk "C:\" on fire é`}; !slices.Equal(logs, want) {
			t.Errorf("logs %q, want %q", logs, want)
		}
	}},
}

func TestCalls(t *testing.T) {
	mods := modules(t)
	for _, c := range calls {
		t.Run(c.tool+" "+c.args, func(t *testing.T) {
			ref, want, wantLogs := mods[0].run(t, c.tool, c.args)
			c.check(t, ref, wantLogs)
			for _, m := range mods[1:] {
				res, got, logs := m.run(t, c.tool, c.args)
				if m.lang == "wat" && c.watRefuses {
					if !res.IsError || !strings.HasPrefix(texts(res)[0], "invalid arguments for tool get-sum: at /a") {
						t.Errorf("wat: %s, want the host's validation error for /a", got)
					}
					continue
				}
				if got != want {
					t.Errorf("%s:\n got  %s\n want %s", m.lang, got, want)
				}
				if got, want := canonical(t, logs), canonical(t, wantLogs); got != want {
					t.Errorf("%s: logs %s, want %s", m.lang, got, want)
				}
			}
		})
	}
}

// TestLargeInput sends each module an argument larger than the buffers they
// start with or keep between calls (64 KiB), twice, so that growing memory
// and reusing an instance after a large call both work.
func TestLargeInput(t *testing.T) {
	message := strings.Repeat("0123456789abcdef", 1<<14) // 256 KiB
	args, err := json.Marshal(map[string]string{"message": message})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range modules(t) {
		t.Run(m.lang, func(t *testing.T) {
			for range 2 {
				res, _, _ := m.run(t, "echo", string(args))
				if res.IsError || len(res.Content) != 1 || res.Content[0].Text != "Echo: "+message {
					t.Errorf("%s: echo of 256 KiB failed: error %v, %d blocks", m.lang, res.IsError, len(res.Content))
				}
				if res, _, _ := m.run(t, "get-sum", `{"a":7,"b":5}`); len(res.Content) != 1 || res.Content[0].Text != "The sum of 7 and 5 is 12." {
					t.Errorf("%s: call after a large one: %+v", m.lang, res)
				}
			}
		})
	}
}

// TestCanonical checks that canonical equates what differs only in notation
// and nothing else.
func TestCanonical(t *testing.T) {
	same := [][2]string{
		{`{"b":[12],"a":"The sum of 7 and 5 is 12."}`, `{"a":"The sum of 7.0 and 5.0 is 12.0.","b":[12.0]}`},
		{`"0.30000000000000004 and 1e+21"`, `"0.30000000000000007 and 1000000000000000000000"`},
		{`{"x":-0,"s":"-0"}`, `{"x":0,"s":"0"}`},
	}
	differ := [][2]string{
		{`"0.3"`, `"0.30000000000000004"`},
		{`{"a":12}`, `{"a":"12"}`},
		{`"The sum of 7 and 5 is 12."`, `"The sum of 7 and 5 is 12"`},
	}
	for i, pair := range append(same, differ...) {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			var a, b any
			if err := json.Unmarshal([]byte(pair[0]), &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(pair[1]), &b); err != nil {
				t.Fatal(err)
			}
			want := slices.Contains(same, pair)
			if got := canonical(t, a) == canonical(t, b); got != want {
				t.Errorf("canonical(%s) == canonical(%s): %v, want %v", pair[0], pair[1], got, want)
			}
		})
	}
}
