package schema

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/internal/testenv"
)

// The portable rules checked against their ground truth, JavaScript's
// regular expressions and ajv as the official TypeScript SDK's client runs
// it, by e2e/ts/compile-schemas.mjs. They need node, and for ajv the e2e
// npm packages (make deps).

// compileScript runs e2e/ts/compile-schemas.mjs on in.
func compileScript(t *testing.T, in any, sdk bool) scriptOutput {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(root, "e2e", "ts", "compile-schemas.mjs")
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Missing(t, "node is missing: %v", err)
	}
	if sdk {
		if _, err := os.Stat(filepath.Join(root, "e2e", "ts", "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
			testenv.Missing(t, "the TypeScript SDK is missing (%v): make deps installs it", err)
		}
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script)
	cmd.Stdin = bytes.NewReader(b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, stderr.Bytes())
	}
	var out scriptOutput
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return out
}

type scriptOutput struct {
	Schemas  map[string]string `json:"schemas"`
	Shared   string            `json:"shared"`
	Patterns []struct {
		Error   string `json:"error"`
		Matches []bool `json:"matches"`
	} `json:"patterns"`
}

// patternTokens are what randomPatterns are made of: tokens both languages
// read alike, and each kind of token one of them reads differently.
var patternTokens = []string{
	"a", "b", "é", "😀", "0", "1", "-", ":", " ", ",", ".", "^", "$", "|", "(", ")", "(?:", "(?<n>", "(?<m>",
	"[", "]", "[^", "{", "}", "{2}", "{1,3}", "{0,}", "{01}", "{,2}", "*", "+", "?",
	`\d`, `\D`, `\w`, `\W`, `\s`, `\S`, `\b`, `\B`, `\x41`, `\0`, `\00`, `\p{L}`, `\p{Lu}`, `\P{N}`, `\p{Greek}`,
	`\pL`, `\.`, `\-`, `\/`, `\[`, `\]`, `\{`, `\}`, `\\`, `\z`, `\A`, `\Q`, `\E`, `\t`, `\n`, `\v`, `\f`,
	`\u0041`, `\#`, `\1`, `\a`, `\x{41}`, "(?i)", "(?P<x>", "[:alpha:]", "[[:digit:]]", "&&",
}

// probes are strings matched against every pattern both accept. They leave
// out the characters "." and \s are documented to differ on (\r, \v,
// U+2028, U+2029, Unicode spaces).
var probes = []string{"", "a", "b", "A", "ab", "ba", "aab", "é", "😀", "😀😀", "0", "01", "1-0", "a{2}", "a{01}",
	"aa", "aaa", "{", "}", "[", "]", ":", "-", "/", "\\", "x y", "\t", "\n", "\f", "Ω", "ǅ", "_", "a,b", ".",
	"^", "$", "AAA", "alpha", "[:alpha:]", "&", "\x00", "n", "Q", "E", "z", "1a"}

// randomPatterns are n patterns of up to eight tokens, the same every run.
func randomPatterns(n int) []string {
	r := rand.New(rand.NewPCG(19, 2026))
	ps := make([]string, n)
	for i := range ps {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			b.WriteString(patternTokens[r.IntN(len(patternTokens))])
		}
		ps[i] = b.String()
	}
	return ps
}

// Every pattern checkPattern accepts compiles in JavaScript with the u
// flag and matches the probes as Go's regexp does.
func TestPatternsAgreeWithJavaScript(t *testing.T) {
	table := readPortableTable(t)
	patterns := slices.Concat(table.Patterns.Portable, randomPatterns(20000))
	for p := range table.Patterns.Refused {
		patterns = append(patterns, p)
	}
	out := compileScript(t, map[string]any{"patterns": patterns, "probes": probes}, false)
	if len(out.Patterns) != len(patterns) {
		t.Fatalf("%d results for %d patterns", len(out.Patterns), len(patterns))
	}
	accepted, conservative := 0, 0
	for i, p := range patterns {
		js := out.Patterns[i]
		if checkPattern(p) != nil {
			if _, err := regexp.Compile(p); err == nil && js.Error == "" {
				conservative++
			}
			continue
		}
		accepted++
		if js.Error != "" {
			t.Errorf("%q is accepted, but JavaScript refuses it: %s", p, js.Error)
			continue
		}
		re := regexp.MustCompile(p)
		for j, s := range probes {
			if got := re.MatchString(s); got != js.Matches[j] {
				t.Errorf("%q on %q: Go matches %v, JavaScript %v", p, s, got, js.Matches[j])
			}
		}
	}
	t.Logf("%d patterns: %d accepted, all alike in JavaScript; %d refused though both compile them", len(patterns), accepted, conservative)
}

// Every schema the host accepts from the table, and the deepest it
// accepts, compiles with the TypeScript SDK's validator, alone and all in
// one client twice.
func TestPortableSchemasCompileWithAjv(t *testing.T) {
	table := readPortableTable(t)
	schemas := map[string]json.RawMessage{
		"nested":    json.RawMessage(nested(maxDepth)),
		"ref-chain": json.RawMessage(refChain(deepestAccepted(t, refChain))),
	}
	for name, raw := range table.Schemas.Portable {
		schemas[name] = raw
	}
	for name, raw := range schemas {
		if _, err := Compile(raw); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	out := compileScript(t, map[string]any{"schemas": schemas}, true)
	for name := range schemas {
		if msg, ok := out.Schemas[name]; !ok || msg != "" {
			t.Errorf("%s: the TypeScript SDK's validator cannot compile it: %s", name, msg)
		}
	}
	if out.Shared != "" {
		t.Errorf("one client compiling every schema twice: %s", out.Shared)
	}
	refused := map[string]json.RawMessage{}
	for name, c := range table.Schemas.Refused {
		refused[name] = c.Schema
	}
	var compiles []string
	for name, msg := range compileScript(t, map[string]any{"schemas": refused}, true).Schemas {
		if msg == "" {
			compiles = append(compiles, name)
		}
	}
	slices.Sort(compiles)
	t.Logf("refused by the host though ajv compiles them (a different reading, or a registry shared between tools): %v", compiles)
}
