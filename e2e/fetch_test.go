package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wasmcp/wasmcp/internal/egresstest"
)

// fetchPlugin is the bundled plugins/fetch module.
func fetchPlugin(t *testing.T) string {
	t.Helper()
	path := filepath.Join(pluginsDir, "fetch.wasm")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%v (make plugins builds it)", err)
	}
	return path
}

// site serves testdata/article.html, a page as sites write them, at
// /animals/gopher.html and a JSON document at /api/gopher.json, and keeps
// the User-Agent of the last request.
type site struct {
	*egresstest.Server
	mu        sync.Mutex
	userAgent string
}

func newSite(t *testing.T) *site {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "e2e", "testdata", "article.html"))
	if err != nil {
		t.Fatal(err)
	}
	s := &site{}
	s.Server = egresstest.NewServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.userAgent = r.Header.Get("User-Agent")
		s.mu.Unlock()
		switch r.URL.Path {
		case "/animals/gopher.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(page)
		case "/api/gopher.json":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(gopherJSON))
		default:
			http.NotFound(w, r)
		}
	})
	return s
}

const gopherJSON = `{"species": "Thomomys bottae", "length_cm": [18, 25]}`

// articleMarkdown are pieces of the Markdown that article.html becomes:
// headings, emphasis, links made absolute, lists, a quote, a table, code.
func articleMarkdown(origin string) []string {
	return []string{
		"# The Pocket Gopher\n",
		"Pocket gophers are **burrowing rodents** of the family *Geomyidae*",
		"[hundreds of metres](" + origin + "/measurements/tunnels.html)",
		"## Where they live\n",
		"- Grasslands and meadows\n",
		"~~welcome~~ often unwelcome",
		"1. Roots and tubers\n2. Bulbs\n",
		"> A gopher will pull a whole plant down into its tunnel by the roots.",
		"| Species | Length | Weight |\n|---|---|---|\n| Botta's pocket gopher | 18–25 cm | 160–250 g |",
		"```go\nmounds := countMounds(plot)\n",
		"![A pocket gopher at its burrow](" + origin + "/images/gopher.jpg)",
	}
}

// What a page's markup holds besides its text: none of it reaches the model.
var notInMarkdown = []string{"<p", "<div", "gtag", "font-family", "stylesheet", "The Pocket Gopher - Field Notes", "you@example.org"}

func checkArticle(t *testing.T, got, origin string) {
	t.Helper()
	if want := "Contents of " + origin + "/animals/gopher.html (HTML as Markdown):\n"; !strings.HasPrefix(got, want) {
		t.Errorf("result does not start with %q:\n%s", want, got)
	}
	for _, want := range articleMarkdown(origin) {
		if !strings.Contains(got, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range notInMarkdown {
		if strings.Contains(got, unwanted) {
			t.Errorf("the Markdown holds %q:\n%s", unwanted, got)
		}
	}
}

// The bundled fetch plugin, served by the binary with a policy granting it
// one loopback origin, turns a real page into Markdown, pages it, passes
// JSON through and is refused any other origin; served without a policy it
// reaches nothing.
func TestFetchWithTheGoClient(t *testing.T) {
	t.Run("no policy", func(t *testing.T) {
		unreached := egresstest.NewServer(t, false, hello)
		s := startServer(t, servedCopy(t, fetchPlugin(t)), serverOptions{protocol: legacyProtocol})
		wantToolError(t, s.call(t, "fetch", request(t, unreached.URL+"/")),
			"fetch "+unreached.URL+"/: denied: "+unreached.Origin+" is not in plugin fetch's net policy")
		if n := unreached.Conns(); n != 0 {
			t.Errorf("the server counted %d connections", n)
		}
	})

	site := newSite(t)
	refused := egresstest.NewServer(t, false, hello)
	s := servePlugin(t, fetchPlugin(t), "fetch", `{"net":["`+site.Origin+`"]}`)

	res := s.call(t, "fetch", request(t, site.URL+"/animals/gopher.html"))
	wantOK(t, res)
	checkArticle(t, text(res), site.Origin)
	site.mu.Lock()
	if !strings.HasPrefix(site.userAgent, "wasmcp-fetch/") {
		t.Errorf("User-Agent %q", site.userAgent)
	}
	site.mu.Unlock()

	res = s.call(t, "fetch", `{"url":"`+site.URL+`/animals/gopher.html","maxLength":300}`)
	wantOK(t, res)
	if got := text(res); !strings.Contains(got, "characters 0 to 300 of ") || !strings.HasSuffix(got, "Call the fetch tool with a startIndex of 300 to get more content.</error>") {
		t.Errorf("first part:\n%s", got)
	}
	res = s.call(t, "fetch", `{"url":"`+site.URL+`/animals/gopher.html","maxLength":300,"startIndex":300}`)
	wantOK(t, res)
	if got := text(res); !strings.Contains(got, "characters 300 to 600 of ") {
		t.Errorf("second part:\n%s", got)
	}

	res = s.call(t, "fetch", request(t, site.URL+"/api/gopher.json"))
	wantOK(t, res)
	if got, want := text(res), "Contents of "+site.URL+"/api/gopher.json (application/json):\n"+gopherJSON; got != want {
		t.Errorf("JSON = %q, want %q", got, want)
	}
	wantToolError(t, s.call(t, "fetch", request(t, site.URL+"/missing")), "HTTP status 404")

	wantToolError(t, s.call(t, "fetch", request(t, refused.URL+"/")), refused.Origin+" is not in plugin fetch's net policy")
	if n := refused.Conns(); n != 0 {
		t.Errorf("the refused server counted %d connections", n)
	}
}

// The TypeScript SDK's client gets the same Markdown, and a refused origin
// as a tool error naming the rule (e2e/ts/fetch.mjs).
func TestFetchWithTheTypeScriptClient(t *testing.T) {
	node, script := typescriptParser(t)
	script = filepath.Join(filepath.Dir(script), "fetch.mjs")
	site := newSite(t)
	refused := egresstest.NewServer(t, false, hello)
	dir := servedCopy(t, fetchPlugin(t))
	config := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(config, []byte(`{"plugins":{"fetch":{"net":["`+site.Origin+`"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(testContext(t), node, script, binPath, dir, cacheDir, config,
		request(t, site.URL+"/animals/gopher.html"), request(t, refused.URL+"/"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.Bytes())
	}
	type result struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	}
	var results []result
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("output line %q: %v", sc.Text(), err)
		}
		results = append(results, r)
	}
	if len(results) != 2 {
		t.Fatalf("want 2 results, got:\n%s", out)
	}
	if results[0].IsError {
		t.Errorf("the page: %s", results[0].Text)
	}
	checkArticle(t, results[0].Text, site.Origin)
	if !results[1].IsError || !strings.Contains(results[1].Text, refused.Origin+" is not in plugin fetch's net policy") {
		t.Errorf("the refused origin: %+v", results[1])
	}
	if n := refused.Conns(); n != 0 {
		t.Errorf("the refused server counted %d connections", n)
	}
}
