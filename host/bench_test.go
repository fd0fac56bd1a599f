package host_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/internal/watcher"
)

// BenchmarkReload measures the time from a module file landing in the
// watched directory (renamed into it) to the Subscribe callback for the
// resulting Change, with a cold compilation cache (content never compiled
// before) and a warm one (content compiled before and found in the on-disk
// cache, as after a restart or when a version comes back). Each iteration
// lands one of each; removing them again between landings is not timed.
//
// guest=wat is a small hand-written module, where the watcher's settle time
// dominates; guest=go is the 3.6 MB examples/go/everything module, built in
// the setup, where compilation does. The settle=10ms variants show the
// loading cost with little of the watcher's wait.
func BenchmarkReload(b *testing.B) {
	guests := []struct {
		name  string
		build func(b *testing.B) []byte
	}{
		{"wat", func(b *testing.B) []byte { return guest(b, guestSpec{Tools: []string{"t"}}) }},
		{"go", buildGoGuest},
	}
	for _, g := range guests {
		for _, settle := range []time.Duration{watcher.DefaultSettle, 10 * time.Millisecond} {
			b.Run(fmt.Sprintf("guest=%s/settle=%v", g.name, settle), func(b *testing.B) {
				benchmarkReload(b, g.build(b), settle)
			})
		}
	}
}

