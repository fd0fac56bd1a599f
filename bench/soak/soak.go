package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmcp/wasmcp/host"
)

// Options size a soak run.
type Options struct {
	Calls   int
	Workers int
	Timeout time.Duration
}

// Outcomes a call must have.
const (
	answers = iota // a result
	fails          // a tool error
	either         // a log flood: a result, or a timeout on a busy machine
)

// mix is the share of each tool among the calls, and how it must end.
var mix = []struct {
	tool    string
	weight  int
	outcome int
}{
	{"ok", 33, answers},
	{"echo", 30, answers},
	{"recurse", 15, fails},
	{"memory", 10, fails},
	{"flood", 5, either},
	{"huge", 5, either},
	{"spin", 2, fails},
}

// Sample is the state of the process at one moment.
type Sample struct {
	Goroutines int
	HeapBytes  uint64 // live heap after a GC
	RSSBytes   uint64 // resident set, 0 where /proc is missing
}

// Figures are the samples around a run and what the calls did.
type Figures struct {
	Before, After Sample
	Calls         int
	ByTool        map[string]int
	Elapsed       time.Duration
}

// Flat reports whether After is within the bounds of the package
// documentation from Before.
func (f Figures) Flat() error {
	var errs []error
	if f.After.Goroutines > f.Before.Goroutines+10 {
		errs = append(errs, fmt.Errorf("goroutines grew from %d to %d", f.Before.Goroutines, f.After.Goroutines))
	}
	if f.After.HeapBytes > 2*f.Before.HeapBytes+64<<20 {
		errs = append(errs, fmt.Errorf("live heap grew from %d to %d bytes", f.Before.HeapBytes, f.After.HeapBytes))
	}
	return errors.Join(errs...)
}

// Soak loads the hostile plugins in a host, makes o.Calls calls with
// o.Workers workers, and writes the figures to out.
func Soak(ctx context.Context, o Options, out io.Writer) (Figures, error) {
	var f Figures
	if o.Calls <= 0 || o.Workers <= 0 || o.Timeout <= 0 {
		return f, errors.New("calls, workers and timeout must be positive")
	}
	dir, err := os.MkdirTemp("", "wasmcp-soak")
	if err != nil {
		return f, err
	}
	defer os.RemoveAll(dir)
	if err := buildPlugins(dir); err != nil {
		return f, err
	}
	cfg := host.NewConfig().WithDir(dir).WithCacheDir("").WithTimeout(o.Timeout).
		WithMemoryLimit(16 << 20).WithLogger(slog.New(slog.DiscardHandler))
	h, err := host.New(ctx, cfg)
	if err != nil {
		return f, err
	}
	defer h.Close(context.Background())
	if err := h.LoadDir(ctx); err != nil {
		return f, err
	}
	if n := len(h.Tools()); n != len(mix) {
		return f, fmt.Errorf("%d tools loaded, want %d", n, len(mix))
	}
	// Warm up: the pools fill and the runtime settles before the first
	// sample, so that what grows afterwards is what the calls left behind.
	if _, err := run(ctx, h, 2*o.Workers, o.Workers, 1); err != nil {
		return f, err
	}
	f.Before = sample()
	start := time.Now()
	f.ByTool, err = run(ctx, h, o.Calls, o.Workers, 2)
	f.Elapsed = time.Since(start)
	f.Calls = o.Calls
	if err != nil {
		return f, err
	}
	f.After = sample()
	f.print(out)
	return f, nil
}

