package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// Every tool of the bundled modules answers go-sdk's client with a readable
// result when called with {}, over stdio and HTTP. (TestBundledTools checks
// what each answers to valid arguments; e2e/ts/answers.test.mjs does both
// with the TypeScript client, which is stricter about structuredContent.)
func TestEveryToolAnswersEmptyArguments(t *testing.T) {
	for _, overHTTP := range []bool{false, true} {
		t.Run(map[bool]string{false: "stdio", true: "http"}[overHTTP], func(t *testing.T) {
			s := startServer(t, servedCopy(t, bundled(t)...), serverOptions{protocol: legacyProtocol, http: overHTTP})
			for name := range s.tools(t) {
				res := s.call(t, name, `{}`)
				if len(res.Content) == 0 || res.IsError && text(res) == "" {
					t.Errorf("%s({}): unreadable result %s", name, mustJSON(t, res))
				}
			}
		})
	}
}

// Every kind of error of a tool with an outputSchema reaches the client as
// a result whose text says what went wrong, without structuredContent that
// breaks the schema (e2e/testdata/structured.wat).
func TestStructuredToolErrors(t *testing.T) {
	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(`{"plugins":{"structured":{"timeout":"500ms","memory":"2MiB","maxOutput":"4KiB"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, overHTTP := range []bool{false, true} {
		t.Run(map[bool]string{false: "stdio", true: "http"}[overHTTP], func(t *testing.T) {
			s := startServer(t, servedCopy(t, wat("structured")), serverOptions{http: overHTTP, args: []string{"--config", policy}})
			for _, tc := range []struct {
				tool, args string
				isError    bool
				text       string
			}{
				{"ok", `{"n":1}`, false, `"n":1`},
				{"ok", `{"n":"one"}`, true, `invalid arguments for tool ok: at /n: got string, want number`},
				{"violate", `{}`, true, `returned structuredContent that does not match its outputSchema`},
				{"fail", `{}`, true, `^fail: the tool failed on purpose$`},
				{"quiet", `{}`, true, `^tool quiet failed without a message$`},
				{"malformed", `{}`, true, `returned a malformed result`},
				{"loop", `{}`, true, `timed out after 500ms`},
				{"grow", `{}`, true, `exceeded memory limit of 2 MiB`},
				{"big", `{}`, true, `over the limit|larger than|exceeds`},
				{"annotated", `{}`, true, `annotations.audience "alien" is neither "user" nor "assistant"`},
			} {
				t.Run(tc.tool, func(t *testing.T) {
					res := s.call(t, tc.tool, tc.args)
					if res.IsError != tc.isError || !regexp.MustCompile(tc.text).MatchString(text(res)) {
						t.Errorf("%s(%s) = %s, want isError %v and text matching %q", tc.tool, tc.args, mustJSON(t, res), tc.isError, tc.text)
					}
					if tc.isError && res.StructuredContent != nil {
						var sc map[string]any
						b, _ := json.Marshal(res.StructuredContent)
						_ = json.Unmarshal(b, &sc)
						if _, ok := sc["n"]; !ok {
							t.Errorf("%s: an error carries structuredContent %s that breaks the schema", tc.tool, b)
						}
					}
				})
			}
		})
	}
}
