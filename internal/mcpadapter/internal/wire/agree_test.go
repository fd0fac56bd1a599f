package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPreReaderAgreesWithGoSDK reads every line of FuzzJSONRPC's corpus
// (its seeds and testdata/fuzz/FuzzJSONRPC), as the stdio filter splits
// them, with the pre-reader of a fresh stdio connection and with go-sdk's
// own stdio reader. (Over HTTP the pre-reader is the same, without what a
// connection keeps: ids in flight, the session's protocol.)
//
// What the pre-reader passes on, go-sdk must read without error as the
// same messages: requests with the same ids and methods, responses with the
// same ids, and each call's id written back with the bytes the client sent.
//
// What it refuses, go-sdk must mishandle in one of these ways:
//
//   - unreadable: go-sdk's reader fails, and its stdio session ends (go-sdk
//     #1209): not JSON, not a message, a version tag other than "2.0", an
//     id neither string nor number, a response without a usable id, an
//     error that is not an error object, nesting past 1000 levels, an empty
//     batch, one id twice in a batch;
//   - another id: go-sdk reads it, but would answer or settle another id
//     than the bytes sent: a fraction, an exponent, beyond 2^53, -0, a
//     string with escapes JSON does not require, or not UTF-8;
//   - ambiguous: a member twice, of which go-sdk reads one, silently;
//   - unanswered: an id with neither method, result nor error, which
//     go-sdk reads as a response to nothing, so no answer ever comes;
//   - misread: a method of null, which go-sdk reads as the method "";
//
// or else be one of two bounds go-sdk does not have: a batch of more than
// MaxInFlight messages, and an integer id of 2^53 in magnitude, which
// go-sdk writes back exactly but which is past the integers a JavaScript
// client tells apart (2^53+1 reads as 2^53 there).
func TestPreReaderAgreesWithGoSDK(t *testing.T) {
	inputs := corpus(t)
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		input := inputs[name]
		t.Run(name, func(t *testing.T) {
			for n, line := range lines(input) {
				what := fmt.Sprintf("line %d (%s)", n, clip(line))
				switch class, problem := agree(t, line); {
				case problem != "":
					t.Errorf("%s: %s", what, problem)
				case class != "":
					t.Logf("%s: refused, %s", what, class)
				}
			}
		})
	}
}

// The corpus holds a line of every class, so that the agreement test shows
// each of them.
func TestAgreementCorpusHasEveryClass(t *testing.T) {
	seen := map[string]bool{}
	for _, input := range corpus(t) {
		for _, line := range lines(input) {
			class, _ := agree(t, line)
			seen[strings.SplitN(class, ":", 2)[0]] = true
		}
	}
	for _, class := range []string{"unreadable", "another id", "ambiguous", "unanswered", "misread", "bound"} {
		if !seen[class] {
			t.Errorf("no line of the corpus is refused as %s", class)
		}
	}
}

// lines yields the lines of a stdio input and their numbers, as the line
// filter reads them, without the empty ones.
func lines(input []byte) iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		r := bufio.NewReader(bytes.NewReader(input))
		for n := 1; ; n++ {
			line, _, err := readLine(r, mcp.DefaultMaxLineLength)
			if line = trimJSONSpace(line); len(line) > 0 && !yield(n, line) {
				return
			}
			if err != nil {
				return
			}
		}
	}
}

// agree checks one line: the class of its refusal, or "" when it is passed
// on, and what is wrong, if anything.
func agree(t *testing.T, line []byte) (class, problem string) {
	t.Helper()
	passed, refused := newConnState(testMaxInFlight).pass(bytes.Clone(line))
	if refused == nil {
		want, _, _ := decodeMessages(line, testMaxInFlight)
		got, err := goSDKRead(passed)
		if err != nil {
			return "", fmt.Sprintf("passed on, but go-sdk cannot read it: %v", err)
		}
		if g, w := describe(got), describeIncoming(want); !slices.Equal(g, w) {
			return "", fmt.Sprintf("go-sdk reads %v, the pre-reader %v", g, w)
		}
		for _, in := range want {
			if in.call() && !bytes.Equal(encodedID(t, in.id), trimJSONSpace(in.rawID)) {
				return "", fmt.Sprintf("id %s is answered as %s", in.rawID, encodedID(t, in.id))
			}
		}
		return "", ""
	}
	got, err := goSDKRead(append(bytes.Clone(line), '\n'))
	if how := mishandled(t, line, got, err); how != "" {
		return how, ""
	}
	if bound(t, line) {
		return "bound: " + refused.message, ""
	}
	return "", fmt.Sprintf("refused (%s), but go-sdk reads it as %v and would handle it", refused.message, describe(got))
}

