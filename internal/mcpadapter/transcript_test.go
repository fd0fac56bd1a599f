package mcpadapter

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the server lines of testdata/transcripts from what the server says")

// TestTranscripts replays the JSON-RPC edge cases of testdata/transcripts,
// each over stdio and over HTTP, as go-sdk keeps its conformance cases: one
// txtar archive a case, its comment saying what the case shows, and these
// files:
//
//	transcript  the exchange (below)
//	tools       optional: the tools the host serves, one name a line
//	http        optional: "stateless" (HTTPOptions.Stateless), or a header
//	            "Name: value" sent with every request
//
// In the transcript, "> LINE" is a line the client sends (over HTTP, the
// body of one POST) and each "< LINE" that follows one the server sends
// back (over HTTP, the response's JSON body or one event of its stream; the
// events answering a batch compare in any order).
// Over HTTP a response has status 200, or 202 without a body, unless a
// server line names another: "< 400 LINE". A prefix of "stdio" or "http"
// keeps a line to that transport ("stdio< LINE", "http< 400"). Lines
// starting with # are comments. Server lines compare byte for byte.
//
// Run one case with -run 'TestTranscripts/NAME/stdio'; -update rewrites the
// server lines from what the server says.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "transcripts", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		tr := loadTranscript(t, file)
		t.Run(tr.name, func(t *testing.T) {
			var stdio [][]string
			var http []answer
			t.Run("stdio", func(t *testing.T) { stdio = tr.replayStdio(t) })
			t.Run("http", func(t *testing.T) { http = tr.replayHTTP(t) })
			if *update && !t.Failed() {
				tr.write(t, stdio, http)
			}
		})
	}
}

// A transcript is one case: the host it runs against and its exchanges.
type transcript struct {
	name, path string
	archive    *txtar.Archive
	tools      []string
	stateless  bool
	header     http.Header
	exchanges  []exchange
}

// An exchange is one client line and what the server sends back.
type exchange struct {
	notes []string // the comments and blank lines before it, kept by -update
	only  string   // "stdio" or "http" if sent on that transport alone
	send  string
	stdio []string
	http  answer
}

// An answer is what an HTTP response carries.
type answer struct {
	status int // 0: 200 with lines, 202 without
	lines  []string
}

func (a answer) statusOr() int {
	switch {
	case a.status != 0:
		return a.status
	case len(a.lines) > 0:
		return http.StatusOK
	}
	return http.StatusAccepted
}

func loadTranscript(t *testing.T, path string) *transcript {
	t.Helper()
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr := &transcript{name: strings.TrimSuffix(filepath.Base(path), ".txtar"), path: path,
		archive: txtar.Parse(content), header: http.Header{}}
	for _, f := range tr.archive.Files {
		switch f.Name {
		case "tools":
			tr.tools = strings.Fields(string(f.Data))
		case "http":
			for _, l := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
				if name, value, ok := strings.Cut(l, ":"); ok {
					tr.header.Set(name, strings.TrimSpace(value))
				} else if l == "stateless" {
					tr.stateless = true
				} else {
					t.Fatalf("%s: http option %q", path, l)
				}
			}
		case "transcript":
			if tr.exchanges, err = parseExchanges(string(f.Data)); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		default:
			t.Fatalf("%s: unexpected file %q", path, f.Name)
		}
	}
	if len(tr.exchanges) == 0 {
		t.Fatalf("%s: no transcript", path)
	}
	return tr
}

func parseExchanges(text string) ([]exchange, error) {
	var exchanges []exchange
	var notes []string
	for n, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			notes = append(notes, l)
			continue
		}
		only, rest, _ := strings.Cut(l, " ")
		only, dir := only[:len(only)-1], only[len(only)-1]
		if only != "" && only != "stdio" && only != "http" || dir != '>' && dir != '<' {
			return nil, fmt.Errorf("line %d: %q is neither a client nor a server line", n+1, l)
		}
		if dir == '>' {
			exchanges = append(exchanges, exchange{notes: notes, only: only, send: rest})
			notes = nil
			continue
		}
		if len(exchanges) == 0 {
			return nil, fmt.Errorf("line %d: a server line before any client line", n+1)
		}
		e := &exchanges[len(exchanges)-1]
		if only != "stdio" {
			// "400 LINE" or "400": an HTTP status, then the line if any.
			code, line, _ := strings.Cut(rest, " ")
			if status, err := strconv.Atoi(code); err == nil && len(code) == 3 {
				if e.http.status != 0 && e.http.status != status {
					return nil, fmt.Errorf("line %d: a second status, %d", n+1, status)
				}
				e.http.status, rest = status, line
			}
			if rest != "" {
				e.http.lines = append(e.http.lines, rest)
			}
		}
		if only != "http" && rest != "" {
			e.stdio = append(e.stdio, rest)
		}
	}
	return exchanges, nil
}

// skipUnless skips a replay over transport when no line is sent on it.
func (tr *transcript) skipUnless(t *testing.T, transport string) {
	t.Helper()
	for _, e := range tr.exchanges {
		if e.only == "" || e.only == transport {
			return
		}
	}
	t.Skipf("no line for %s", transport)
}

func (tr *transcript) adapter(t *testing.T) *Adapter {
	a := New(echoHost(tr.tools...), Options{})
	t.Cleanup(a.Close)
	return a
}

