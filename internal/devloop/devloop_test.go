package devloop

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/internal/testenv"
)

// builds runs Run in dir with the shell command script and collects the
// builds.
type builds struct {
	ch   chan Build
	logs *testenv.Buffer
}

func start(t *testing.T, dir, script string, timeout time.Duration) *builds {
	t.Helper()
	return startWith(t, Config{Dir: dir, Build: []string{"sh", "-c", script}, Timeout: timeout, Settle: 50 * time.Millisecond})
}

// startWith runs Run with cfg, out.wasm ignored, and collects the builds.
func startWith(t *testing.T, cfg Config) *builds {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	b := &builds{ch: make(chan Build, 100), logs: &testenv.Buffer{}}
	cfg.Ignore = append(cfg.Ignore, "out.wasm")
	cfg.Logger = slog.New(slog.NewTextHandler(b.logs, nil))
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, cfg, func(_ context.Context, r Build) { b.ch <- r })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return b
}

func (b *builds) next(t *testing.T) Build {
	t.Helper()
	select {
	case r := <-b.ch:
		return r
	case <-time.After(time.Minute):
		t.Fatal("no build")
		return Build{}
	}
}

func (b *builds) none(t *testing.T, within time.Duration) {
	t.Helper()
	select {
	case r := <-b.ch:
		t.Fatalf("unexpected build: %+v", r)
	case <-time.After(within):
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBuildsOnChange(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "tool.c"), "v1")
	b := start(t, dir, "cat tool.c; echo built > out.wasm", time.Minute)
	first := b.next(t)
	if first.Err != nil || !first.First || !strings.Contains(first.Output, "v1") {
		t.Fatalf("first build: %+v", first)
	}
	// The build's own output starts no build.
	b.none(t, 300*time.Millisecond)
	write(t, filepath.Join(dir, "tool.c"), "v2")
	if r := b.next(t); r.Err != nil || r.First || !strings.Contains(r.Output, "v2") {
		t.Errorf("rebuild: %+v", r)
	}
	// A new directory is watched, and what changes in it builds.
	write(t, filepath.Join(dir, "lib", "util.c"), "x")
	b.next(t)
	write(t, filepath.Join(dir, "lib", "util.c"), "y")
	b.next(t)
	// Dependencies, outputs and editors' files start none.
	write(t, filepath.Join(dir, "node_modules", "x.js"), "x")
	write(t, filepath.Join(dir, ".tool.c.swp"), "x")
	b.none(t, 300*time.Millisecond)
}

func TestChangesDuringBuildBuildOnceMore(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.c"), "0")
	b := start(t, dir, "cat a.c; sleep 0.3", time.Minute)
	b.next(t)
	write(t, filepath.Join(dir, "a.c"), "1")
	time.Sleep(200 * time.Millisecond) // the build of 1 is running
	for i := 2; i <= 5; i++ {
		write(t, filepath.Join(dir, "a.c"), fmt.Sprint(i))
	}
	var last Build
	for last.Output != "5" {
		last = b.next(t)
	}
	b.none(t, time.Second)
}

func TestBuildFailureLocation(t *testing.T) {
	for _, tc := range []struct{ name, out, want string }{
		{"clang", `tool.c:12:5: error: use of undeclared identifier 'x'`, "tool.c:12"},
		{"go", "# hello\n./main.go:7:2: undefined: foo", "./main.go:7"},
		{"rustc", "error[E0425]: cannot find value `x`\n --> src/lib.rs:3:5", "src/lib.rs:3"},
		{"asc", "ERROR TS2304: Cannot find name 'x'.\n   in assembly/index.ts(4,10)", "assembly/index.ts:4"},
		{"none", "make: *** No rule to make target", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			b := start(t, dir, fmt.Sprintf("printf '%%s\\n' '%s' >&2; exit 2", strings.ReplaceAll(tc.out, "'", `'\''`)), time.Minute)
			r := b.next(t)
			if r.Err == nil || !strings.Contains(r.Err.Error(), "exit status 2") || r.Location != tc.want {
				t.Errorf("build: err %v, location %q, want %q", r.Err, r.Location, tc.want)
			}
		})
	}
}

// A build that hangs is killed with its children at the timeout; one that
// prints megabytes keeps its tail.
func TestBuildBounds(t *testing.T) {
	dir := t.TempDir()
	b := start(t, dir, "sleep 60 & sleep 60; wait", time.Second)
	start := time.Now()
	r := b.next(t)
	if r.Err == nil || !strings.Contains(r.Err.Error(), "timeout") || time.Since(start) > 30*time.Second {
		t.Errorf("hanging build: %v after %s", r.Err, time.Since(start))
	}
	b2 := startOutput(t)
	r = b2.next(t)
	if len(r.Output) > MaxOutput+100 || !strings.HasSuffix(strings.TrimSpace(r.Output), "the end") || !strings.Contains(r.Output, "dropped") {
		t.Errorf("output of %d bytes, ends %q", len(r.Output), r.Output[max(0, len(r.Output)-20):])
	}
}

func startOutput(t *testing.T) *builds {
	return start(t, t.TempDir(), "head -c 5000000 /dev/zero | tr '\\0' x; echo; echo the end", time.Minute)
}

// A tree of too many directories, or with a link loop, is watched within
// bounds, with a warning.
func TestWatchBounds(t *testing.T) {
	dir := t.TempDir()
	for i := range MaxDirs + 10 {
		if err := os.MkdirAll(filepath.Join(dir, fmt.Sprintf("d%03d", i/100), fmt.Sprint(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	loops := t.TempDir()
	if err := os.Symlink(loops, filepath.Join(loops, "loop")); err != nil {
		t.Fatal(err)
	}
	for d, want := range map[string]string{dir: "too many directories", loops: "symbolic links in the project are not followed"} {
		b := start(t, d, "true", time.Minute)
		b.next(t)
		if !strings.Contains(b.logs.String(), want) {
			t.Errorf("no warning %q in\n%s", want, b.logs)
		}
	}
}

// With the default settle delay, a save's build starts soon: the author
// waits for the delay on every save, on top of the build.
func TestDefaultSettleStartsBuildSoon(t *testing.T) {
	dir := t.TempDir()
	source := filepath.Join(dir, "tool.c")
	write(t, source, "0")
	b := startWith(t, Config{Dir: dir, Build: []string{"date", "+%s%N"}})
	b.next(t)
	var lags []time.Duration
	for i := range 5 {
		saved := time.Now()
		write(t, source, fmt.Sprint(i))
		r := b.next(t)
		ns, err := strconv.ParseInt(strings.TrimSpace(r.Output), 10, 64)
		if err != nil {
			t.Fatalf("build printed %q: %v", r.Output, err)
		}
		lags = append(lags, time.Unix(0, ns).Sub(saved))
	}
	slices.Sort(lags)
	// Not a statement about speed: the bound leaves room for a busy
	// machine to start the command, and is less than a delay the author
	// would feel on every save.
	if lags[len(lags)/2] > 180*time.Millisecond {
		t.Errorf("builds started %v after the saves", lags)
	}
}
