package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
)

// adversaryIDs are request ids a client may send. Each must come back with
// the very bytes it was sent in, or be refused with -32600 and id null
// (SECURITY.md, "Hostile clients").
var adversaryIDs = []string{
	`1.5`, `9007199254740993`, `1e308`, `12345678901234567890`, `-0`, `0`, `-1`, `1E2`, `1e0`, `1.0`, `0.0`,
	`-9007199254740991`, `9007199254740991`, `9007199254740992`, `-9007199254740992`, `0.1e1`,
	`"x"`, `""`, `"\u0041"`, `"\/"`, `"<&>"`, `"\ud800"`, `"\udc00"`, `"\ud800\udc00"`, `"\u0000"`,
	`"\u2028"`, `"a\"b"`, "\"\xff\"", "\"\xed\xa0\x80\"", `"é"`, `"\u00e9"`, `"\uFFFD"`,
	`"` + strings.Repeat("y", 100_000) + `"`, `true`, `{}`, `[]`, `[1]`,
}

// idOutcome classifies the id a request sent as rawID was answered with.
// exact: the same bytes; refused: id null with -32600; sameValue: other
// bytes for the value a JavaScript client reads (escapes written otherwise:
// harmless to clients that compare values, but not "byte for byte");
// otherwise another id, which can settle another call in the client.
func idOutcome(rawID string, answer []byte) string {
	var r response
	if err := json.Unmarshal(answer, &r); err != nil {
		return fmt.Sprintf("not JSON-RPC: %q", clipped(answer))
	}
	switch {
	case string(r.ID) == rawID:
		return "exact"
	case string(r.ID) == "null" && r.Error != nil && r.Error.Code == -32600:
		return "refused"
	case jsValue(rawID) != "" && jsValue(rawID) == jsValue(string(r.ID)):
		return "sameValue " + string(r.ID)
	}
	return "OTHER ID " + clipped(r.ID)
}

// jsValue is the value JSON.parse gives a string or number id, as text:
// strings as their UTF-16 code units, lone surrogates kept (Go's decoder
// would make each U+FFFD); "" for anything else.
func jsValue(raw string) string {
	if n, err := strconv.ParseFloat(raw, 64); err == nil {
		return "n" + strconv.FormatFloat(n, 'g', -1, 64)
	}
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return ""
	}
	var units []uint16
	s := []rune(raw[1 : len(raw)-1]) // invalid UTF-8 decodes as U+FFFD, as TextDecoder does
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			units = utf16.AppendRune(units, s[i])
			continue
		}
		i++
		switch s[i] {
		case 'u':
			if i+4 >= len(s) {
				return ""
			}
			v, err := strconv.ParseUint(string(s[i+1:i+5]), 16, 16)
			if err != nil {
				return ""
			}
			units = append(units, uint16(v))
			i += 4
		case 'b', 'f', 'n', 'r', 't':
			units = append(units, uint16(map[rune]rune{'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[s[i]]))
		default:
			units = append(units, uint16(s[i]))
		}
	}
	return fmt.Sprint("s", units)
}

func clipped[T ~[]byte | ~string](b T) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}

// reportIDs fails the test for every id answered with another id, and for
// every id answered with other bytes of the same value.
func reportIDs(t *testing.T, transport string, outcomes map[string]string) {
	t.Helper()
	for _, id := range adversaryIDs {
		switch o := outcomes[id]; {
		case o == "exact", o == "refused":
		case strings.HasPrefix(o, "sameValue"):
			t.Errorf("%s: id %s answered with other bytes (%s), want them byte for byte or -32600 with id null", transport, clipped(id), o)
		default:
			t.Errorf("MANGLED ID: %s: id %q answered as %s", transport, clipped(id), o)
		}
	}
}

