package host_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/watcher"
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
	h.Subscribe(func(host.Change) { changed <- struct{}{} })
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
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, "../examples/go/everything")
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
