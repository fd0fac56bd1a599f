package batchlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
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

// text formats as slog's text handler does, without the time, so that
// outputs can be compared.
func text(w io.Writer) slog.Handler {
	return slog.NewTextHandler(w, &slog.HandlerOptions{ReplaceAttr: noTime})
}

func noTime(groups []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey && len(groups) == 0 {
		return slog.Attr{}
	}
	return a
}

func TestGathersUntilFlush(t *testing.T) {
	var r recorder
	h := New(&r, time.Hour, text)
	log := slog.New(h)
	for i := range 3 {
		log.Info("line", "i", i)
	}
	if got := r.String(); got != "" {
		t.Fatalf("written before the delay: %q", got)
	}
	if err := h.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := r.String(), "level=INFO msg=line i=0\nlevel=INFO msg=line i=1\nlevel=INFO msg=line i=2\n"; got != want {
		t.Fatalf("after Flush: %q, want %q", got, want)
	}
	if r.count() != 1 {
		t.Errorf("%d underlying writes, want the three lines in one", r.count())
	}
}

func TestWritesAfterTheDelay(t *testing.T) {
	var r recorder
	h := New(&r, time.Millisecond, text)
	defer h.Close()
	log := slog.New(h)
	log.Info("a line")
	// Liveness, not timing: the line must arrive without Flush or Close.
	for r.String() == "" {
		time.Sleep(time.Millisecond)
	}
	if got := r.String(); got != "level=INFO msg=\"a line\"\n" {
		t.Fatalf("got %q", got)
	}
	// A second batch gets a timer of its own.
	log.Info("another")
	for r.count() < 2 {
		time.Sleep(time.Millisecond)
	}
	if got := r.String(); got != "level=INFO msg=\"a line\"\nlevel=INFO msg=another\n" {
		t.Fatalf("got %q", got)
	}
}

func TestFullBatchWritesAtOnce(t *testing.T) {
	var r recorder
	log := slog.New(New(&r, time.Hour, text))
	for i := range MaxPending - 1 {
		log.Info("x", "i", i)
	}
	if r.count() != 0 {
		t.Fatalf("written with %d records pending, fewer than MaxPending (%d)", MaxPending-1, MaxPending)
	}
	log.Info("x", "i", MaxPending-1)
	if got := strings.Count(r.String(), "\n"); got != MaxPending {
		t.Errorf("wrote %d lines when the batch filled, want all %d", got, MaxPending)
	}
}

func TestZeroDelayWritesThrough(t *testing.T) {
	var r recorder
	slog.New(New(&r, 0, text)).Info("now")
	if got := r.String(); got != "level=INFO msg=now\n" {
		t.Fatalf("got %q, want the line at once", got)
	}
}

func TestCloseFlushesAndLaterRecordsGoThrough(t *testing.T) {
	var r recorder
	h := New(&r, time.Hour, text)
	log := slog.New(h)
	log.Info("before")
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if got := r.String(); got != "level=INFO msg=before\n" {
		t.Fatalf("after Close: %q", got)
	}
	log.Info("after")
	if got := r.String(); got != "level=INFO msg=before\nlevel=INFO msg=after\n" {
		t.Fatalf("a record after Close: %q, want it written at once", got)
	}
}

func TestConcurrentRecordsStayWholeAndOrdered(t *testing.T) {
	var r recorder
	h := New(&r, 50*time.Microsecond, text)
	log := slog.New(h)
	const loggers, lines = 8, 500
	var wg sync.WaitGroup
	for g := range loggers {
		wg.Go(func() {
			for i := range lines {
				pad := strings.Repeat("y", i%97)
				if i%10 == 0 {
					// Formatted at once (a slice), among the deferred ones.
					log.Info("line", "g", g, "i", i, "pad", []string{pad})
				} else {
					log.Info("line", "g", g, "i", i, "pad", pad)
				}
			}
		})
	}
	wg.Wait()
	h.Close()
	next := make([]int, loggers)
	got := strings.Split(strings.TrimSuffix(r.String(), "\n"), "\n")
	for _, line := range got {
		var g, i int
		var pad string
		if _, err := fmt.Sscanf(line, "level=INFO msg=line g=%d i=%d pad=%s", &g, &i, &pad); err != nil || g < 0 || g >= loggers {
			t.Fatalf("torn line %q: %v", line, err)
		}
		pad = strings.Trim(pad, `[]"`)
		if i != next[g] || len(pad) != i%97 {
			t.Fatalf("line %q out of order or torn: want g=%d i=%d", line, g, next[g])
		}
		next[g]++
	}
	if len(got) != loggers*lines {
		t.Errorf("%d lines, want %d", len(got), loggers*lines)
	}
}

