package uritemplate

import (
	"maps"
	"strings"
	"testing"
	"time"
)

// TestMatchRFC6570 matches the expansions of RFC 6570's examples (sections
// 1.2 and 3.2, with var = "value", hello = "Hello World!", path =
// "/foo/bar", empty = "", x = "1024", y = "768", undef undefined) back to
// their variables.
func TestMatchRFC6570(t *testing.T) {
	for _, tc := range []struct {
		template, uri string
		want          map[string]string
	}{
		// Level 1
		{"{var}", "value", map[string]string{"var": "value"}},
		{"{hello}", "Hello%20World%21", map[string]string{"hello": "Hello World!"}},
		// Level 2
		{"{+var}", "value", map[string]string{"var": "value"}},
		{"{+hello}", "Hello%20World!", map[string]string{"hello": "Hello World!"}},
		{"{+path}/here", "/foo/bar/here", map[string]string{"path": "/foo/bar"}},
		{"here?ref={+path}", "here?ref=/foo/bar", map[string]string{"path": "/foo/bar"}},
		{"X{#var}", "X#value", map[string]string{"var": "value"}},
		{"X{#hello}", "X#Hello%20World!", map[string]string{"hello": "Hello World!"}},
		// Level 3
		{"map?{x,y}", "map?1024,768", map[string]string{"x": "1024", "y": "768"}},
		{"{x,hello,y}", "1024,Hello%20World%21,768", map[string]string{"x": "1024", "hello": "Hello World!", "y": "768"}},
		{"{+x,hello,y}", "1024,Hello%20World!,768", map[string]string{"x": "1024", "hello": "Hello World!", "y": "768"}},
		{"{+path,x}/here", "/foo/bar,1024/here", map[string]string{"path": "/foo/bar", "x": "1024"}},
		{"{#x,hello,y}", "#1024,Hello%20World!,768", map[string]string{"x": "1024", "hello": "Hello World!", "y": "768"}},
		{"{#path,x}/here", "#/foo/bar,1024/here", map[string]string{"path": "/foo/bar", "x": "1024"}},
		{"X{.var}", "X.value", map[string]string{"var": "value"}},
		{"X{.x,y}", "X.1024.768", map[string]string{"x": "1024", "y": "768"}},
		{"{/var}", "/value", map[string]string{"var": "value"}},
		{"{/var,x}/here", "/value/1024/here", map[string]string{"var": "value", "x": "1024"}},
		{"{;x,y}", ";x=1024;y=768", map[string]string{"x": "1024", "y": "768"}},
		{"{;x,y,empty}", ";x=1024;y=768;empty", map[string]string{"x": "1024", "y": "768", "empty": ""}},
		{"{?x,y}", "?x=1024&y=768", map[string]string{"x": "1024", "y": "768"}},
		{"{?x,y,empty}", "?x=1024&y=768&empty=", map[string]string{"x": "1024", "y": "768", "empty": ""}},
		{"?fixed=yes{&x}", "?fixed=yes&x=1024", map[string]string{"x": "1024"}},
		{"{&x,y,empty}", "&x=1024&y=768&empty=", map[string]string{"x": "1024", "y": "768", "empty": ""}},
		// Level 4, prefix modifier
		{"{var:3}", "val", map[string]string{"var": "val"}},
		{"{var:30}", "value", map[string]string{"var": "value"}},
		{"{+path:6}/here", "/foo/b/here", map[string]string{"path": "/foo/b"}},
		{"{#path:6}/here", "#/foo/b/here", map[string]string{"path": "/foo/b"}},
		{"X{.var:3}", "X.val", map[string]string{"var": "val"}},
		{"{;hello:5}", ";hello=Hello", map[string]string{"hello": "Hello"}},
		{"{?var:3}", "?var=val", map[string]string{"var": "val"}},
		// Undefined variables write nothing.
		{"X{.undef}", "X", map[string]string{}},
		{"{?x,undef,y}", "?x=1024&y=768", map[string]string{"x": "1024", "y": "768"}},
		{"{?x,y}", "?y=768", map[string]string{"y": "768"}},
	} {
		t.Run(tc.template, func(t *testing.T) {
			tmpl, err := Parse(tc.template)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := tmpl.Match(tc.uri)
			if !ok || !maps.Equal(got, tc.want) {
				t.Errorf("Match(%q) = %v, %v, want %v", tc.uri, got, ok, tc.want)
			}
		})
	}
}