func TestAdversaryRequestIDsStdio(t *testing.T) {
	s := advRaw(t, servedCopy(t, wat("hostile")), legacyProtocol, "--timeout", "2s")
	outcomes := map[string]string{}
	for _, id := range adversaryIDs {
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		outcomes[id] = idOutcome(id, []byte(s.next()))
	}
	reportIDs(t, "stdio", outcomes)

	// A call's id while the call runs: refused, and the call is answered
	// with its own id.
	s.send(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"spin"}}`)
	s.send(`{"jsonrpc":"2.0","id":42,"method":"ping"}`)
	s.send(`{"jsonrpc":"2.0","id":"42","method":"ping"}`) // another id: a string
	spin, others := s.untilID("42")
	if !strings.Contains(spin, `"isError":true`) {
		t.Errorf("MANGLED ID: the spinning call: %s, want its timeout error", spin)
	}
	if len(others) != 2 || !slices.ContainsFunc(others, func(l string) bool { return strings.Contains(l, `"id":"42","result":{}`) }) ||
		!slices.ContainsFunc(others, func(l string) bool { return strings.Contains(l, `"id":null`) && strings.Contains(l, "-32600") }) {
		t.Errorf("a duplicate id in flight and a string id beside it: %q, want -32600 with id null and the string's answer", others)
	}
	s.send(`{"jsonrpc":"2.0","id":42,"method":"ping"}`)
	if again, _ := s.untilID("42"); !strings.Contains(again, `"result":{}`) {
		t.Errorf("id 42 once answered: %s", again)
	}
}

func TestAdversaryRequestIDsHTTP(t *testing.T) {
	h := advHTTP(t, servedCopy(t, wat("hostile")), "--timeout", "2s")
	session := h.session(t)
	outcomes := map[string]string{}
	for _, id := range adversaryIDs {
		_, _, body := h.post(t, session, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
		outcomes[id] = idOutcome(id, body)
	}
	reportIDs(t, "HTTP", outcomes)

	// Two requests of one session with one id at once: each POST gets the
	// answer to its own request.
	var wg sync.WaitGroup
	var spin []byte
	wg.Go(func() {
		_, _, spin = h.post(t, session, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"spin"}}`)
	})
	time.Sleep(300 * time.Millisecond) // not an assertion: lets the call start first
	_, _, ping := h.post(t, session, `{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	wg.Wait()
	if !strings.Contains(string(ping), `"result":{}`) && !strings.Contains(string(ping), "-32600") {
		t.Errorf("MANGLED ID: ping with the id of a call in flight got %s", ping)
	}
	if !strings.Contains(string(spin), `"isError":true`) || !strings.Contains(string(spin), `"id":7`) {
		t.Errorf("MANGLED ID: the call in flight, after a ping reused its id, got %q", spin)
	}
}

// Batches (2025-03-26 and before): an id used twice in one batch, or one
// that cannot be answered exactly, refuses the batch; the answers of a good
// batch carry their ids.
func TestAdversaryBatches(t *testing.T) {
	s := advRaw(t, servedCopy(t, wat("hello")), "2025-03-26")
	for batch, want := range map[string]string{
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`:                                                  "refused",
		`[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","id":1.5,"method":"ping"}]`:                                              "refused",
		`[{"jsonrpc":"2.0","id":"\ud800","method":"ping"},{"jsonrpc":"2.0","id":"\udc00","method":"ping"}]`:                                    "refused",
		`[{"jsonrpc":"2.0","id":10,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"11","method":"ping"}]`: `"11" 10`,
	} {
		s.send(batch)
		line := s.next()
		var answers []response
		if json.Unmarshal([]byte(line), &answers) != nil {
			var r response
			if json.Unmarshal([]byte(line), &r) != nil || string(r.ID) != "null" || r.Error == nil || r.Error.Code != -32600 {
				t.Errorf("batch %s: %s", clipped(batch), line)
			} else if want != "refused" {
				t.Errorf("batch %s refused: %s", clipped(batch), line)
			}
			continue
		}
		var ids []string
		for _, a := range answers {
			ids = append(ids, string(a.ID))
		}
		slices.Sort(ids)
		if strings.Join(ids, " ") != want {
			t.Errorf("MANGLED ID: batch %s answered with ids %v, want %s", clipped(batch), ids, want)
		}
	}
}