func TestUnderlyingErrorIsReported(t *testing.T) {
	broken := errors.New("stderr is gone")
	r := recorder{err: broken}
	h := New(&r, time.Hour, text)
	rec := slog.NewRecord(time.Now(), slog.LevelInfo, "lost", 0)
	if err := h.Handle(t.Context(), rec); err != nil {
		t.Fatalf("first record: %v; the error cannot be known before the batch is written", err)
	}
	if err := h.Flush(); !errors.Is(err, broken) {
		t.Fatalf("Flush: %v, want %v", err, broken)
	}
	if err := h.Handle(t.Context(), rec); !errors.Is(err, broken) {
		t.Errorf("a later record: %v, want %v", err, broken)
	}
}

// A value that could change after the logging call is formatted before the
// call returns; the others are formatted later as they were then.
func TestValuesAsTheyWereWhenLogged(t *testing.T) {
	var r recorder
	h := New(&r, time.Hour, text)
	log := slog.New(h)
	buf := []byte("original")
	m := map[string]int{"n": 1}
	v := &counter{n: 1}
	log.Info("slice", "buf", buf)
	log.Info("map", "m", m)
	log.Info("valuer", "v", v)
	log.Info("group", slog.Group("g", "v", v, "s", "fixed"))
	copy(buf, "CHANGED!")
	m["n"] = 2
	v.n = 2
	h.Flush()
	want := "level=INFO msg=slice buf=\"original\"\n" +
		"level=INFO msg=map m=map[n:1]\n" +
		"level=INFO msg=valuer v=1\n" +
		"level=INFO msg=group g.v=1 g.s=fixed\n"
	if got := r.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// counter is a LogValuer whose value changes.
type counter struct{ n int }

func (c *counter) LogValue() slog.Value { return slog.IntValue(c.n) }

// Whatever the handler keeps or formats at once, the lines are the ones the
// formatting handler writes by itself, attributes and groups of the logger
// included.
func TestSameLinesAsTheFormatter(t *testing.T) {
	for _, format := range []struct {
		name string
		new  func(io.Writer) slog.Handler
	}{
		{"text", text},
		{"json", func(w io.Writer) slog.Handler {
			return slog.NewJSONHandler(w, &slog.HandlerOptions{ReplaceAttr: noTime, Level: slog.LevelDebug})
		}},
	} {
		t.Run(format.name, func(t *testing.T) {
			var direct bytes.Buffer
			var r recorder
			h := New(&r, time.Hour, format.new)
			for _, log := range []*slog.Logger{slog.New(format.new(&direct)), slog.New(h)} {
				audit := log.With("component", "audit")
				audit.Info("tool call", "tool", "echo", "duration_ms", 0.026, "bytes_in", 41, "ok", true)
				log.WithGroup("req").Warn("refused", "err", errors.New("too \"big\""), "took", 3*time.Millisecond,
					"at", time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), "n", uint64(7))
				log.Debug("slice", "ids", []int{1, 2}, slog.Group("g", "v", &counter{n: 3}))
				log.Error("many", "a", 1, "b", 2, "c", 3, "d", 4, "e", 5, "f", 6, "g", 7)
			}
			h.Flush()
			if got, want := r.String(), direct.String(); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestEnabledIsTheFormatters(t *testing.T) {
	h := New(io.Discard, time.Hour, func(w io.Writer) slog.Handler {
		return slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn})
	})
	if h.Enabled(t.Context(), slog.LevelInfo) || !h.Enabled(t.Context(), slog.LevelWarn) {
		t.Error("Enabled does not follow the formatting handler's level")
	}
}

// deferred is a Deferred that counts how often its record is made.
type deferred struct {
	i    int
	made atomic.Int32
}

func (d *deferred) Record() slog.Record {
	d.made.Add(1)
	r := slog.NewRecord(time.Time{}, slog.LevelInfo, "deferred", 0)
	r.AddAttrs(slog.Int("i", d.i))
	return r
}

// A Deferred's record is made once, when its batch is written, in its place
// among the records handled before and after it; writing through, at once.
func TestDeferredMadeWithItsBatch(t *testing.T) {
	var r recorder
	h := New(&r, time.Hour, text)
	log := slog.New(h.WithAttrs([]slog.Attr{slog.String("c", "x")}))
	log.Info("line", "i", 0)
	d := &deferred{i: 1}
	if err := log.Handler().(*Handler).HandleDeferred(d); err != nil {
		t.Fatal(err)
	}
	log.Info("line", "i", 2)
	if n := d.made.Load(); n != 0 || r.String() != "" {
		t.Fatalf("before the batch: record made %d times, written %q", n, r.String())
	}
	if err := h.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "level=INFO msg=line c=x i=0\nlevel=INFO msg=deferred c=x i=1\nlevel=INFO msg=line c=x i=2\n"
	if got := r.String(); got != want || d.made.Load() != 1 {
		t.Fatalf("after Flush: %q (record made %d times), want %q once", got, d.made.Load(), want)
	}

	var through recorder
	h = New(&through, 0, text)
	d = &deferred{i: 3}
	if err := h.HandleDeferred(d); err != nil {
		t.Fatal(err)
	}
	if got, want := through.String(), "level=INFO msg=deferred i=3\n"; got != want || d.made.Load() != 1 {
		t.Fatalf("writing through: %q (record made %d times), want %q once", got, d.made.Load(), want)
	}
}