func TestMatchResourceURIs(t *testing.T) {
	for _, tc := range []struct {
		template, uri string
		want          map[string]string // nil: no match
	}{
		{"notes://{id}", "notes://42", map[string]string{"id": "42"}},
		{"notes://{id}", "notes://", map[string]string{"id": ""}},
		{"notes://{id}", "notes://a/b", nil}, // '/' is reserved
		{"notes://{id}", "notes://a%2Fb", map[string]string{"id": "a/b"}},
		{"notes://{id}", "other://42", nil},
		{"notes://{id}", "notes://caf%C3%A9", map[string]string{"id": "café"}},
		{"notes://{id}", "notes://café", map[string]string{"id": "café"}}, // an IRI
		{"notes://{id}", "notes://%FF", nil},                              // not UTF-8
		{"notes://{id}", "notes://%2", nil},
		{"file:///{+path}", "file:///docs/a b", nil},
		{"file:///{+path}", "file:///docs/a%20b.txt", map[string]string{"path": "docs/a b.txt"}},
		{"file:///{+path}.json", "file:///a.json.json", map[string]string{"path": "a.json"}},
		{"files://{name}{.ext}", "files://a.tar.gz", map[string]string{"name": "a", "ext": "tar.gz"}},
		{"repo://{owner}/{repo}/issues{/n}", "repo://go/go/issues/7", map[string]string{"owner": "go", "repo": "go", "n": "7"}},
		{"repo://{owner}/{repo}/issues{/n}", "repo://go/go/issues", map[string]string{"owner": "go", "repo": "go"}},
		{"search://q{?q,lang}", "search://q?q=a%26b&lang=go", map[string]string{"q": "a&b", "lang": "go"}},
		{"search://q{?q}", "search://q?q=..", map[string]string{"q": ".."}}, // a query is no path
		{"search://q{?q,lang}", "search://q?lang=go&q=a", nil},              // in the template's order
		{"x://{?ab,a}", "x://?a=1", map[string]string{"a": "1"}},
		{"short://{id:2}", "short://abc", nil},
		{"short://{id:2}", "short://%C3%A9%C3%A9", map[string]string{"id": "éé"}},
		// Dot segments in a path value, plain or encoded, never match.
		{"file:///{+path}", "file:///a/../b", nil},
		{"file:///{+path}", "file:///a/%2E%2E/b", nil},
		{"file:///{+path}", "file:///.", nil},
		{"notes://{id}", "notes://..%2Fsecret", nil},
		{"notes://{id}", "notes://..", nil},
		{"notes://{id}", "notes://...", map[string]string{"id": "..."}},
	} {
		t.Run(tc.template+" "+tc.uri, func(t *testing.T) {
			tmpl, err := Parse(tc.template)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := tmpl.Match(tc.uri)
			if ok != (tc.want != nil) || !maps.Equal(got, tc.want) {
				t.Errorf("Match(%q) = %v, %v, want %v", tc.uri, got, ok, tc.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	tmpl, err := Parse("repo://{owner}/{repo}{/path:10}{?ref,q}")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tmpl.Names(), ","); got != "owner,repo,path,ref,q" {
		t.Errorf("names %s", got)
	}
	for _, tc := range []struct{ template, err string }{
		{"x://{a", "not closed"},
		{"x://a}", "outside an expression"},
		{"x://{}", "not a variable name"},
		{"x://{a b}", "not a variable name"},
		{"x://{a..b}", "not a variable name"},
		{"x://{=a}", "reserved"},
		{"x://{a*}", "explode modifier"},
		{"x://{/a*}", "write {+a}"},
		{"x://{a:0}", "prefix modifier"},
		{"x://{a:10000}", "prefix modifier"},
		{"x://{a:01}", "prefix modifier"},
		{"x://{a}/{a}", `"a" appears twice`},
		{"x://a b/{a}", "not allowed"},
		{"x://%zz/{a}", "hexadecimal"},
	} {
		if _, err := Parse(tc.template); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Parse(%q): %v, want %q", tc.template, err, tc.err)
		}
	}
}

// TestMatchIsPolynomial matches a template of many expressions against a
// long URI that none of their assignments expands to: without the memo of
// failed states the search would not end.
func TestMatchIsPolynomial(t *testing.T) {
	tmpl, err := Parse("x://{+a}{+b}{+c}{+d}{+e}{+f}{+g}{+h}!")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bool, 1)
	go func() {
		_, ok := tmpl.Match("x://" + strings.Repeat("a", 400) + "?")
		done <- ok
	}()
	select {
	case ok := <-done:
		if ok {
			t.Error("matched")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Match has not returned after 10 s")
	}
}
