package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const mib = 1 << 20

// Guests at a small --memory with --concurrency N: some fill their memory
// and loop until the deadline, some fill it and return (their instances go
// back to the idle pool, full), some grow their table as far as the host
// lets them first. SECURITY.md bounds the growth of resident memory by the
// limit times the instances alive (the idle pool, at most GOMAXPROCS, plus
// the running calls) plus a constant, under 100 KiB per instance beyond the
// server and its compiled modules, which the baseline holds.
func TestAdversaryMemoryBombs(t *testing.T) {
	needProc(t)
	const limit, concurrency, callers = 16 * mib, 4, 12
	s := startServer(t, servedCopy(t, wat("adversary_mem")), serverOptions{protocol: legacyProtocol,
		args: []string{"--memory", "16MiB", "--concurrency", fmt.Sprint(concurrency), "--timeout", "2s", "--queue", "64"}})
	pid := s.cmd.Process.Pid
	wantOK(t, s.call(t, "echo", `{}`))
	baseline := status(t, pid, "VmRSS")
	instances := int64(concurrency + runtime.GOMAXPROCS(0))
	bound := baseline + instances*(limit+100<<10) + 16*mib
	for _, tool := range []string{"hold", "keep", "tables", "keep", "hold"} {
		var wg sync.WaitGroup
		var failed atomic.Int32
		for range callers {
			wg.Go(func() {
				res, err := s.callErr(t, tool, `{}`)
				if err != nil || res.IsError && tool != "hold" {
					failed.Add(1)
				}
			})
		}
		wg.Wait()
		peak := status(t, pid, "VmHWM")
		t.Logf("after %d %s calls: peak RSS %d MiB (baseline %d MiB, bound %d MiB: %d instances of %d MiB), %d failed",
			callers, tool, peak/mib, baseline/mib, bound/mib, instances, limit/mib, failed.Load())
		if peak > bound {
			t.Errorf("MEMORY: peak RSS %d MiB after %s calls, over the stated bound of %d MiB", peak/mib, tool, bound/mib)
		}
	}
	wantOK(t, s.call(t, "echo", `{}`))
}

// A stdio client of protocol 2025-03-26 sends its requests in batches: the
// server must still bound the requests in flight at --max-in-flight (64),
// as it does for requests one per line (200,000 pipelined pings peak at
// about 40 MiB: TestPipelinedRequestsBounded). A batch may hold at most
// that many; a longer one is refused whole, and the session goes on.
func TestAdversaryBatchFlood(t *testing.T) {
	needProc(t)
	s := advRaw(t, servedCopy(t, wat("hello")), "2025-03-26")
	baseline := status(t, s.cmd.Process.Pid, "VmRSS")
	const batches, per = 3, 120_000 // each line under the 5 MiB line limit
	go func() {
		w := bufio.NewWriterSize(s.in, 1<<20)
		for b := range batches {
			w.WriteByte('[')
			for i := range per {
				if i > 0 {
					w.WriteByte(',')
				}
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, b*per+i)
			}
			w.WriteString("]\n")
		}
		w.Flush()
	}()
	for b := range batches {
		if line := s.next(); !strings.Contains(line, `"code":-32600`) || !strings.Contains(line, "over the limit of 64") {
			t.Fatalf("batch %d: %s, want -32600 naming the limit", b, clipped(line))
		}
	}
	// A batch within the limit is answered whole.
	var small strings.Builder
	small.WriteByte('[')
	for i := range 64 {
		if i > 0 {
			small.WriteByte(',')
		}
		fmt.Fprintf(&small, `{"jsonrpc":"2.0","id":"small-%d","method":"ping"}`, i)
	}
	small.WriteString("]\n")
	if _, err := io.WriteString(s.in, small.String()); err != nil {
		t.Fatal(err)
	}
	if line := s.next(); strings.Count(line, `"id":"small-`) != 64 {
		t.Fatalf("batch of 64: %s, want 64 answers", clipped(line))
	}
	peak := status(t, s.cmd.Process.Pid, "VmHWM")
	t.Logf("%d batches of %d pings: peak RSS %d MiB (baseline %d MiB)", batches, per, peak/mib, baseline/mib)
	if peak > baseline+64*mib {
		t.Errorf("MEMORY: batches bypass --max-in-flight: peak RSS %d MiB, baseline %d MiB (%d requests in flight at once)", peak/mib, baseline/mib, per)
	}

	// Over HTTP, a session of 2025-11-25 refuses batches, after reading
	// them; SECURITY.md states no bound on the requests one client may
	// send at once, so the figure is reported.
	h := advHTTP(t, servedCopy(t, wat("hello")))
	session := h.session(t)
	baseline = status(t, h.cmd.Process.Pid, "VmRSS")
	var batch strings.Builder
	batch.WriteByte('[')
	for i := range per {
		if i > 0 {
			batch.WriteByte(',')
		}
		fmt.Fprintf(&batch, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)
	}
	batch.WriteByte(']')
	const posts = 4
	codes := make([]int, posts)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range posts {
		wg.Go(func() { codes[i], _, _ = h.post(t, session, batch.String()) })
	}
	wg.Wait()
	t.Logf("HTTP: %d concurrent POSTs of a %d-ping batch (%.1f MiB) in a 2025-11-25 session: %v in %v; peak RSS %d MiB (baseline %d MiB)",
		posts, per, float64(batch.Len())/mib, codes, time.Since(start).Round(time.Millisecond), status(t, h.cmd.Process.Pid, "VmHWM")/mib, baseline/mib)
}