// mishandled says how go-sdk mishandles line, which it read as msgs or
// failed to read with err; "" if it does not.
func mishandled(t *testing.T, line []byte, msgs []jsonrpc.Message, err error) string {
	t.Helper()
	if err != nil {
		return "unreadable: " + err.Error()
	}
	raws := messagesOf(t, line)
	if len(raws) != len(msgs) {
		t.Fatalf("go-sdk read %d messages of %d", len(msgs), len(raws))
	}
	for i, raw := range raws {
		members, err := objectMembers(raw)
		if err != nil {
			return "ambiguous: " + err.Error()
		}
		sent := trimJSONSpace(members["id"])
		switch m := msgs[i].(type) {
		case *jsonrpc.Request:
			if len(sent) > 0 && string(sent) != "null" && !bytes.Equal(encodedID(t, m.ID), sent) {
				return fmt.Sprintf("another id: %s read as %s", sent, encodedID(t, m.ID))
			}
			if method := trimJSONSpace(members["method"]); method[0] != '"' {
				return fmt.Sprintf("misread: method %s read as %q", method, m.Method)
			}
		case *jsonrpc.Response:
			if !bytes.Equal(encodedID(t, m.ID), sent) {
				return fmt.Sprintf("another id: %s read as %s", sent, encodedID(t, m.ID))
			}
			if members["result"] == nil && members["error"] == nil {
				return "unanswered: read as a response to nothing"
			}
		}
	}
	return ""
}

// bound reports whether line is over one of the pre-reader's bounds.
func bound(t *testing.T, line []byte) bool {
	t.Helper()
	raws := messagesOf(t, line)
	if line[0] == '[' && len(raws) > testMaxInFlight {
		return true
	}
	for _, raw := range raws {
		var m struct{ ID json.RawMessage }
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if id := string(trimJSONSpace(m.ID)); id == "9007199254740992" || id == "-9007199254740992" {
			return true
		}
	}
	return false
}

// messagesOf returns the messages of line, a message or a batch.
func messagesOf(t *testing.T, line []byte) []json.RawMessage {
	t.Helper()
	if line[0] != '[' {
		return []json.RawMessage{line}
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(line, &raws); err != nil {
		t.Fatal(err)
	}
	return raws
}

// goSDKRead returns the messages go-sdk's stdio connection reads from data,
// up to the first error other than the end of the input.
func goSDKRead(data []byte) ([]jsonrpc.Message, error) {
	ctx := context.Background()
	conn, err := (&mcp.IOTransport{Reader: io.NopCloser(bytes.NewReader(data)), Writer: discard{}}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var msgs []jsonrpc.Message
	for {
		msg, err := conn.Read(ctx)
		if errors.Is(err, io.EOF) {
			return msgs, nil
		}
		if err != nil {
			return msgs, err
		}
		msgs = append(msgs, msg)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }

// describe lists messages as "request ID METHOD" and "response ID", sorted:
// the filter may pass a batch's notifications on before its other messages.
func describe(msgs []jsonrpc.Message) []string {
	var d []string
	for _, m := range msgs {
		switch m := m.(type) {
		case *jsonrpc.Request:
			d = append(d, fmt.Sprintf("request %v %q", m.ID.Raw(), m.Method))
		case *jsonrpc.Response:
			d = append(d, fmt.Sprintf("response %v", m.ID.Raw()))
		}
	}
	slices.Sort(d)
	return d
}

func describeIncoming(msgs []incoming) []string {
	var d []string
	for _, in := range msgs {
		if in.request() {
			d = append(d, fmt.Sprintf("request %v %q", in.id.Raw(), in.method))
		} else {
			d = append(d, fmt.Sprintf("response %v", in.id.Raw()))
		}
	}
	slices.Sort(d)
	return d
}

// encodedID is the id as go-sdk writes it in a response.
func encodedID(t *testing.T, id jsonrpc.ID) []byte {
	t.Helper()
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ ID json.RawMessage }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.ID
}

// corpus returns FuzzJSONRPC's inputs by name: its seeds, and the files of
// its corpus directory.
func corpus(t *testing.T) map[string][]byte {
	t.Helper()
	inputs := map[string][]byte{}
	for i, s := range seeds {
		inputs[fmt.Sprintf("seed-%d", i)] = s
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzJSONRPC")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		// go test fuzz v1, then one []byte("...") literal.
		header, value, _ := strings.Cut(string(b), "\n")
		value = strings.TrimSpace(value)
		if header != "go test fuzz v1" || !strings.HasPrefix(value, "[]byte(") || !strings.HasSuffix(value, ")") {
			t.Fatalf("%s: not a corpus file of one []byte", e.Name())
		}
		s, err := strconv.Unquote(value[len("[]byte(") : len(value)-1])
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		inputs[e.Name()] = []byte(s)
	}
	return inputs
}
