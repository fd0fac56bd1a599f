package batchwriter

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is an underlying writer that keeps every Write it gets.
type recorder struct {
	mu     sync.Mutex
	writes []string
	err    error // returned by every Write once set
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return 0, r.err
	}
	r.writes = append(r.writes, string(p))
	return len(p), nil
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.writes, "")
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.writes)
}

func TestGathersUntilFlush(t *testing.T) {
	var r recorder
	w := New(&r, time.Hour)
	for i := range 3 {
		if _, err := fmt.Fprintf(w, "line %d\n", i); err != nil {
			t.Fatal(err)
		}
	}
	if got := r.String(); got != "" {
		t.Fatalf("written before the delay: %q", got)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := r.String(), "line 0\nline 1\nline 2\n"; got != want {
		t.Fatalf("after Flush: %q, want %q", got, want)
	}
	if r.count() != 1 {
		t.Errorf("%d underlying writes, want the three lines in one", r.count())
	}
}

func TestWritesAfterTheDelay(t *testing.T) {
	var r recorder
	w := New(&r, time.Millisecond)
	defer w.Close()
	fmt.Fprintln(w, "a line")
	// Liveness, not timing: the line must arrive without Flush or Close.
	for r.String() == "" {
		time.Sleep(time.Millisecond)
	}
	if got := r.String(); got != "a line\n" {
		t.Fatalf("got %q", got)
	}
	// A second batch gets a timer of its own.
	fmt.Fprintln(w, "another")
	for r.count() < 2 {
		time.Sleep(time.Millisecond)
	}
	if got := r.String(); got != "a line\nanother\n" {
		t.Fatalf("got %q", got)
	}
}

func TestFullBatchWritesAtOnce(t *testing.T) {
	var r recorder
	w := New(&r, time.Hour)
	line := bytes.Repeat([]byte("x"), 1000)
	n := 0
	for len(r.String()) == 0 {
		if n*len(line) > MaxPending {
			t.Fatalf("%d bytes gathered and nothing written; MaxPending is %d", n*len(line), MaxPending)
		}
		w.Write(line)
		n++
	}
	if got := len(r.String()); got < MaxPending {
		t.Errorf("wrote %d bytes, want the whole batch of at least %d", got, MaxPending)
	}
}

func TestZeroDelayWritesThrough(t *testing.T) {
	var r recorder
	w := New(&r, 0)
	fmt.Fprintln(w, "now")
	if got := r.String(); got != "now\n" {
		t.Fatalf("got %q, want the line at once", got)
	}
}

func TestCloseFlushesAndLaterWritesGoThrough(t *testing.T) {
	var r recorder
	w := New(&r, time.Hour)
	fmt.Fprintln(w, "before")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := r.String(); got != "before\n" {
		t.Fatalf("after Close: %q", got)
	}
	fmt.Fprintln(w, "after")
	if got := r.String(); got != "before\nafter\n" {
		t.Fatalf("a write after Close: %q, want it written at once", got)
	}
}

func TestConcurrentWritesStayWholeAndOrdered(t *testing.T) {
	var r recorder
	w := New(&r, 50*time.Microsecond)
	const writers, lines = 8, 500
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range lines {
				fmt.Fprintf(w, "g%d-%04d %s\n", g, i, strings.Repeat("y", i%97))
			}
		})
	}
	wg.Wait()
	w.Close()
	next := make([]int, writers)
	got := strings.Split(strings.TrimSuffix(r.String(), "\n"), "\n")
	for _, line := range got {
		head, pad, _ := strings.Cut(line, " ")
		var g, i int
		if _, err := fmt.Sscanf(head, "g%d-%d", &g, &i); err != nil || g < 0 || g >= writers {
			t.Fatalf("torn line %q: %v", line, err)
		}
		if i != next[g] || len(pad) != i%97 {
			t.Fatalf("line %q out of order or torn: want g%d-%04d", line, g, next[g])
		}
		next[g]++
	}
	if len(got) != writers*lines {
		t.Errorf("%d lines, want %d", len(got), writers*lines)
	}
}

func TestUnderlyingErrorIsReported(t *testing.T) {
	broken := errors.New("stderr is gone")
	r := recorder{err: broken}
	w := New(&r, time.Hour)
	if _, err := w.Write([]byte("lost\n")); err != nil {
		t.Fatalf("first write: %v; the error cannot be known before the batch is written", err)
	}
	if err := w.Flush(); !errors.Is(err, broken) {
		t.Fatalf("Flush: %v, want %v", err, broken)
	}
	if _, err := w.Write([]byte("also lost\n")); !errors.Is(err, broken) {
		t.Errorf("a later write: %v, want %v", err, broken)
	}
}