// Guests flood the log while the client listens at debug level: each call
// passes on at most 1000 lines and 1 MiB; memory stays flat.
func TestAdversaryLogFlood(t *testing.T) {
	needProc(t)
	s := advRaw(t, servedCopy(t, wat("adversary_mem")), legacyProtocol)
	s.send(`{"jsonrpc":"2.0","id":"lvl","method":"logging/setLevel","params":{"level":"debug"}}`)
	s.untilID(`"lvl"`)
	baseline := status(t, s.cmd.Process.Pid, "VmRSS")
	const calls = 24
	for i := range calls {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"flood"}}`, i))
	}
	bytes, lines, answered := 0, 0, 0
	for answered < calls {
		line := s.next()
		bytes += len(line)
		if strings.Contains(line, `"notifications/message"`) {
			lines++
		} else {
			answered++
		}
	}
	peak := status(t, s.cmd.Process.Pid, "VmHWM")
	t.Logf("%d calls logging 5000 lines of 64 KiB each: %d log lines, %d MiB sent; peak RSS %d MiB (baseline %d MiB)",
		calls, lines, bytes/mib, peak/mib, baseline/mib)
	if lines > calls*1000 || bytes > calls*(1*mib+200<<10) {
		t.Errorf("log flood: %d lines, %d bytes for %d calls, over 1000 lines and 1 MiB per call", lines, bytes, calls)
	}
	if peak > baseline+128*mib {
		t.Errorf("MEMORY: log flood: peak RSS %d MiB, baseline %d MiB", peak/mib, baseline/mib)
	}
}

// Arguments just under --max-input, 64 calls pipelined, and results just
// under --max-output, at the default --concurrency (8): resident memory
// stays within SECURITY.md's bound for the process, the memory limit
// times the instances alive plus a constant (here: the baseline and
// 16 MiB). bigx's result is all "<", which JSON encoders write as six bytes.
func TestAdversaryLargeArgumentsAndResults(t *testing.T) {
	needProc(t)
	const limit, concurrency = 64 * mib, 8
	s := advRaw(t, servedCopy(t, wat("adversary_mem")), legacyProtocol, "--memory", "64MiB")
	pid := s.cmd.Process.Pid
	baseline := status(t, pid, "VmRSS")
	bound := baseline + int64(concurrency+runtime.GOMAXPROCS(0))*(limit+100<<10) + 16*mib
	arg := strings.Repeat("a", 4*mib-64)
	const calls = 64
	go func() {
		for i := range calls {
			fmt.Fprintf(s.in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"a":"%s"}}}`+"\n", i, arg)
		}
	}()
	for range calls {
		if line := s.next(); !strings.Contains(line, `"text":"ok"`) {
			t.Errorf("large arguments: %s", clipped(line))
		}
	}
	peak := status(t, pid, "VmHWM")
	t.Logf("%d pipelined calls with 4 MiB arguments: peak RSS %d MiB (baseline %d MiB, bound %d MiB)", calls, peak/mib, baseline/mib, bound/mib)
	if peak > bound {
		t.Errorf("MEMORY: 4 MiB arguments: peak RSS %d MiB, over the stated bound of %d MiB", peak/mib, bound/mib)
	}
	for _, tool := range []string{"big", "bigx"} {
		for i := range 16 {
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":{"n":"%d"}}}`, i, tool, 4*mib-64))
		}
		longest := 0
		for range 16 {
			line := s.next()
			longest = max(longest, len(line))
			if !strings.Contains(line, `"result"`) {
				t.Errorf("%s: %s", tool, clipped(line))
			}
		}
		peak := status(t, pid, "VmHWM")
		t.Logf("16 pipelined %s calls returning 4 MiB: lines of up to %d MiB, peak RSS %d MiB (now %d MiB)", tool, longest/mib,
			peak/mib, status(t, pid, "VmRSS")/mib)
		if peak > bound {
			t.Errorf("MEMORY: 16 results of 4 MiB (%s): peak RSS %d MiB, over the stated bound of %d MiB", tool, peak/mib, bound/mib)
		}
	}
}

