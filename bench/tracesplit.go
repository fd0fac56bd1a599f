package main

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// callSpans are the spans of a stdio server's calls, read from an execution
// trace of it and split where the request changes hands:
//
//   - toHandler: from the transport's read of the request returning to the
//     start of the goroutine go-sdk runs the method handler on: decoding,
//     go-sdk's dispatch, and waiting to be scheduled;
//   - handler: from there to the system call that writes the response: the
//     tool's handler (for wasmcp, the sandbox's call), go-sdk's middleware
//     and the encoding of the response;
//   - total: the two together, the server's part of a round trip less the
//     write itself.
//
// The round trip's p50 mixes the client's and the kernel's time into the
// server's; these do not, so they resolve a few microseconds where the
// round trip does not.
type callSpans struct {
	toHandler, handler, total []time.Duration
}

// add pools o's calls into s's.
func (s *callSpans) add(o callSpans) {
	s.toHandler = append(s.toHandler, o.toHandler...)
	s.handler = append(s.handler, o.handler...)
	s.total = append(s.total, o.total...)
}

// A callSplit summarizes callSpans.
type callSplit struct {
	toHandler, handler, total summary
}

func (s *callSpans) split() callSplit {
	return callSplit{toHandler: summarize(s.toHandler), handler: summarize(s.handler), total: summarize(s.total)}
}

// The markers splitTrace looks for in the stacks of the trace's goroutine
// transitions. They name functions of wasmcp's stdio transport, which both
// the native and the wasmcp servers of the profile use, and of go-sdk's
// jsonrpc2 (pinned in go.mod): a version that renames them makes
// splitTrace fail, not measure something else.
const (
	traceReadMark    = "(*stdioConn).readLoop"
	traceWriteMark   = "(*stdioConn).writeLine"
	traceHandlerMark = "jsonrpc2.(*Connection).handleAsync.func2"
)

var traceTransition = regexp.MustCompile(`^M=\S+ P=\S+ G=\S+ StateTransition Time=(\d+) GoID=(\d+) (\w+)->(\w+)`)

// splitTrace splits the calls of the execution trace at path (see
// callSpans), with `go tool trace`'s text dump of the events.
func splitTrace(ctx context.Context, path string) (callSpans, error) {
	cmd := exec.CommandContext(ctx, "go", "tool", "trace", "-d=parsed", path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return callSpans{}, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return callSpans{}, err
	}
	var s traceSplitter
	s.init()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var ev traceEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "M="):
			s.event(&ev)
			ev = traceEvent{}
			if m := traceTransition.FindStringSubmatch(line); m != nil {
				t, _ := strconv.ParseInt(m[1], 10, 64)
				ev = traceEvent{ok: true, t: t, g: m[2], from: m[3], to: m[4]}
			}
		case ev.ok && strings.HasPrefix(line, "\t") && !strings.HasPrefix(line, "\t\t"):
			ev.stack = append(ev.stack, line)
		}
	}
	s.event(&ev)
	if err := sc.Err(); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return callSpans{}, err
	}
	if err := cmd.Wait(); err != nil {
		return callSpans{}, fmt.Errorf("go tool trace %s: %w: %s", path, err, stderr.String())
	}
	if len(s.total) == 0 {
		return callSpans{}, fmt.Errorf("%s: no call found (markers %q, %q, %q)", path, traceReadMark, traceHandlerMark, traceWriteMark)
	}
	return s.callSpans, nil
}

// A traceEvent is a goroutine's state transition with its stacks' frames.
type traceEvent struct {
	ok       bool
	t        int64 // nanoseconds
	g        string
	from, to string
	stack    []string
}

func (e *traceEvent) has(frame string) bool {
	for _, l := range e.stack {
		if strings.Contains(l, frame) {
			return true
		}
	}
	return false
}

// traceSplitter follows the requests through the events in time order.
type traceSplitter struct {
	lastRead  int64            // when the reader's last read returned
	reading   map[string]bool  // goroutines in the reader's read system call
	handlers  map[string]int64 // handler goroutines: when they started, or 0
	callSpans                  // of the calls found so far
}

func (s *traceSplitter) init() {
	s.reading, s.handlers = map[string]bool{}, map[string]int64{}
}

func (s *traceSplitter) event(e *traceEvent) {
	if !e.ok {
		return
	}
	switch {
	case e.from == "NotExist" && e.has(traceHandlerMark):
		s.handlers[e.g] = 0
	case e.from == "Runnable" && e.to == "Running":
		if start, ok := s.handlers[e.g]; ok && start == 0 && s.lastRead > 0 {
			s.handlers[e.g] = e.t
			s.toHandler = append(s.toHandler, time.Duration(e.t-s.lastRead))
		}
	case e.from == "Running" && e.to == "Syscall":
		if e.has(traceReadMark) {
			s.reading[e.g] = true
		}
		if start := s.handlers[e.g]; start > 0 && e.has(traceWriteMark) {
			s.handler = append(s.handler, time.Duration(e.t-start))
			s.total = append(s.total, time.Duration(e.t-s.lastRead))
			delete(s.handlers, e.g)
		}
	case e.from == "Syscall" && e.to != "Syscall":
		if s.reading[e.g] {
			s.lastRead = e.t
			delete(s.reading, e.g)
		}
	}
}