// run makes n calls drawn from mix with workers goroutines.
func run(ctx context.Context, h *host.Host, n, workers int, seed uint64) (map[string]int, error) {
	total := 0
	for _, m := range mix {
		total += m.weight
	}
	var (
		next   atomic.Int64
		mu     sync.Mutex
		byTool = map[string]int{}
		errs   []error
		wg     sync.WaitGroup
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(w)))
			for next.Add(1) <= int64(n) {
				pick := r.IntN(total)
				i := 0
				for pick >= mix[i].weight {
					pick -= mix[i].weight
					i++
				}
				err := callOne(ctx, h, mix[i].tool, mix[i].outcome)
				mu.Lock()
				byTool[mix[i].tool]++
				if err != nil && len(errs) < 10 {
					errs = append(errs, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return byTool, errors.Join(errs...)
}

func callOne(ctx context.Context, h *host.Host, tool string, outcome int) error {
	res, err := h.Call(ctx, host.CallRequest{Tool: tool, Arguments: []byte(`{"n":1}`)})
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	switch {
	case outcome == answers && res.IsError, outcome == fails && !res.IsError:
		return fmt.Errorf("%s: isError %v: %+v", tool, res.IsError, res.Content)
	case outcome == either && res.IsError && !strings.Contains(res.Content[0].Text, "timed out"):
		return fmt.Errorf("%s: %+v", tool, res.Content)
	}
	return nil
}

func sample() Sample {
	// Goroutines of closed instances and finished calls exit
	// asynchronously; two collections let finalizers run too, and
	// FreeOSMemory returns freed pages so that RSS means something.
	runtime.GC()
	time.Sleep(100 * time.Millisecond)
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return Sample{Goroutines: runtime.NumGoroutine(), HeapBytes: ms.HeapAlloc, RSSBytes: rss()}
}

// rss reads VmRSS from /proc/self/status; 0 where there is none.
func rss() uint64 {
	file, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer file.Close()
	s := bufio.NewScanner(file)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func (f Figures) print(w io.Writer) {
	fmt.Fprintf(w, "soak: %d calls in %s\n", f.Calls, f.Elapsed.Round(time.Millisecond))
	for _, m := range mix {
		fmt.Fprintf(w, "  %-8s %6d\n", m.tool, f.ByTool[m.tool])
	}
	fmt.Fprintf(w, "%-12s %12s %12s\n", "", "before", "after")
	fmt.Fprintf(w, "%-12s %12d %12d\n", "goroutines", f.Before.Goroutines, f.After.Goroutines)
	fmt.Fprintf(w, "%-12s %10.1fMiB %10.1fMiB\n", "live heap", mib(f.Before.HeapBytes), mib(f.After.HeapBytes))
	fmt.Fprintf(w, "%-12s %10.1fMiB %10.1fMiB\n", "RSS", mib(f.Before.RSSBytes), mib(f.After.RSSBytes))
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// buildPlugins writes hostile.wasm and echo.wasm of host/testdata into dir:
// the committed binaries when they are there, or else built from their .wat
// sources with wabt's wat2wasm.
func buildPlugins(dir string) error {
	src, err := testdata()
	if err != nil {
		return err
	}
	for _, name := range []string{"hostile", "echo"} {
		wasm, err := os.ReadFile(filepath.Join(src, name+".wasm"))
		if errors.Is(err, fs.ErrNotExist) {
			wasm, err = wat2wasm(filepath.Join(src, name+".wat"))
		}
		if err != nil {
			return fmt.Errorf("build %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".wasm"), wasm, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// wat2wasm assembles the WAT file at path.
func wat2wasm(path string) ([]byte, error) {
	tool, err := exec.LookPath("wat2wasm")
	if err != nil {
		return nil, fmt.Errorf("%s is not built and wat2wasm is missing (apt-get install wabt): %w", path, err)
	}
	out, err := exec.Command(tool, path, "--output=-").Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(exit.Stderr))
		}
		return nil, fmt.Errorf("wat2wasm %s: %w", path, err)
	}
	return out, nil
}

// testdata finds host/testdata of the repository, whose root is the parent
// of the bench module: the working directory is bench/ under go run and
// bench/soak under go test.
func testdata() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil &&
			bytes.HasPrefix(b, []byte("module github.com/wasmcp/wasmcp/bench")) {
			return filepath.Join(filepath.Dir(dir), "host", "testdata"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run soak inside the wasmcp repository's bench module: no go.mod of github.com/wasmcp/wasmcp/bench above the working directory")
		}
		dir = parent
	}
}
