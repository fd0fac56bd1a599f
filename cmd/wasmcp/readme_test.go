package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/internal/sigstore"
	"github.com/wasmcp/wasmcp/internal/sigstore/sigstoretest"
	"github.com/wasmcp/wasmcp/internal/testenv"
)

// codeBlock is one fenced block of a README section, with the prose that
// comes before it.
type codeBlock struct {
	lang, body, before string
}

// readmeSection returns the blocks of the section of the README (in the
// source tree) headed "## heading".
func readmeSection(t *testing.T, heading string) []codeBlock {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks []codeBlock
	var prose, body strings.Builder
	lang, inBlock := "", false
	for line := range strings.Lines(section) {
		fence, isFence := strings.CutPrefix(line, "```")
		switch {
		case isFence && !inBlock:
			lang, inBlock = strings.TrimSpace(fence), true
		case isFence:
			blocks = append(blocks, codeBlock{lang, body.String(), prose.String()})
			body.Reset()
			prose.Reset()
			inBlock = false
		case inBlock:
			body.WriteString(line)
		default:
			prose.WriteString(line)
		}
	}
	if inBlock {
		t.Fatalf("README.md, section %q: a code block is not closed", heading)
	}
	return blocks
}

// goFileName finds where the text before a Go block says to save it: the
// last `path.go` in it.
var goFileName = regexp.MustCompile("`([^`]+\\.go)`")

// TestReadmeFirstTool follows the README's "Your first tool, in Go" as a
// newcomer would, so that it cannot rot: in a directory laid out as a clone
// after make build (bin/wasmcp, built from this tree, and build/plugins),
// it runs each sh block, saves each Go block where the text before it says,
// and checks that the module landed in build/plugins and answered the call.
func TestReadmeFirstTool(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		testenv.Missing(t, "the README's first tool runs its project's tests with make: install make")
	}
	blocks := readmeSection(t, "Your first tool, in Go")
	clone := t.TempDir()
	for _, dir := range []string{"bin", filepath.Join("build", "plugins")} {
		if err := os.MkdirAll(filepath.Join(clone, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(buildWasmcp(t), filepath.Join(clone, "bin", "wasmcp")); err != nil {
		t.Fatal(err)
	}

	var output strings.Builder
	var ran []string // the kinds of block run, in order
	for i, b := range blocks {
		switch b.lang {
		case "go":
			names := goFileName.FindAllStringSubmatch(b.before, -1)
			if len(names) == 0 {
				t.Fatalf("Go block %d: the text before it names no file to save it as:\n%s", i, b.before)
			}
			name := filepath.Join(clone, filepath.FromSlash(names[len(names)-1][1]))
			if err := os.WriteFile(name, []byte(b.body), 0o644); err != nil {
				t.Fatalf("Go block %d: %v", i, err)
			}
		case "sh":
			cmd := exec.Command("bash", "-euo", "pipefail", "-c", b.body)
			cmd.Dir = clone
			cmd.Env = testEnv()
			out, err := cmd.CombinedOutput()
			output.Write(out)
			if err != nil {
				t.Fatalf("sh block %d:\n%s\nfailed: %v\n%s", i, b.body, err, out)
			}
		default:
			t.Fatalf("block %d: a %q block; this test runs sh and go blocks only", i, b.lang)
		}
		ran = append(ran, b.lang)
	}
	if got := strings.Join(ran, " "); got != "sh go sh" {
		t.Errorf("the section's blocks are %q; check that this test still follows it", got)
	}
	if _, err := os.Stat(filepath.Join(clone, "build", "plugins", "mytools.wasm")); err != nil {
		t.Errorf("no module in build/plugins, which make run serves: %v", err)
	}
	out := output.String()
	if !strings.Contains(out, `"slug": "hello-world"`) || strings.Contains(out, `"isError": true`) {
		t.Errorf("the section's commands printed\n%s\nwant the slug hello-world and no error", out)
	}
}

// TestReadmePolicies parses the policies of the README's "Network access",
// "Authorization" and "Resources, prompts and apps" as wasmcp would, so that
// the examples cannot drift from the format.
func TestReadmePolicies(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "x")
	for _, section := range []string{"Network access", "Authorization", "Resources, prompts and apps"} {
		t.Run(section, func(t *testing.T) {
			var found bool
			for _, b := range readmeSection(t, section) {
				if b.lang != "json" {
					continue
				}
				found = true
				if _, err := policy.Parse([]byte(b.body), t.TempDir()); err != nil {
					t.Errorf("the README's policy does not parse: %v\n%s", err, b.body)
				}
			}
			if !found {
				t.Errorf("README.md, %q: no json block", section)
			}
		})
	}
}

// TestReadmeOCIPolicies parses the policies of the README's "Plugins from
// OCI registries" — the Sigstore policies, the translation of a hyper-mcp
// configuration and Monty's — as wasmcp would.
func TestReadmeOCIPolicies(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cosign.pub"), sigstoretest.NewKey(t).PublicPEM(t), 0o600); err != nil {
		t.Fatal(err)
	}
	// Monty's policy mounts /srv/data, which a test machine lacks.
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	var policies, signers int
	for _, b := range readmeSection(t, "Plugins from OCI registries") {
		if b.lang != "json" {
			continue
		}
		var err error
		if strings.Contains(b.body, `"identities"`) {
			signers++
			_, err = sigstore.Parse([]byte(b.body), dir)
		} else {
			policies++
			_, err = policy.Parse([]byte(strings.ReplaceAll(b.body, `"/srv/data"`, `"`+data+`"`)), dir)
		}
		if err != nil {
			t.Errorf("a policy of the README does not parse: %v\n%s", err, b.body)
		}
	}
	if policies != 2 || signers != 3 {
		t.Errorf(`README.md, "Plugins from OCI registries": %d policies and %d Sigstore policies, want 2 and 3`, policies, signers)
	}
}