// HTTP sessions up to --max-sessions, one more closing the least recently
// used idle one rather than being refused, and their memory returned when
// they expire: a second wave of sessions after the first expired costs no
// more than the first.
func TestAdversaryHTTPSessions(t *testing.T) {
	needProc(t)
	const sessions = 1000
	h := advHTTP(t, servedCopy(t, wat("hello")), "--session-timeout", "3s", "--max-sessions", fmt.Sprint(sessions))
	pid := h.cmd.Process.Pid
	baseline := status(t, pid, "VmRSS")
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + legacyProtocol +
		`","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	wave := func() {
		var n, refused atomic.Int32
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				for n.Add(1) <= sessions {
					if code, _, _ := h.post(t, "", initialize); code != http.StatusOK {
						refused.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if refused.Load() > 0 {
			t.Errorf("%d of %d sessions refused under --max-sessions %d", refused.Load(), sessions, sessions)
		}
	}
	wave()
	first := status(t, pid, "VmHWM")
	rss1 := status(t, pid, "VmRSS")
	code, _, body := h.post(t, "", initialize)
	// The closed session's log line may follow the new session's answer.
	closed := func() bool { return strings.Contains(h.stderr.String(), "session closed to make room") }
	for i := 0; i < 100 && !closed(); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if code != http.StatusOK || !closed() {
		t.Errorf("session %d: %d %s, want 200 and an idle session closed for it", sessions+1, code, body)
	}
	time.Sleep(4 * time.Second) // --session-timeout 3s: every session expires; not an assertion
	rssIdle := status(t, pid, "VmRSS")
	wave()
	second := status(t, pid, "VmHWM")
	rss2 := status(t, pid, "VmRSS")
	t.Logf("%d sessions: RSS %d MiB after the first wave (peak %d), %d MiB once expired, %d MiB after the second (peak %d); baseline %d MiB",
		sessions, rss1/mib, first/mib, rssIdle/mib, rss2/mib, second/mib, baseline/mib)
	if growth := first - baseline; second > first+growth/4 {
		t.Errorf("MEMORY: expired sessions' memory not reused: peak %d MiB after the second wave, %d after the first", second/mib, first/mib)
	}
}

// Connections that trickle a request body, or their headers, are closed
// within --body-timeout (bodies) and the server's header timeout (10 s),
// while a normal client is served meanwhile.
func TestAdversaryTrickledRequests(t *testing.T) {
	needProc(t)
	h := advHTTP(t, servedCopy(t, wat("hello")), "--body-timeout", "1s")
	pid := h.cmd.Process.Pid
	baseline := status(t, pid, "VmRSS")
	host := strings.TrimSuffix(strings.TrimPrefix(h.url, "http://"), "/mcp")
	const conns = 200
	type result struct {
		reply   string
		elapsed time.Duration
	}
	results := make(chan result, 2*conns)
	trickle := func(head string, body bool) {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			results <- result{reply: "dial: " + err.Error()}
			return
		}
		defer conn.Close()
		start := time.Now()
		closed := make(chan string, 1)
		go func() {
			conn.SetReadDeadline(time.Now().Add(60 * time.Second))
			b := make([]byte, 64)
			n, _ := conn.Read(b)
			closed <- string(b[:n])
		}()
		fmt.Fprint(conn, head)
		for i := 0; ; i++ {
			select {
			case reply := <-closed:
				results <- result{reply, time.Since(start)}
				return
			case <-time.After(200 * time.Millisecond):
				if body {
					conn.Write([]byte(" "))
				} else {
					conn.Write([]byte("X"))
				}
			}
		}
	}
	for range conns {
		go trickle(fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", host), true)
		go trickle(fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nX-Slow: ", host), false)
	}
	session := h.session(t)
	if _, _, body := h.post(t, session, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); !strings.Contains(string(body), `"result":{}`) {
		t.Errorf("a client during the trickle: %s", body)
	}
	peak := status(t, pid, "VmHWM")
	var slowest time.Duration
	replies := map[string]int{}
	for range 2 * conns {
		r := <-results
		slowest = max(slowest, r.elapsed)
		replies[strings.SplitN(r.reply, "\r\n", 2)[0]]++
	}
	t.Logf("%d trickling connections: closed within %v, replies %v; peak RSS %d MiB (baseline %d MiB)",
		2*conns, slowest.Round(100*time.Millisecond), replies, peak/mib, baseline/mib)
	if slowest > 30*time.Second {
		t.Errorf("a trickling connection was held %v", slowest)
	}
}