// replayStdio sends the exchanges' lines to Serve, one at a time, reading what
// each is answered with before the next, and then closes the input: Serve
// must answer nothing more, and end. It returns the lines each exchange got.
func (tr *transcript) replayStdio(t *testing.T) [][]string {
	tr.skipUnless(t, "stdio")
	a := tr.adapter(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- a.Serve(testContext(t), inR, outW)
		outW.Close()
	}()
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		out := bufio.NewReaderSize(outR, 1<<20)
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				return
			}
			lines <- strings.TrimSuffix(line, "\n")
		}
	}()
	ctx := testContext(t)
	got := make([][]string, len(tr.exchanges))
	for i, e := range tr.exchanges {
		if e.only == "http" {
			continue
		}
		if _, err := io.WriteString(inW, e.send+"\n"); err != nil {
			t.Fatalf("send %s: %v", e.send, err)
		}
		// -update cannot know how many lines will come: it takes those that
		// come before a pause.
		for n := 0; *update || n < len(e.stdio); n++ {
			var pause <-chan time.Time
			if *update {
				pause = time.After(updatePause)
			}
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("after %s: the output ended", e.send)
				}
				got[i] = append(got[i], line)
				continue
			case <-ctx.Done():
				t.Fatalf("after %s: no line %d", e.send, n+1)
			case <-pause:
			}
			break
		}
		if !tr.compare(t, e.send, got[i], e.stdio) {
			t.FailNow() // what follows would be read out of step
		}
	}
	inW.Close()
	var rest []string
	for l := range lines {
		rest = append(rest, l)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve = %v", err)
	}
	if len(rest) > 0 {
		t.Errorf("after the last line, the server also sent:\n%s", strings.Join(rest, "\n"))
	}
	return got
}

// updatePause is how long -update waits for another line on stdio.
const updatePause = 500 * time.Millisecond

// replayHTTP posts the exchanges' lines, one request each, as a client of a
// session does: with the session's id once it has one, and the protocol
// version the initialize answer names.
func (tr *transcript) replayHTTP(t *testing.T) []answer {
	tr.skipUnless(t, "http")
	srv := httptest.NewServer(tr.adapter(t).HTTPHandler(HTTPOptions{Stateless: tr.stateless}))
	t.Cleanup(srv.Close)
	var session, protocol string
	got := make([]answer, len(tr.exchanges))
	for i, e := range tr.exchanges {
		if e.only == "stdio" {
			continue
		}
		req, err := http.NewRequestWithContext(testContext(t), http.MethodPost, srv.URL+"/mcp", strings.NewReader(e.send))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		if protocol != "" {
			req.Header.Set("Mcp-Protocol-Version", protocol)
		}
		for name := range tr.header {
			req.Header.Set(name, tr.header.Get(name))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got[i] = readAnswer(t, resp)
		want := e.http.lines
		if strings.HasPrefix(e.send, "[") {
			// A batch's answers are events of one stream, in the order its
			// calls end: JSON-RPC lets them come in any.
			slices.Sort(got[i].lines)
			want = slices.Sorted(slices.Values(want))
		}
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			session = id
		}
		for _, l := range got[i].lines {
			var init struct {
				Result struct{ ProtocolVersion string }
			}
			if json.Unmarshal([]byte(l), &init) == nil && init.Result.ProtocolVersion != "" {
				protocol = init.Result.ProtocolVersion
			}
		}
		if got, want := got[i].statusOr(), e.http.statusOr(); got != want && !*update {
			t.Errorf("%s: status %d, want %d", e.send, got, want)
		}
		tr.compare(t, e.send, got[i].lines, want)
	}
	return got
}

// readAnswer reads a response: its JSON body, the data of each event of its
// stream, or its text.
func readAnswer(t *testing.T, resp *http.Response) answer {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{status: resp.StatusCode}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for l := range strings.Lines(string(body)) {
			if data, ok := strings.CutPrefix(strings.TrimSuffix(l, "\n"), "data: "); ok {
				a.lines = append(a.lines, data)
			}
		}
	} else if b := bytes.TrimSpace(body); len(b) > 0 {
		a.lines = append(a.lines, string(b))
	}
	return a
}

// compare reports whether the lines sent got are those wanted.
func (tr *transcript) compare(t *testing.T, sent string, got, want []string) bool {
	t.Helper()
	if !slices.Equal(got, want) && !*update {
		t.Errorf("%s\nanswered:\n%s\nwant:\n%s", sent, strings.Join(got, "\n"), strings.Join(want, "\n"))
		return false
	}
	return true
}

// write rewrites the transcript's server lines from what the server sent.
func (tr *transcript) write(t *testing.T, stdio [][]string, answers []answer) {
	var b strings.Builder
	for i, e := range tr.exchanges {
		for _, n := range e.notes {
			b.WriteString(n + "\n")
		}
		b.WriteString(e.only + "> " + e.send + "\n")
		h := answers[i]
		status := ""
		if h.statusOr() != (answer{lines: h.lines}).statusOr() {
			status = strconv.Itoa(h.status)
		}
		withStatus := func(l string) string {
			defer func() { status = "" }()
			return strings.TrimSpace(status + " " + l)
		}
		switch {
		case e.only == "" && slices.Equal(stdio[i], h.lines):
			for _, l := range stdio[i] {
				b.WriteString("< " + withStatus(l) + "\n")
			}
		default:
			if e.only != "http" {
				for _, l := range stdio[i] {
					b.WriteString("stdio< " + l + "\n")
				}
			}
			if e.only != "stdio" {
				for _, l := range h.lines {
					b.WriteString("http< " + withStatus(l) + "\n")
				}
			}
		}
		if status != "" {
			b.WriteString("http< " + status + "\n")
		}
	}
	for i, f := range tr.archive.Files {
		if f.Name == "transcript" {
			tr.archive.Files[i].Data = []byte(b.String())
		}
	}
	if err := os.WriteFile(tr.path, txtar.Format(tr.archive), 0o666); err != nil {
		t.Fatal(err)
	}
}
