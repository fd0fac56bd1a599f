package devloop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// runBuild runs the build command in the project's directory, in a process
// group of its own so that the timeout kills whatever it started.
func runBuild(ctx context.Context, cfg Config) Build {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cfg.Build[0], cfg.Build[1:]...)
	cmd.Dir = cfg.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// Children that keep the output open must not hold the build after
	// the kill.
	cmd.WaitDelay = time.Second
	out := &tail{max: MaxOutput}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Stdin = nil
	cmd.Env = append(os.Environ(), "TERM=dumb") // no colour codes in what clients read
	start := time.Now()
	err := cmd.Run()
	b := Build{Took: time.Since(start), Output: out.String()}
	switch {
	case err == nil:
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		b.Err = fmt.Errorf("%s: killed after the timeout of %s", strings.Join(cfg.Build, " "), cfg.Timeout)
	case ctx.Err() != nil:
		b.Err = ctx.Err()
	default:
		b.Err = fmt.Errorf("%s: %w", strings.Join(cfg.Build, " "), err)
	}
	if b.Err != nil {
		b.Location = location(b.Output, cfg.Dir)
	}
	return b
}

// tail keeps the last max bytes written to it, and says how many it
// dropped.
type tail struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.dropped += over
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped > 0 {
		return fmt.Sprintf("[%d bytes of output before these dropped]\n%s", t.dropped, t.buf)
	}
	return string(t.buf)
}

// locations are the ways compilers name where an error is: "file:line:"
// (gcc, clang, go, tsc with --pretty false), "--> file:line:col" (rustc)
// and "file(line,col)" (AssemblyScript).
var locations = []*regexp.Regexp{
	regexp.MustCompile(`(?m)-->\s+([^\s:]+):(\d+)`),
	regexp.MustCompile(`(?m)([\w./\\-]+\.(?:go|c|h|cc|cpp|rs|ts|as|zig|wat))\((\d+),\d+\)`),
	regexp.MustCompile(`(?m)([\w./\\-]+\.(?:go|c|h|cc|cpp|rs|ts|as|zig|wat)):(\d+)`),
}

// location returns the first place a compiler's message in out names, as
// "file:line" relative to dir.
func location(out, dir string) string {
	best, at := "", len(out)+1
	for _, re := range locations {
		m := re.FindStringSubmatchIndex(out)
		if m == nil || m[0] >= at {
			continue
		}
		file, line := out[m[2]:m[3]], out[m[4]:m[5]]
		if filepath.IsAbs(file) {
			if rel, err := filepath.Rel(dir, file); err == nil && !strings.HasPrefix(rel, "..") {
				file = rel
			}
		}
		best, at = file+":"+line, m[0]
	}
	return best
}