// Lines that are not JSON-RPC get -32700 or -32600 with id null (or the
// request's id when it can be read), and the session goes on: a ping after
// each is answered.
func TestAdversaryMalformedLines(t *testing.T) {
	s := advRaw(t, servedCopy(t, wat("hostile")), legacyProtocol, "--timeout", "1s")
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	deepArgs := strings.Repeat(`{"a":`, 9_000) + "1" + strings.Repeat("}", 9_000)
	lines := []string{
		`{`, "\xff\xfe", `[`, `null`, `123`, `"str"`, `[1,2]`, `{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0","id":1}`,
		deep, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\x00", "\x00", `{"jsonrpc":"2.0","id":4,"method":"ping","params":` + deep + `}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ping","arguments":` + deepArgs + `}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"ping","arguments":{"a":"` + "\xff" + `"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"ping","arguments":{"a":1,"a":2}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"ping","arguments":{"a":1e999999}}}`,
		`{"jsonrpc":"2.0","id":10,"method":"ping","params":{"x":"` + strings.Repeat("x", 17<<20) + `"}}`, // past the line limit
		`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"` + strings.Repeat("n", 1<<20) + `"}}`,
		`{"jsonrpc":"2.0","id":12,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":13,"method":"ping","params":{"_meta":{"progressToken":` + deep[:20_000] + deep[len(deep)-20_000:] + `}}}`,
	}
	unanswered := map[string]int{} // id → line
	for i, line := range lines {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.ID != nil {
			unanswered[string(m.ID)] = i
		}
		start := time.Now()
		s.send(line)
		pingID := fmt.Sprintf(`"alive-%d"`, i)
		s.send(`{"jsonrpc":"2.0","id":` + pingID + `,"method":"ping"}`)
		_, before := s.untilID(pingID)
		for _, b := range before {
			var r response
			if err := json.Unmarshal([]byte(b), &r); err != nil {
				t.Errorf("line %d (%s): not JSON-RPC: %s", i, clipped(line), clipped(b))
				continue
			}
			delete(unanswered, string(r.ID))
			if r.Error != nil && r.Error.Code == 0 {
				t.Errorf("line %d (%s): error code 0, which JSON-RPC does not define: %s", i, clipped(line), clipped(b))
			}
		}
		t.Logf("line %d (%s): %d lines in %v: %s", i, clipped(strings.ToValidUTF8(line, "?")), len(before),
			time.Since(start).Round(time.Millisecond), clipped(strings.Join(before, " | ")))
	}
	s.send(`{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"spin"}}`)
	_, before := s.untilID(`"last"`)
	for _, b := range before {
		var r response
		if json.Unmarshal([]byte(b), &r) == nil {
			delete(unanswered, string(r.ID))
		}
	}
	for id, i := range unanswered {
		t.Errorf("line %d (%s) carries id %s and was never answered", i, clipped(lines[i]), id)
	}
}

// A message followed by whitespace on its line is still one message (JSON
// allows whitespace around a value): it is answered and the session goes on.
func TestAdversaryTrailingWhitespace(t *testing.T) {
	for _, tc := range []struct{ name, ws string }{{"space", " "}, {"tab", "\t"}, {"mixed", "   \t "}} {
		t.Run(tc.name, func(t *testing.T) {
			ws := tc.ws
			s := advRaw(t, servedCopy(t, wat("hello")), legacyProtocol)
			s.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + ws)
			s.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
			// The server handles requests concurrently, so the answers
			// may come in either order; both must come.
			var got []string
			for range 2 {
				line, err := s.out.ReadString('\n')
				if err != nil {
					s.cmd.Wait()
					t.Errorf("SESSION ENDED: a ping followed by %q on its line: %v, %v\n%s", ws, err, s.cmd.ProcessState, tail(s.stderr.String(), 300))
					return
				}
				got = append(got, line)
			}
			if all := strings.Join(got, ""); !strings.Contains(all, `"id":1,"result":{}`) || !strings.Contains(all, `"id":2,"result":{}`) {
				t.Errorf("a ping followed by %q: %s", ws, all)
			}
		})
	}
	h := advHTTP(t, servedCopy(t, wat("hello")))
	session := h.session(t)
	if status, _, body := h.post(t, session, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"} \t\n "); !strings.Contains(string(body), `"id":3,"result":{}`) {
		t.Errorf("HTTP: a ping followed by whitespace: %d %s", status, body)
	}
}