func benchmarkReload(b *testing.B, wasm []byte, settle time.Duration) {
	dir := b.TempDir()
	h := newHost(b, dir, nil, host.NewConfig().WithCacheDir(b.TempDir()).WithSettle(settle))
	changed := make(chan struct{}, 1)
	h.Subscribe(func(host.Change) {
		select { // never block the load that made the change
		case changed <- struct{}{}:
		default:
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.Watch(ctx)

	// land places a module and returns the time until its Change arrives,
	// then removes it (untimed), so the next landing is an Added again.
	await := func(what string) {
		select {
		case <-changed:
		case <-time.After(patience):
			b.Fatalf("no Change after %s", what)
		}
	}
	land := func(name string, wasm []byte) time.Duration {
		start := time.Now()
		place(b, dir, name, wasm)
		await("adding " + name)
		elapsed := time.Since(start)
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			b.Fatal(err)
		}
		await("removing " + name)
		return elapsed
	}
	land("warm.wasm", wasm) // compiles it into the cache
	// A unique custom section makes content wazero has never compiled
	// without changing what the module does.
	colds := make([][]byte, b.N)
	stamp := time.Now().UnixNano()
	for i := range colds {
		colds[i] = withCustomSection(wasm, fmt.Sprintf("bench-%d-%d", stamp, i))
	}
	var cold, warm time.Duration
	b.ResetTimer()
	for i := range b.N {
		cold += land("cold.wasm", colds[i])
		warm += land("warm.wasm", wasm)
	}
	b.StopTimer()
	coldMs := float64(cold.Microseconds()) / 1000 / float64(b.N)
	warmMs := float64(warm.Microseconds()) / 1000 / float64(b.N)
	b.ReportMetric(coldMs, "cold-ms/reload")
	b.ReportMetric(warmMs, "warm-ms/reload")
	b.ReportMetric(warmMs/coldMs, "warm/cold")
	b.ReportMetric(0, "ns/op") // an op is two reloads and two removals; the metrics above say more
}

// withCustomSection returns wasm with a custom section named name appended.
// Its payload is not empty: wazero v1.12.0 fails to read an empty custom
// section at the end of a module ("failed to read custom section": EOF).
func withCustomSection(wasm []byte, name string) []byte {
	var body []byte
	body = binary.AppendUvarint(body, uint64(len(name)))
	body = append(body, name...)
	body = append(body, name...) // the payload
	out := append([]byte(nil), wasm...)
	out = append(out, 0) // custom section id
	out = binary.AppendUvarint(out, uint64(len(body)))
	return append(out, body...)
}

// buildGoGuest builds examples/go/everything as a Go guest, once per
// benchmark run (go build's cache makes later builds quick).
func buildGoGuest(b *testing.B) []byte {
	b.Helper()
	out := filepath.Join(b.TempDir(), "everything.wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, "./everything")
	cmd.Dir = filepath.Join("..", "examples", "go") // a module of its own
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build the Go guest: %v\n%s", err, msg)
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	return wasm
}

// BenchmarkLoadDir measures a start-up as `wasmcp serve` does it, in
// process: New, LoadDir of a directory of modules with a warm compilation
// cache (filled by a first load, as after a restart), and the first Tools.
// Every module has ten tools with the kind of input schema real tools have.
// schemas=shared gives every tool the same schema document, as tools built
// with one SDK often have; schemas=distinct gives each tool a schema of its
// own, which no cache can share. Close is not timed. Besides the time per
// start it reports the CPU time of user code and of the collector, as the Go
// runtime accounts it: on a shared machine, compare builds with these
// rather than with elapsed time, and interleave their runs.
func BenchmarkLoadDir(b *testing.B) {
	for _, modules := range []int{100, 1000} {
		for _, distinct := range []bool{false, true} {
			name := fmt.Sprintf("modules=%d/schemas=shared", modules)
			if distinct {
				name = fmt.Sprintf("modules=%d/schemas=distinct", modules)
			}
			b.Run(name, func(b *testing.B) { benchmarkLoadDir(b, modules, distinct) })
		}
	}
}

func benchmarkLoadDir(b *testing.B, modules int, distinct bool) {
	const perModule = 10
	dir, cache := b.TempDir(), b.TempDir()
	// One module is built; the others are copies with the module number in
	// its tool names (and schemas) rewritten: same length, so still valid.
	tools := make([]map[string]any, perModule)
	for k := range tools {
		label := "any tool"
		if distinct {
			label = fmt.Sprintf("m0000_t%02d", k)
		}
		tools[k] = map[string]any{
			"name":        fmt.Sprintf("m0000_t%02d", k),
			"description": "Looks a message up and returns a fixed answer.",
			"inputSchema": json.RawMessage(`{"type":"object","description":"Arguments of ` + label + `.","properties":{` +
				`"message":{"type":"string","description":"The message.","minLength":1,"maxLength":4096},` +
				`"count":{"type":"integer","description":"How many times.","minimum":1,"maximum":100},` +
				`"mode":{"type":"string","enum":["fast","thorough"],"description":"How hard to look."}},` +
				`"required":["message"],"additionalProperties":false}`),
		}
	}
	describe, _ := json.Marshal(map[string]any{"tools": tools})
	wasm := guestModule(b, describe, "ok")
	for m := range modules {
		mod := bytes.ReplaceAll(wasm, []byte("m0000_"), fmt.Appendf(nil, "m%04d_", m))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%04d.wasm", m)), mod, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cfg := host.NewConfig().WithDir(dir).WithCacheDir(cache).WithLogger(slog.New(slog.DiscardHandler))
	start := func() *host.Host {
		h, err := host.New(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		if err := h.LoadDir(context.Background()); err != nil {
			b.Fatal(err)
		}
		if n := len(h.Tools()); n != modules*perModule {
			b.Fatalf("%d tools served, want %d", n, modules*perModule)
		}
		return h
	}
	// Closed and collected, a Host leaves nothing for the next start to
	// find in memory (compiled schemas are shared only while in use), as
	// when the process starts again.
	stop := func(h *host.Host) {
		h.Close(context.Background())
		runtime.GC()
	}
	stop(start()) // warms the compilation cache
	// CPU time, which other processes on a shared machine disturb less than
	// elapsed time, as the Go scheduler and the collector account it.
	cpu := []metrics.Sample{{Name: "/cpu/classes/user:cpu-seconds"}, {Name: "/cpu/classes/gc/total:cpu-seconds"}}
	var user, gc float64
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		metrics.Read(cpu)
		user0, gc0 := cpu[0].Value.Float64(), cpu[1].Value.Float64()
		h := start()
		metrics.Read(cpu)
		user += cpu[0].Value.Float64() - user0
		gc += cpu[1].Value.Float64() - gc0
		b.StopTimer()
		stop(h)
		b.StartTimer()
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/n, "ms/start")
	b.ReportMetric(1000*user/n, "user-cpu-ms/start")
	b.ReportMetric(1000*gc/n, "gc-cpu-ms/start")
	b.ReportMetric(0, "ns/op")
}
