package main

import (
	"testing"
	"time"
)

// TestTraceSplitter feeds the splitter one request's transitions, with a
// notification's handler and an unrelated system call among them, and
// checks the three spans it measures.
func TestTraceSplitter(t *testing.T) {
	var s traceSplitter
	s.init()
	const reader, handler, other = "9", "20", "30"
	for _, e := range []traceEvent{
		{t: 1_000, g: reader, from: "Running", to: "Syscall", stack: []string{"\tsyscall.read", "\tmain.(*stdioConn).readLoop"}},
		{t: 5_000, g: reader, from: "Syscall", to: "Running"}, // the request is read
		{t: 6_000, g: other, from: "Running", to: "Syscall", stack: []string{"\tos.(*File).Write"}},
		{t: 7_000, g: other, from: "Syscall", to: "Running"},
		{t: 8_000, g: handler, from: "NotExist", to: "Runnable", stack: []string{"\tx/jsonrpc2.(*Connection).handleAsync.func2"}},
		{t: 12_000, g: handler, from: "Runnable", to: "Running"},
		{t: 15_000, g: handler, from: "Running", to: "Runnable"}, // preempted: still the same call
		{t: 16_000, g: handler, from: "Runnable", to: "Running"},
		{t: 30_000, g: handler, from: "Running", to: "Syscall", stack: []string{"\tmain.(*stdioConn).writeLine"}},
	} {
		e.ok = true
		s.event(&e)
	}
	if len(s.total) != 1 {
		t.Fatalf("%d calls found, want 1", len(s.total))
	}
	for _, c := range []struct {
		name      string
		got, want time.Duration
	}{
		{"read → handler", s.toHandler[0], 7 * time.Microsecond},
		{"handler → write", s.handler[0], 18 * time.Microsecond},
		{"read → write", s.total[0], 25 * time.Microsecond},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
