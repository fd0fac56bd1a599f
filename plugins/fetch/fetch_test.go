package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
	"github.com/wasmcp/wasmcp/sdk-guest/go/wasmcptest"
)

const article = `<!DOCTYPE html>
<html lang="en">
<head><title>Gophers</title><style>body { color: red }</style><script>alert("no")</script></head>
<body>
<nav><a href="/">Home</a></nav>
<article>
<h1>About gophers</h1>
<p>Gophers are <strong>small</strong> rodents; see <a href="/wiki/Rodent">rodents</a>.</p>
<ul><li>Burrows</li><li>Cheek pouches</li></ul>
<table><tr><th>Name</th><th>Length</th></tr><tr><td>Pocket gopher</td><td>20 cm</td></tr></table>
<pre><code>go run .</code></pre>
</article>
</body>
</html>`

// site serves the pages the tests fetch, and records the last request.
type site struct {
	last *http.Request
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.last = r
	switch r.URL.Path {
	case "/article":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, article)
	case "/untyped":
		w.Header()["Content-Type"] = nil // no sniffing by the recorder
		fmt.Fprint(w, article)
	case "/data.json":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"a": [1, 2, 3], "b": "<b>not html</b>"}`)
	case "/long.txt":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("0123456789", 25)+"é€😀")
	case "/image.png":
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
	case "/empty":
		w.Header().Set("Content-Type", "text/html")
	case "/script-only":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><script src="app.js"></script></head><body><div id="root"></div></body></html>`)
	default:
		http.NotFound(w, r)
	}
}

func serve(t *testing.T) *site {
	s := &site{}
	wasmcptest.ServeHTTP(t, s)
	return s
}

func call(t *testing.T, args string) *wasmcptest.Result {
	t.Helper()
	return wasmcptest.Call(t, "fetch", args)
}

func wantOK(t *testing.T, res *wasmcptest.Result) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", res.Text())
	}
	return res.Text()
}

func wantError(t *testing.T, res *wasmcptest.Result, parts ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a tool error, got %s", res.Text())
	}
	for _, p := range parts {
		if !strings.Contains(res.Text(), p) {
			t.Errorf("error %q lacks %q", res.Text(), p)
		}
	}
}

func TestHTMLToMarkdown(t *testing.T) {
	s := serve(t)
	got := wantOK(t, call(t, `{"url":"https://example.org/article"}`))
	for _, want := range []string{
		"Contents of https://example.org/article (HTML as Markdown):\n",
		"# About gophers",
		"Gophers are **small** rodents; see [rodents](https://example.org/wiki/Rodent).",
		"- Burrows\n- Cheek pouches",
		"| Name | Length |",
		"| Pocket gopher | 20 cm |",
		"```\ngo run .\n```",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("result lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"<p>", "alert", "color: red", "Gophers</title>"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("result holds %q:\n%s", unwanted, got)
		}
	}
	if ua := s.last.Header.Get("User-Agent"); ua != userAgent {
		t.Errorf("User-Agent %q", ua)
	}
	if s.last.Method != http.MethodGet {
		t.Errorf("method %s", s.last.Method)
	}

	// Without a content type, the markup says it is HTML.
	if got := wantOK(t, call(t, `{"url":"https://example.org/untyped"}`)); !strings.Contains(got, "# About gophers") {
		t.Errorf("untyped HTML:\n%s", got)
	}
}

func TestRaw(t *testing.T) {
	serve(t)
	got := wantOK(t, call(t, `{"url":"https://example.org/article","raw":true,"maxLength":100000}`))
	if want := "Contents of https://example.org/article (text/html):\n" + article; got != want {
		t.Errorf("raw = %q, want %q", got, want)
	}
}

func TestTextAsItIs(t *testing.T) {
	serve(t)
	got := wantOK(t, call(t, `{"url":"https://example.org/data.json"}`))
	if want := "Contents of https://example.org/data.json (application/json):\n" + `{"a": [1, 2, 3], "b": "<b>not html</b>"}`; got != want {
		t.Errorf("json = %q, want %q", got, want)
	}
	got = wantOK(t, call(t, `{"url":"https://example.org/empty"}`))
	if !strings.HasSuffix(got, "(the response is empty)") {
		t.Errorf("empty = %q", got)
	}
}

func TestPaging(t *testing.T) {
	serve(t)
	// 250 digits, then three characters of two, three and four bytes.
	const url = `"url":"https://example.org/long.txt"`
	got := wantOK(t, call(t, `{`+url+`,"maxLength":100}`))
	want := "Contents of https://example.org/long.txt (text/plain), characters 0 to 100 of 253:\n" +
		strings.Repeat("0123456789", 10) +
		"\n\n<error>Content truncated. Call the fetch tool with a startIndex of 100 to get more content.</error>"
	if got != want {
		t.Errorf("first part = %q, want %q", got, want)
	}
	got = wantOK(t, call(t, `{`+url+`,"maxLength":2,"startIndex":250}`))
	if want := "characters 250 to 252 of 253:\né€\n\n<error>Content truncated. Call the fetch tool with a startIndex of 252"; !strings.Contains(got, want) {
		t.Errorf("a part of multi-byte characters = %q, want %q", got, want)
	}
	got = wantOK(t, call(t, `{`+url+`,"maxLength":100,"startIndex":200}`))
	if !strings.HasSuffix(got, "characters 200 to 253 of 253:\n"+strings.Repeat("0123456789", 5)+"é€😀") {
		t.Errorf("last part = %q", got)
	}
	if got := wantOK(t, call(t, `{`+url+`}`)); strings.Contains(got, "truncated") || !strings.HasSuffix(got, "😀") {
		t.Errorf("whole = %q", got)
	}
	wantError(t, call(t, `{`+url+`,"startIndex":253}`), "startIndex 253 is past the end", "253 characters")

	// The schema refuses what the reference server refuses.
	for _, tc := range []struct{ name, args string }{
		{"zero length", `"maxLength":0`},
		{"huge length", `"maxLength":1000000`},
		{"negative start", `"startIndex":-1`},
		{"fractional length", `"maxLength":1.5`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, call(t, `{`+url+`,`+tc.args+`}`))
		})
	}
}

func TestErrors(t *testing.T) {
	serve(t)
	wantError(t, call(t, `{"url":"https://example.org/missing"}`), "https://example.org/missing", "HTTP status 404")
	wantError(t, call(t, `{"url":"https://example.org/image.png"}`), "image/png (10 bytes), not text")
	wantError(t, call(t, `{"url":"https://example.org/script-only"}`), "no text once converted", "raw: true")
	wantError(t, call(t, `{}`), "url")
}

// A request the host's policy refuses is an error naming the rule.
func TestDenied(t *testing.T) {
	prev := send
	t.Cleanup(func() { send = prev })
	send = func(wasmcp.HTTPRequest) (*wasmcp.HTTPResponse, error) {
		return nil, &wasmcp.RequestError{Status: abi.StatusDenied, Message: "https://169.254.169.254 is not in plugin fetch's net policy"}
	}
	wantError(t, call(t, `{"url":"https://169.254.169.254/latest/meta-data/"}`),
		"fetch https://169.254.169.254/latest/meta-data/: denied: https://169.254.169.254 is not in plugin fetch's net policy")
}
